"""Controller commands (``cmd/<name>``, DESIGN §9) as pydantic models.

A command that does not validate is refused with every problem in one sentence, so the
controller's operator can fix it without reading logs.

>>> parse_command("seat", {"seat": 3, "name": "Bob", "stack": 10000})
SeatCmd(request_id=None, seat=3, name='Bob', stack=10000)
>>> try:
...     parse_command("seat", {"seat": 0, "name": "Bob"})
... except CommandError as err:
...     print(err)
invalid seat command: seat: Input should be greater than or equal to 1; stack: Field required
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator


class CommandError(ValueError):
    """A command that cannot be carried out; the message goes into the reply."""


class _Cmd(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    request_id: str | int | None = None


class SeatCmd(_Cmd):
    """Seat a player (or change the name/stack of a seated one) between hands."""

    seat: int = Field(ge=1, le=10)
    name: str = Field(min_length=1, max_length=64)
    stack: int = Field(ge=0)


class UnseatCmd(_Cmd):
    seat: int = Field(ge=1, le=10)


class ButtonCmd(_Cmd):
    """Set the button of the next hand."""

    seat: int = Field(ge=1, le=10)


class ConfigureCmd(_Cmd):
    """Change the blind/ante level or the limit, between hands."""

    small_blind: int | None = Field(None, ge=0)
    big_blind: int | None = Field(None, gt=0)
    ante: int | None = Field(None, ge=0)
    ante_mode: Literal["each", "big_blind"] | None = None
    limit: Literal["no-limit", "pot-limit", "fixed-limit"] | None = None


class DeclareCmd(_Cmd):
    """A floor ruling: a misdeal (the hand is void), a seat's hand dead or foul, or a rule
    suspended (and restored) by unanimous agreement of the players (DRAW-10)."""

    ruling: Literal["misdeal", "dead_hand", "foul_hand", "suspend_rule", "restore_rule"]
    seat: int | None = Field(None, ge=1, le=10)
    rule: str | None = Field(None, pattern=r"^[A-Z]+-\d{2}$",
                             description="the RULES.md ID, for suspend_rule/restore_rule")
    reason: str = Field("", max_length=200)


class AckAlertCmd(_Cmd):
    """The floor has seen a critical alert and applied the remedy."""

    alert_id: str = Field(min_length=1)
    by: str = Field("", max_length=64)


class StacksCmd(_Cmd):
    """The floor's chip count (seat -> stack): it sets those stacks and confirms them after a
    hand the service could not follow. Taken between hands or during an untracked hand."""

    stacks: dict[int, int] = Field(min_length=1, max_length=10)

    @field_validator("stacks")
    @classmethod
    def _seats_and_counts(cls, value: dict[int, int]) -> dict[int, int]:
        bad = [f"seat {s}" for s in value if not 1 <= s <= 10]
        bad += [f"seat {s}: a stack of {v}" for s, v in value.items() if v < 0]
        if bad:
            raise ValueError("seats are 1..10 and stacks 0 or more: " + ", ".join(bad))
        return value


class ReplayCmd(_Cmd):
    """Ask for acknowledged public events again, to fill a consumer's gap."""

    from_seq: int = Field(ge=1)
    to_seq: int = Field(ge=1)


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


def parse_command(name: str, body: dict[str, Any]) -> _Cmd:
    model = COMMANDS.get(name)
    if model is None:
        raise CommandError(f"unknown command {name!r}; known: {', '.join(sorted(COMMANDS))}")
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()
        )
        raise CommandError(f"invalid {name} command: {problems}") from None
