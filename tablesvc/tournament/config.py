"""The controller's config (``tournament.toml``), refused with every problem listed.

The broker, web and storage sections are the floor console's (the same exposure rules: the
web server binds to 127.0.0.1 unless a users file and TLS are configured); the controller
connects as the ``controller`` user of the shipped ACL. The tournament section names the
structure file and the venue's tables.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

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

    @field_validator("tables")
    @classmethod
    def _unique_tables(cls, tables: list[TableEntry]) -> list[TableEntry]:
        ids = [t.id for t in tables]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(f"{', '.join(twice)} listed more than once")
        return tables

    def prefix(self) -> str:
        return f"{self.mqtt.topic_prefix.rstrip('/')}/{self.tournament.venue}"


def load_tournament_config(path: str | Path, host: str | None = None,
                           port: int | None = None) -> tuple[TournamentConfig, Structure]:
    """The config and its structure; ConfigError (or StructureError) listing every problem.
    ``host`` and ``port`` (the command line's) stand for ``[web]``'s, under the same rules."""
    p = Path(path)
    cfg = validated(TournamentConfig, served_at(read_toml(p), host, port), p)
    structure = load_structure(resolve(p, cfg.tournament.structure))
    return cfg, structure


__all__ = ["ConfigError", "StructureError", "TournamentConfig", "load_tournament_config"]
