"""The table config (DESIGN §6): TOML, validated by pydantic, refused with every problem listed.

A technician installing a table box reads the error once and fixes everything in one go, so
validation never stops at the first problem.
"""

from __future__ import annotations

import ipaddress
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from drivers.devices import known_kinds
from tablesvc.config.checks import Loc, alongside, setting
from tablesvc.core.games import VARIANTS
from tablesvc.core.inputs import RESERVED_SOURCES


class _Section(BaseModel):
    # strict: TOML has real types, and `seat = true` or `port = "1883"` is a mistake to name
    model_config = ConfigDict(extra="forbid", strict=True)


class TableSection(_Section):
    venue: str = Field(pattern=r"^[A-Za-z0-9_-]{1,32}$")
    id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,32}$")
    seats: int = Field(10, ge=2, le=10)
    stack_zones: bool = Field(False, description=(
        "the chip reader has a stack zone P1..P<seats> in front of each seat (DESIGN §3): the "
        "service verifies and learns the stacks from it"))


class GameSection(_Section):
    variant: str = Field("holdem", description="the game: one of the registry of games "
                         "(tablesvc.core.games): holdem, draw5, ...")
    limit: Literal["no-limit", "pot-limit", "fixed-limit"] = Field(
        "no-limit", description="the betting limit; by default the game's own (pot-limit "
        "for Omaha, no-limit otherwise)")

    @model_validator(mode="before")
    @classmethod
    def _game_default_limit(cls, data: Any) -> Any:
        """A game with a limit of its own (pot-limit Omaha) plays it unless told otherwise."""
        if isinstance(data, dict) and "limit" not in data:
            game = VARIANTS.get(str(data.get("variant", "holdem")))
            if game is not None:
                data = {**data, "limit": game.default_limit}
        return data

    @field_validator("variant")
    @classmethod
    def _known_game(cls, variant: str) -> str:
        if variant not in VARIANTS:
            raise ValueError(f"{variant!r} is no game this service tracks; known: "
                             f"{', '.join(sorted(VARIANTS))}")
        return variant

    @field_validator("limit")
    @classmethod
    def _game_limit(cls, limit: str, info: ValidationInfo) -> str:
        game = VARIANTS.get(str(info.data.get("variant")))
        if game is not None and limit not in game.limits:
            raise ValueError(f"{game.name} is played {' or '.join(sorted(game.limits))}, "
                             f"not {limit}")
        return limit
    small_blind: int = Field(50, ge=0)
    # validate_default: a small_blind above the default big blind is wrong too
    big_blind: int = Field(100, validate_default=True,
                           description="greater than 0 and not less than small_blind")
    ante: int = Field(0, ge=0)
    ante_mode: Literal["each", "big_blind"] = "each"
    bet_settle_ms: int = Field(1500, ge=0, le=60000)
    max_stack: int = Field(1_000_000_000, ge=1, le=2**53 - 1, description=(
        "the largest stack a player may be given, by the config or a command"))

    @field_validator("big_blind")
    @classmethod
    def _blinds(cls, big: int, info: ValidationInfo) -> int:
        # Both rules in one field check: a model check would not run once any field failed,
        # so a wrong big blind would hide the other half of the problem.
        problems = []
        if big <= 0:
            problems.append("must be greater than 0")
        small = info.data.get("small_blind")
        if small is not None and small > big:
            problems.append(f"small_blind ({small}) must not exceed big_blind ({big})")
        if problems:
            raise ValueError("; ".join(problems))
        return big


class DeviceSection(_Section):
    url: str = Field(min_length=1, description="any pyserial URL")
    baudrate: int = Field(115200, gt=0)
    kind: str | None = Field(None, description="device kind; defaults to the device's name")


class ButtonTag(_Section):
    uid: str = Field(pattern=r"^[0-9A-F]{16}$", description=(
        "the dealer button's tag: 16 uppercase hex digits; the card antennas read it in the "
        "seat zone it lies in"))


