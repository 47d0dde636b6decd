"""The floor console's config (its own TOML file), refused with every problem listed.

Secure by default: the web server binds to 127.0.0.1; a config that exposes it on any other
address must name a users file (floor staff log in) and either a certificate or a TLS proxy in
front, because the session cookie is marked Secure and a browser sends it over HTTPS only.
"""

from __future__ import annotations

import ipaddress
import tomllib
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from tablesvc.config.checks import alongside, setting
from tablesvc.config.table import ConfigError, resolve
from tablesvc.config.venue_tables import TABLE_ID
from tablesvc.web.hosts import split_host


def loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


SILENT_AFTER_S = 15.0
"""A table that has published nothing for this long is shown silent: three of the 5 s signs
of life of its service (``tablesvc.pipeline.publisher.ALIVE_EVERY_S``) missed."""


class FloorSection(_Section):
    venue: str = Field(pattern=r"^[A-Za-z0-9_-]{1,32}$")
    name: str = Field("", max_length=64, description="shown in the page's title bar")
    silent_after_s: float = Field(
        SILENT_AFTER_S, ge=1, le=3600, strict=True, allow_inf_nan=False,
        description="seconds without any message from a table before it is shown silent; "
        "keep it above the tables' 5 s sign of life (idle tables would flicker)")
    tables: list[str] = Field(
        default_factory=list, max_length=1000,
        description="the venue's table ids: the console takes messages from these only "
        "(and says once in its log when anything else writes below the venue); empty: any "
        "table id")

    @field_validator("tables", mode="wrap")
    @classmethod
    def _table_ids(cls, tables: Any, handler: ValidatorFunctionWrapHandler) -> list[str]:
        """Ids that are no table ids, and ids given twice, among the strings of the list as
        written: also when an item of it is no string (``tablesvc.config.checks``)."""
        ids = [t for t in tables if isinstance(t, str)] if isinstance(tables, list) else []
        problems = []
        bad = [t for t in ids if not TABLE_ID.fullmatch(t)]
        if bad:
            problems.append(f"not table ids (1-32 of letters, digits, _ and -): {bad}")
        twice = sorted({t for t in ids if ids.count(t) > 1})
        if twice:
            problems.append(f"given twice: {twice}")
        result: list[str] = alongside(tables, handler, [((), p) for p in problems])
        return result


class FloorMqtt(_Section):
    host: str = "127.0.0.1"
    port: int = Field(1883, ge=1, le=65535)
    username: str = "floor"
    password_file: str = ""
    ca_file: str = ""
    topic_prefix: str = "tablesvc/v1"
    protocol: Literal["5", "3.1.1"] = "5"
    keepalive: int = Field(30, ge=5, le=3600)
    client_id: str = Field("", max_length=64,
                           description="default floor-<venue>; the broker keeps this "
                           "session's messages while the console is down")
    session_expiry_s: int = Field(86400, ge=0, le=604800)


class FloorWeb(_Section):
    host: str = "127.0.0.1"
    port: int = Field(8080, ge=0, le=65535)
    users_file: str = ""
    cert_file: str = ""
    key_file: str = ""
    behind_tls_proxy: bool = Field(False, description="a reverse proxy in front terminates "
                                   "TLS (the browser speaks HTTPS to it)")
    session_hours: float = Field(12, gt=0, le=168)
    sound: bool = Field(True, description="critical alerts may beep (the page asks once)")
    hostnames: list[str] = Field(
        default_factory=list, max_length=32,
        description="the names (name or name:port) browsers reach the console by, besides its "
        "address: a request for any other host name is refused (DNS rebinding)")

    @field_validator("hostnames")
    @classmethod
    def _hostnames(cls, names: list[str]) -> list[str]:
        bad = [n for n in names if split_host(n) is None]
        if bad:
            raise ValueError(f"not a host name (name or name:port): {', '.join(map(repr, bad))}")
        return names

    @model_validator(mode="wrap")
    @classmethod
    def _secure_when_exposed(cls, data: Any, handler: ModelWrapValidatorHandler[FloorWeb]
                             ) -> FloorWeb:
        """Logins and TLS when exposed, on the section as written: also when another of its
        keys is wrong or misspelt (``tablesvc.config.checks``)."""
        return alongside(data, handler, [((), p) for p in exposure_problems(data)], "web")

    @property
    def https(self) -> bool:
        """Whether the browser reaches the console over HTTPS (the cookie is then Secure)."""
        return bool(self.cert_file) or self.behind_tls_proxy


