"""The controller's config (``tournament.toml``), refused with every problem listed.

The broker, web and storage sections are the floor console's (the same exposure rules: the
web server binds to 127.0.0.1 unless a users file and TLS are configured); the controller
connects as the ``controller`` user of the shipped ACL. The tournament section names the
structure file and the venue's tables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidatorFunctionWrapHandler, field_validator

from tablesvc.config.checks import alongside, setting
from tablesvc.config.table import ConfigError, resolve
from tablesvc.floor.config import (
    FloorMqtt,
    FloorStorage,
    FloorWeb,
    read_toml,
    served_at,
    validated,
)
from tablesvc.tournament.structure import Structure, StructureError, load_structure

ID = r"^[A-Za-z0-9_-]{1,32}$"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TournamentSection(_Section):
    venue: str = Field(pattern=ID)
    name: str = Field(min_length=1, max_length=64)
    structure: str = Field(description="the structure file, relative to this config")
    balancing_variant: int = Field(1, ge=1, le=2, description="RULES.md §6 balancing.variant: "
                                   "1 = TABLE-03 (same position), 2 = TABLE-04 (UTG)")
    max_difference: int = Field(1, ge=1, le=5, description="tables are balanced when their "
                                "player counts differ by more than this")


class TableEntry(_Section):
    id: str = Field(pattern=ID)
    seats: int = Field(9, ge=2, le=10)


class ControllerMqtt(FloorMqtt):
    username: str = "controller"


class TournamentStorage(FloorStorage):
    path: str = Field("tournament.sqlite", description="SQLite file (WAL), relative to the "
                      "config")


class TournamentConfig(_Section):
    tournament: TournamentSection
    tables: list[TableEntry] = Field(min_length=1)
    mqtt: ControllerMqtt = ControllerMqtt()
    web: FloorWeb = FloorWeb(port=8090)
    storage: TournamentStorage = TournamentStorage()

    @field_validator("tables", mode="wrap")
    @classmethod
    def _unique_tables(cls, tables: Any, handler: ValidatorFunctionWrapHandler
                       ) -> list[TableEntry]:
        """A table id given twice, among the ``[[tables]]`` whose id is right: also when
        another key of one of them is wrong (``tablesvc.config.checks``)."""
        written = tables if isinstance(tables, list) else []
        ids = [i for i in (setting(TableEntry, t, "id") for t in written) if i is not None]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        problems = [((), f"{', '.join(twice)} listed more than once")] if twice else []
        result: list[TableEntry] = alongside(tables, handler, problems)
        return result

    def prefix(self) -> str:
        return f"{self.mqtt.topic_prefix.rstrip('/')}/{self.tournament.venue}"


def load_tournament_config(path: str | Path, host: str | None = None,
                           port: int | None = None) -> tuple[TournamentConfig, Structure]:
    """The config and its structure; ConfigError (or StructureError) listing every problem.
    ``host`` and ``port`` (the command line's) stand for ``[web]``'s, under the same rules."""
    p = Path(path)
    raw = served_at(read_toml(p), host, port)
    try:
        cfg = validated(TournamentConfig, raw, p)
    except ConfigError as err:
        # the structure file's problems too, when the config names it rightly: every
        # problem in one pass
        named = setting(TournamentSection, raw.get("tournament"), "structure")
        if isinstance(named, str):
            try:
                load_structure(resolve(p, named))
            except StructureError as bad:
                raise ConfigError(p, err.problems + [f"tournament.structure: {problem}"
                                                     for problem in bad.problems]) from None
        raise
    structure = load_structure(resolve(p, cfg.tournament.structure))
    return cfg, structure


__all__ = ["ConfigError", "StructureError", "TournamentConfig", "load_tournament_config"]