class RegistrySection(_Section):
    decks: str = "decks"
    chips: str = "chips.json"
    button: ButtonTag | None = None


class PlayerSection(_Section):
    seat: int = Field(ge=1, le=10)
    name: str = Field(min_length=1, max_length=64)
    stack: int = Field(ge=0)


class MqttSection(_Section):
    host: str = "127.0.0.1"
    port: int = Field(1883, ge=1, le=65535)
    username: str = ""
    password_file: str = ""
    ca_file: str = ""
    topic_prefix: str = "tablesvc/v1"
    protocol: Literal["5", "3.1.1", "auto"] = "auto"
    keepalive: int = Field(30, ge=5, le=3600)
    inflight: int = Field(1000, ge=1, le=60000)
    retention_s: int = Field(86400, ge=0)
    max_command_bytes: int = Field(8192, ge=256, le=1_048_576, description=(
        "a command body larger than this is refused before it is read or journalled"))


class BroadcastSection(_Section):
    holecard_delay_s: float = Field(0, ge=0, le=3600)
    delay_s: float = Field(0, ge=0, le=3600, description="the video delay an overlay applies "
                           "to everything it shows")
    equity_dead_cards: Literal["known", "none"] = Field(
        "known", description="known: folded and burned cards are out of play; none: the "
        "figures of a viewer who sees only the live hands")
    equity: bool = Field(True, description="compute win probabilities (equity events)")
    equity_exact_limit: int = Field(6_000_000, ge=0, description="the most seven-card hands "
                                    "an exact computation may rank; above it boards are "
                                    "sampled")
    equity_samples: int = Field(60_000, ge=20_000, le=10_000_000,
                                description="boards drawn when the figures are sampled")


class OverlaySection(_Section):
    """``tablesvc overlay``: the broadcast page (docs/BROADCAST.md)."""

    host: str = Field("127.0.0.1", min_length=1, description="address the page is served on")
    port: int = Field(8765, ge=1, le=65535)
    hostnames: list[str] = Field(default_factory=list, validate_default=True, description=(
        "the host names and addresses browsers reach the page by (its Host), besides host; "
        "required when host is a wildcard (0.0.0.0, ::)"))
    username: str = Field("", description="the broker user of the broadcast role (the only "
                          "one the ACL lets read secure/)")
    password_file: str = ""
    token_file: str = Field("", description="a file holding the token every request must "
                            "carry (at least 22 of A-Z a-z 0-9 - _, readable by its owner "
                            "only); default: overlay.token in storage.dir, made at first start")
    cert_file: str = Field("", description="the page's TLS certificate (PEM); required when "
                           "host is not a loopback address")
    key_file: str = Field("", validate_default=True, description="the certificate's key")
    layout: Literal[6, 9, 10] | None = Field(None, description="places drawn around the table, "
                                             "seat n at place n; default: at each hand's "
                                             "start, the smallest that holds the players")
    theme: str = Field("", description="a CSS file loaded after the page's own: colours and "
                       "fonts as CSS variables")
    photos: dict[str, str] = Field(default_factory=dict, description="player name -> image")
    flags: dict[str, str] = Field(default_factory=dict, description="player name -> image")

    @field_validator("hostnames")
    @classmethod
    def _names(cls, hostnames: list[str], info: ValidationInfo) -> list[str]:
        problem = overlay_names_problem(info.data.get("host"), hostnames)
        if problem:
            raise ValueError(problem)
        return hostnames

    @field_validator("key_file")
    @classmethod
    def _tls(cls, key_file: str, info: ValidationInfo) -> str:
        problem = overlay_tls_problem(info.data.get("host"), info.data.get("cert_file"),
                                      key_file)
        if problem:
            raise ValueError(problem)
        return key_file


WILDCARDS = frozenset({"0.0.0.0", "::", "[::]", ""})
_NAME_RE = re.compile(r"(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                      r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?")