def exposure_problems(web: Any) -> list[str]:
    """What ``[web]`` as written lacks for its address: cert_file and key_file together,
    and beyond this machine logins and TLS. Each key is read alone (a wrong one is named by
    its own error and left out here)."""
    if not isinstance(web, dict):
        return []
    host, users_file, cert_file, key_file, proxy = (
        setting(FloorWeb, web, key) for key in ("host", "users_file", "cert_file", "key_file",
                                                "behind_tls_proxy"))
    problems = []
    if cert_file is not None and key_file is not None and bool(cert_file) != bool(key_file):
        problems.append("cert_file and key_file go together")
    if host is not None and not loopback(host):
        if users_file == "":
            problems.append(f"host {host!r} is reachable from other machines: set "
                            "users_file so that floor staff log in")
        if cert_file == "" and proxy is False:
            problems.append(f"host {host!r} is reachable from other machines: set "
                            "cert_file and key_file (or behind_tls_proxy = true), the "
                            "session cookie is sent over HTTPS only")
    return ["; ".join(problems)] if problems else []


class FloorStorage(_Section):
    path: str = Field("floor.sqlite", description="SQLite file (WAL), relative to the config")
    url: str = Field("", description="postgresql://... instead of the SQLite file")
    password_file: str = Field("", description="the database password (kept out of url)")

    @field_validator("url")
    @classmethod
    def _url(cls, url: str) -> str:
        # a field check: a model check would not run once another key of [storage] is wrong
        if url and not url.startswith(("postgresql://", "postgres://")):
            raise ValueError("only postgresql://... URLs are supported (leave it empty for "
                             "the SQLite file)")
        return url


class FloorConfig(_Section):
    floor: FloorSection
    mqtt: FloorMqtt = FloorMqtt()
    web: FloorWeb = FloorWeb()
    storage: FloorStorage = FloorStorage()

    def prefix(self) -> str:
        return f"{self.mqtt.topic_prefix.rstrip('/')}/{self.floor.venue}"


def is_floor_config(raw: dict[str, object]) -> bool:
    """A TOML document is a floor config when it has a [floor] section (a table's has
    [table])."""
    return "floor" in raw and "table" not in raw


def read_toml(path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(path, ["file not found"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(path, [f"cannot read: {exc}"]) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, [f"not valid TOML: {exc}"]) from None


def load_floor_config(path: str | Path, host: str | None = None,
                      port: int | None = None) -> FloorConfig:
    """Read and validate a floor config; raise ConfigError listing every problem, including
    files it names that are missing. ``host`` and ``port`` (the command line's) stand for
    ``[web]``'s and are held to the same rules."""
    p = Path(path)
    return validate_floor_config(served_at(read_toml(p), host, port), p)


def served_at(raw: dict[str, object], host: str | None, port: int | None
              ) -> dict[str, object]:
    """A console's config as read, its ``[web]`` host and port replaced by the command
    line's when given: validated afterwards like the file's own (an address beyond this
    machine needs logins and TLS whichever of the two names it)."""
    web = raw.get("web", {})
    if not isinstance(web, dict) or (host is None and port is None):
        return raw  # a [web] that is no table is named by the validation
    given = {"host": host, "port": port}
    return {**raw, "web": {**web, **{k: v for k, v in given.items() if v is not None}}}


def validate_floor_config(raw: dict[str, object], path: Path) -> FloorConfig:
    return validated(FloorConfig, raw, path)


Console = TypeVar("Console", bound=BaseModel)


def validated(model: type[Console], raw: dict[str, object], path: Path) -> Console:
    """A console's config (the floor's, the tournament controller's: each has the ``mqtt``,
    ``web`` and ``storage`` sections above) validated; ConfigError listing every problem as
    ``key: what``, then every file it names that is missing: those too when something else
    is wrong (each file's key read alone, ``tablesvc.config.checks``)."""
    problems = []
    cfg: Console | None = None
    try:
        cfg = model.model_validate(raw)
    except ValidationError as exc:
        for e in exc.errors():
            key = ".".join(str(x) for x in e["loc"]) or "(top level)"
            msg = e["msg"].removeprefix("Value error, ")
            if e["type"] == "extra_forbidden":
                msg = "unknown key (check the spelling)"
            problems.append(f"{key}: {msg}")
    for section, key in FILES:
        value = setting(FILE_SECTIONS[section], raw.get(section), key)
        if isinstance(value, str) and value and not resolve(path, value).is_file():
            problems.append(f"{section}.{key}: file {resolve(path, value)} not found")
    if problems or cfg is None:
        raise ConfigError(path, problems)
    return cfg


FILES = (("mqtt", "password_file"), ("mqtt", "ca_file"), ("web", "users_file"),
         ("web", "cert_file"), ("web", "key_file"), ("storage", "password_file"))
"""The files a console's config names, which must exist (its ``mqtt``, ``web`` and
``storage`` sections are the floor's, or subclasses of them with these keys alike)."""
FILE_SECTIONS: dict[str, type[BaseModel]] = {"mqtt": FloorMqtt, "web": FloorWeb,
                                              "storage": FloorStorage}
