"""Controller commands (``cmd/<name>``, DESIGN §9) as pydantic models, checked strictly.

A command that does not validate is refused with every problem in one sentence, so the
controller's operator can fix it without reading logs.

Strict means what a careful operator would expect of a table that holds real money: a seat is a
JSON integer (``true`` is not seat 1, ``"3"`` and ``3.0`` are not seat 3), within 1..10 and
within the table's own seats; a stack is an integer no larger than the configured maximum
(``[game] max_stack``); a rule ID is one of the rules catalogue's (``rule_ids``). The limits
that depend on the table come in as ``Limits``, through pydantic's validation context, so the
models stay plain declarations. A new command is a model built from the annotated types below
(``Seat``, ``Stack``, ``SeatStacks``, ``RuleId``, ``RequestId``) plus a line in ``COMMANDS``.

Journals recorded before these checks hold commands that were accepted then (a seat ``true``,
say) and must replay to exactly the events published then. The service's start record says
which checks its commands got (``COMMAND_CHECKS``); commands after a start record without it
are read as they were then: lax types and none of the table-dependent limits.

>>> parse_command("seat", {"seat": 3, "name": "Bob", "stack": 10000})
SeatCmd(request_id=None, seat=3, name='Bob', stack=10000)
>>> try:
...     parse_command("seat", {"seat": True, "name": "Bob", "stack": 10**12})
... except CommandError as err:
...     for problem in str(err).split("; "):
...         print(problem)
invalid seat command: seat: Input should be a valid integer
stack: must be at most 1000000000 (the table's max_stack)
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from tablesvc.core.rule_ids import RULE_IDS

COMMAND_CHECKS = 5
"""The checks this version gives commands; written into the service's start record. 1 (or no
mark) is the lax validation of earlier versions, kept for replaying their journals."""
STRICT_CHECKS = 2
"""From this mark on commands were checked strictly (types, the table's limits)."""
PENDING_LEVELS = 3
"""From this mark on a ``configure`` during a hand waits for the next hand; before it, one
during a followed hand was refused (and must be again when such a journal is replayed)."""
UNSEATED_MAY_BE_DEALT = 4
"""From this mark on a player the controller unseated may still be dealt the next hand (the
dealer pressed NEWHAND before he stood up): that hand is placed from the table, and dealt in
he is back for it. Before it, the hand after an unseat was dealt in from the rotation."""
PRINTABLE_NAMES = 5
"""From this mark on a player's name may hold no control or format character (a NUL, a
newline, a right-to-left override): it is shown on screens and in logs as it is."""
MAX_STACK = 1_000_000_000
"""The default ``[game] max_stack``."""
SAFE_INT = 2**53 - 1


class CommandError(ValueError):
    """A command that cannot be carried out; the message goes into the reply."""


@dataclass(frozen=True, slots=True)
class Limits:
    """What a command is checked against besides its own model: the table's seats, the
    largest stack, and whether the strict checks apply at all (not for old journals)."""

    seats: int = 10
    max_stack: int = MAX_STACK
    strict: bool = True
    printable_names: bool = True  # names refused with control or format characters


LAX = Limits(strict=False, printable_names=False)


def _limits(info: ValidationInfo) -> Limits:
    ctx = info.context
    limits = ctx.get("limits") if isinstance(ctx, dict) else None
    return limits if isinstance(limits, Limits) else Limits()


def _seat_of_table(seat: int, info: ValidationInfo) -> int:
    limits = _limits(info)
    if limits.strict and seat > limits.seats:
        raise ValueError(f"seat {seat} does not exist (the table has {limits.seats} seats)")
    return seat


def _stack_in_range(stack: int, info: ValidationInfo) -> int:
    limits = _limits(info)
    if limits.strict and stack > limits.max_stack:
        raise ValueError(f"must be at most {limits.max_stack} (the table's max_stack)")
    return stack


def _printable(name: str, info: ValidationInfo) -> str:
    if _limits(info).printable_names:
        bad = sorted({f"U+{ord(c):04X}" for c in name
                      if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Cs")})
        if bad:
            raise ValueError("no control or format characters (" + ", ".join(bad) + "): a "
                             "name is shown on screens and in logs as it is")
    return name


def _known_rule(rule: str, info: ValidationInfo) -> str:
    if _limits(info).strict and rule not in RULE_IDS:
        raise ValueError(f"{rule} is not a rule of the rules catalogue")
    return rule


def _safe(value: int, info: ValidationInfo) -> int:
    if _limits(info).strict and value > SAFE_INT:
        raise ValueError(f"must be at most {SAFE_INT}")
    return value


def _request_id(value: Any, info: ValidationInfo) -> Any:
    if not _limits(info).strict or value is None:
        return value
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ValueError("must be a string or an integer")
    if isinstance(value, str) and len(value) > 128:
        raise ValueError("must be at most 128 characters")
    if isinstance(value, int) and abs(value) > SAFE_INT:
        raise ValueError(f"must be at most {SAFE_INT}")
    return value


def _seat_key(value: Any) -> Any:
    """JSON object keys are strings: a seat key is the seat's decimal digits."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 2:
        return int(value)
    return value


Seat = Annotated[int, Field(ge=1, le=10), AfterValidator(_seat_of_table)]
"""A seat of this table: an integer 1..10, and no higher than the table's seats."""
Stack = Annotated[int, Field(ge=0), AfterValidator(_stack_in_range)]
"""A stack in chip units: an integer from 0 to ``[game] max_stack``."""
SeatKey = Annotated[int, BeforeValidator(_seat_key), Field(ge=1, le=10),
                    AfterValidator(_seat_of_table)]
"""A seat as a JSON object key (keys are strings in JSON: ``"3"``)."""
SeatStacks = Annotated[dict[SeatKey, Stack], Field(min_length=1, max_length=10)]
"""Seat -> stack, e.g. a chip count ``{"3": 9600, "5": 12000}``."""
RuleId = Annotated[str, Field(pattern=r"^[A-Z]+-\d{2}$"), AfterValidator(_known_rule)]
"""A rule ID of the rules catalogue (RULES.md), e.g. ``SEAT-10``."""
RequestId = Annotated[str | int | None, BeforeValidator(_request_id)]
"""Anything the controller uses to match a reply to its request: a string or an integer."""
SeqNo = Annotated[int, Field(ge=1), AfterValidator(_safe)]


class _Cmd(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    request_id: RequestId = None


class SeatCmd(_Cmd):
    """Seat a player (or change the name/stack of a seated one) between hands."""

    seat: Seat
    name: Annotated[str, AfterValidator(_printable)] = Field(min_length=1, max_length=64)
    stack: Stack


class UnseatCmd(_Cmd):
    seat: Seat


class ButtonCmd(_Cmd):
    """Set the button of the next hand."""

    seat: Seat


class ConfigureCmd(_Cmd):
    """Change the blind/ante level or the limit: at once between hands, from the next hand
    while one runs. The fields given are merged onto the level in effect; ``level`` is the
    tournament's number for it, which the table keeps and shows."""

    small_blind: Annotated[int, AfterValidator(_stack_in_range)] | None = Field(None, ge=0)
    big_blind: Annotated[int, AfterValidator(_stack_in_range)] | None = Field(None, gt=0)
    ante: Annotated[int, AfterValidator(_stack_in_range)] | None = Field(None, ge=0)
    ante_mode: Literal["each", "big_blind"] | None = None
    limit: Literal["no-limit", "pot-limit", "fixed-limit"] | None = None
    level: int | None = Field(None, ge=1, le=10_000)


class DeclareCmd(_Cmd):
    """A floor ruling: a misdeal (the hand is void), a seat's hand dead or foul, or a rule
    suspended (and restored) by unanimous agreement of the players (DRAW-10)."""

    ruling: Literal["misdeal", "dead_hand", "foul_hand", "suspend_rule", "restore_rule"]
    seat: Seat | None = None
    rule: str | None = Field(None, pattern=r"^[A-Z]+-\d{2}$",
                             description="the RULES.md ID, for suspend_rule/restore_rule")
    reason: str = Field("", max_length=200)

    @field_validator("rule")
    @classmethod
    def _rule_exists(cls, rule: str | None, info: ValidationInfo) -> str | None:
        # only a rule being suspended must exist: restoring names what is suspended, and the
        # core says so when it is not
        if rule is not None and info.data.get("ruling") == "suspend_rule":
            _known_rule(rule, info)
        return rule


class AckAlertCmd(_Cmd):
    """The floor has seen a critical alert and applied the remedy."""

    alert_id: str = Field(min_length=1, max_length=64)
    by: str = Field("", max_length=64)


class StacksCmd(_Cmd):
    """The floor's chip count (seat -> stack): it sets those stacks and confirms them after a
    hand the service could not follow. Taken between hands or during an untracked hand."""

    stacks: SeatStacks


class ReplayCmd(_Cmd):
    """Ask for acknowledged public events again, to fill a consumer's gap."""

    from_seq: SeqNo
    to_seq: SeqNo

    @field_validator("to_seq")
    @classmethod
    def _ordered(cls, to_seq: int, info: ValidationInfo) -> int:
        start = info.data.get("from_seq")
        if start is not None and to_seq < start:
            raise ValueError(f"must not be below from_seq ({start})")
        return to_seq


COMMANDS: dict[str, type[_Cmd]] = {
    "seat": SeatCmd,
    "unseat": UnseatCmd,
    "button": ButtonCmd,
    "configure": ConfigureCmd,
    "declare": DeclareCmd,
    "ack_alert": AckAlertCmd,
    "stacks": StacksCmd,
    "replay": ReplayCmd,
}


def parse_command(name: str, body: dict[str, Any], limits: Limits | None = None) -> _Cmd:
    """The command ``name`` with ``body``, checked against ``limits`` (strict by default);
    raises CommandError naming every problem."""
    model = COMMANDS.get(name)
    if model is None:
        raise CommandError(f"unknown command {name!r}; known: {', '.join(sorted(COMMANDS))}")
    limits = limits or Limits()
    try:
        return model.model_validate(body, strict=limits.strict,
                                     context={"limits": limits})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'body'}: "
            f"{e['msg'].removeprefix('Value error, ')}" for e in exc.errors()
        )
        raise CommandError(f"invalid {name} command: {problems}") from None