def overlay_names_problem(host: str | None, names: list[str]) -> str | None:
    """``[overlay] hostnames``: names or addresses, and some when served on a wildcard."""
    problems = []
    for name in names:
        try:
            ipaddress.ip_address(name.strip("[]"))
        except ValueError:
            if not _NAME_RE.fullmatch(name):
                problems.append(f"{name!r} is no host name or address (no scheme, no port)")
    if host is not None and host in WILDCARDS and not names:
        problems.append(f"served on {host or 'every address'} the page answers only to the "
                        "names it is reached by (a rebound DNS name is refused): list them, "
                        'hostnames = ["overlay-box", "192.0.2.7"]')
    return "; ".join(problems) or None


def overlay_tls_problem(host: str | None, cert_file: str | None, key_file: str) -> str | None:
    """``[overlay] cert_file``/``key_file``: together, and required beyond this machine."""
    if cert_file is None:  # cert_file itself is wrong: named already
        return None
    if bool(cert_file) != bool(key_file):
        return "cert_file and key_file go together"
    if host is not None and not is_loopback(host) and not cert_file:
        return (f"the page shows hole cards: served on {host} (beyond this machine) it is "
                "served over TLS only: set cert_file and key_file")
    return None


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 or localhost: reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class HoldemRules(_Section):
    """RULES.md §6 interpretation settings for hold'em.

    Only the recommended defaults are implemented so far; an alternative is refused with a
    clear message rather than silently ignored.
    """

    deal_mode: Literal["one_at_a_time"] = "one_at_a_time"
    button_mode: Literal["move_to_next_occupied"] = "move_to_next_occupied"
    misdeal_window: Literal["first_voluntary_action"] = "first_voluntary_action"
    retro_burn_timing: Literal["immediate"] = Field(
        "immediate", description="both timings of a late burn are accepted (A-10)")
    premature_count_original_burn: Literal[False] = False
    showdown_order_no_river_bet: Literal["seed_last_action"] = "seed_last_action"
    qualification_table: bool = Field(
        False, description="every showdown hand shows both hole cards (SHOW-03, A-20)")


class DrawRules(_Section):
    """RULES.md §6 settings for five-card draw (A-23, A-25, A-26).

    ``second_round_all_check`` has both readings implemented; the others only the
    recommended default, and an alternative is refused rather than silently ignored.
    """

    second_round_all_check: Literal["carry_over", "showdown"] = Field(
        "carry_over", description="all check after the draw: the pot carries over (the "
        "seeds' literal reading) or a showdown")
    burn_before_draw: Literal[False] = False
    reshuffle_exclude_current_player_discards: Literal[True] = True
    reshuffle_include_folded_hands: Literal[False] = False


class BettingRules(_Section):
    reopen_rule: Literal["tda_full_raise", "seed_literal"] = "tda_full_raise"


class TimerRules(_Section):
    confirm_alerts: bool = Field(True, description=(
        "a rule alert waits until every device has been heard after it, with nothing lost "
        "(about a heartbeat, a second at most on a healthy table): a frame lost on a line is "
        "then never taken for an irregularity"))
    deliver_s: float = Field(3.0, gt=0, le=60)
    motion_s: float = Field(0.8, gt=0, le=10)
    release_s: float = Field(1.0, gt=0, le=10)
    clock_s: float = Field(30.0, gt=0, le=600, description="the action clock (BET-17)")
    order_tolerance_s: float = Field(
        0.05, ge=0, le=1, description="frames of different devices this close in time are "
        "taken in the order that makes physical sense (0: as read)")


class RulesSection(_Section):
    he: HoldemRules = HoldemRules()
    draw: DrawRules = DrawRules()
    betting: BettingRules = BettingRules()
    timers: TimerRules = TimerRules()


class MetricsSection(_Section):
    """The optional Prometheus endpoint (needs the ``metrics`` extra); off while port is 0."""

    port: int = Field(0, ge=0, le=65535, description="0: no metrics endpoint")
    address: str = Field("127.0.0.1", min_length=1,
                         description="where to listen; 0.0.0.0 for a remote Prometheus")


class StorageSection(_Section):
    """Where the journal, its checkpoints and the outbox live, and how long segments are kept.

    Retention removes whole segments, oldest first, and only up to a segment whose start has
    a checkpoint (``tablesvc.pipeline.checkpoint``): what is kept always replays exactly.
    """

    dir: str = "/var/lib/tablesvc"
    retention_days: float = Field(
        0, ge=0, le=36500, description="keep journal segments at least this many days; 0 "
        "keeps every segment")
    retention_mb: int = Field(
        0, ge=0, description="prune the oldest segments while the journal is larger; 0 sets "
        "no cap; at least twice segment_mb")
    segment_mb: int = Field(64, ge=1, le=1024, description="size of one journal segment")

    @field_validator("segment_mb")
    @classmethod
    def _cap(cls, segment_mb: int, info: ValidationInfo) -> int:
        # a field check, so that it runs when another key of the section is wrong too
        cap = info.data.get("retention_mb")
        if cap and cap < 2 * segment_mb:
            raise ValueError(f"retention_mb ({cap}) must be 0 or at least twice segment_mb "
                             f"({2 * segment_mb}): the segment being written and the one "
                             "holding the oldest checkpoint are always kept")
        return segment_mb


class Config(_Section):
    table: TableSection
    game: GameSection = GameSection()
    devices: dict[str, DeviceSection] = Field(default_factory=dict)
    registry: RegistrySection = RegistrySection()
    players: list[PlayerSection] = Field(default_factory=list)
    mqtt: MqttSection = MqttSection()
    broadcast: BroadcastSection = BroadcastSection()
    overlay: OverlaySection = OverlaySection()
    rules: RulesSection = RulesSection()
    storage: StorageSection = StorageSection()
    metrics: MetricsSection = MetricsSection()

    @model_validator(mode="wrap")
    @classmethod
    def _whole(cls, data: Any, handler: ModelWrapValidatorHandler[Config]) -> Config:
        """The checks of a whole list (``[devices]``, ``[[players]]``) and of one section
        against another, on the file as written: they run whatever else is wrong in it, a
        wrong key in one player's table or device's included (``tablesvc.config.checks``)."""
        return alongside(data, handler, whole_config_problems(data), "table config")

    def device_kinds(self) -> dict[str, str]:
        return {name: d.kind or name for name, d in self.devices.items()}


DEVICE_NAME = re.compile(r"[a-z0-9-]{1,16}")


def whole_config_problems(raw: Any) -> list[tuple[Loc, str]]:
    """What ``Config._whole`` adds to the sections' own problems: each one under the key it
    was always reported under (``devices``, ``players``, ``overlay``)."""
    if not isinstance(raw, dict):
        return []
    seats = setting(TableSection, raw.get("table"), "seats")
    found: list[tuple[Loc, str]] = []
    for key, problems in (
            ("devices", _device_problems(raw.get("devices"))),
            ("players", _player_problems(raw.get("players"), seats,
                                         setting(GameSection, raw.get("game"), "max_stack"))),
            ("overlay", _layout_problems(raw.get("overlay"), seats))):
        if problems:
            found.append(((key,), "; ".join(problems)))
    return found


def _device_problems(devices: Any) -> list[str]:
    """Each device's name and kind, whatever else is wrong in its section."""
    if not isinstance(devices, dict):
        return []
    problems = []
    for name, dev in devices.items():
        if not DEVICE_NAME.fullmatch(name):
            problems.append(f"{name}: a device name is 1-16 of a-z, 0-9 and '-' (TSP/1)")
        kind = setting(DeviceSection, dev, "kind")
        given = isinstance(dev, dict) and "kind" in dev
        if isinstance(dev, dict) and not (given and kind is None):  # a wrong kind: named
            kind = kind or name
            if kind not in known_kinds():
                problems.append(f"{name}: kind {kind!r} is not one of "
                                f"{', '.join(known_kinds())} (set kind = ... when the name "
                                "differs)")
        if name in RESERVED_SOURCES:
            problems.append(f"{name}: the name is reserved in the journal")
    return problems


def _player_problems(players: Any, table_seats: int | None, max_stack: int | None
                     ) -> list[str]:
    """Seats given twice or beyond the table, stacks above the game's most, over every
    ``[[players]]`` table whose seat (or stack) is right, whatever else is wrong in it."""
    if not isinstance(players, list):
        return []
    seats: list[int | None] = [setting(PlayerSection, p, "seat") for p in players]
    valid = [s for s in seats if s is not None]
    problems = []
    dup = sorted({s for s in valid if valid.count(s) > 1})
    if dup:
        problems.append(f"seat(s) {dup} given to more than one player")
    if table_seats is not None:
        over = sorted(s for s in valid if s > table_seats)
        if over:
            problems.append(f"seat(s) {over} exceed table.seats = {table_seats}")
    if max_stack is not None:
        stacks = [setting(PlayerSection, p, "stack") for p in players]
        rich = [f"#{n} (seat {seat if seat is not None else '?'})"
                for n, (seat, stack) in enumerate(zip(seats, stacks, strict=True), 1)
                if stack is not None and stack > max_stack]
        if rich:
            problems.append(f"player(s) {', '.join(rich)} have a stack above "
                            f"game.max_stack = {max_stack}")
    return problems


def _layout_problems(overlay: Any, table_seats: int | None) -> list[str]:
    layout = setting(OverlaySection, overlay, "layout")
    if table_seats is not None and layout is not None and layout < table_seats:
        return [f"layout {layout} has no place for table.seats = {table_seats}; use 6, 9 or "
                "10 seats at least"]
    return []


class ConfigError(Exception):
    """A config that cannot be used; ``problems`` lists every one as 'file: key: what'."""

    def __init__(self, path: Path, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        lines = "\n".join(f"  {path}: {p}" for p in problems)
        super().__init__(f"config {path} refused, {len(problems)} problem(s):\n{lines}")


def load_config(path: str | Path) -> Config:
    """Read and validate a config file; raise ConfigError listing every problem."""
    p = Path(path)
    try:
        raw = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(p, ["file not found"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(p, [f"cannot read: {exc}"]) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(p, [f"not valid TOML: {exc}"]) from None
    return validate_config(raw, p)


def validate_config(raw: dict[str, object], path: Path) -> Config:
    try:
        return Config.model_validate(raw)
    except ValidationError as exc:
        problems = []
        for e in exc.errors():
            key = config_key(e["loc"])
            msg = e["msg"].removeprefix("Value error, ")
            if e["type"] == "extra_forbidden":
                msg = "unknown key (check the spelling)"
            problems.append(f"{key}: {msg}")
        raise ConfigError(path, problems) from None


def config_key(loc: tuple[int | str, ...]) -> str:
    """A validation error's place as the file's reader counts: ``players #1.stack`` for the
    first ``[[players]]`` table (pydantic counts from 0)."""
    parts = [str(x) for x in loc]
    if len(loc) > 1 and loc[0] == "players" and isinstance(loc[1], int):
        parts[:2] = [f"players #{loc[1] + 1}"]
    return ".".join(parts) or "(top level)"


def device_url(base: Path, url: str) -> str:
    """A device URL; a relative plain path is relative to the config file, like every path."""
    if "://" in url or Path(url).is_absolute():
        return url
    return str(base.parent / url)


def resolve(base: Path, value: str) -> Path:
    """Relative paths in a config are relative to the config file's folder."""
    p = Path(value)
    return p if p.is_absolute() else (base.parent / p)
