"""The controller's commands (``cmd/<name>``, DESIGN §9) carried out on the table.

Each command is parsed and validated (``tablesvc.core.commands``), carried out here against the
table's state, and answered with a reply; a command that cannot be carried out is refused with
a reason and changes nothing. Pure: the table's state in, the reply and events out.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Protocol

from tablesvc.core import commands as c
from tablesvc.core.commands import (
    PENDING_LEVELS,
    PRINTABLE_NAMES,
    STRICT_CHECKS,
    CommandError,
    Limits,
    parse_command,
)
from tablesvc.core.continuity import Continuity
from tablesvc.core.emitter import Emitter, Reply
from tablesvc.core.hand import Hand
from tablesvc.core.inputs import Command
from tablesvc.core.settings import Level, Player, TableSettings


class TableCore(Protocol):
    """What the commands read and change of the table."""

    s: TableSettings
    out: Emitter
    session: Hand | None
    players: dict[int, Player]
    unverified: set[int]
    next_button: int | None
    button_known: bool
    command_checks: int  # the checks commands had when journalled (an old journal: lax)
    continuity: Continuity
    pending_level: Level | None  # sent during a hand: the level from the next hand on

    def level_now(self, level: Level) -> None: ...

    def seated(self, seat: int, name: str, newcomer: bool = True) -> None: ...
    def unseated(self, seat: int, player: Player) -> None: ...
    def misdeal(self, why: str) -> bool: ...

RULES: dict[str, tuple[str, ...]] = {
    "DRAW-10": ("rule_suspended", "rule_restored"),
}


def run_command(table: TableCore, inp: Command) -> None:
    """Carry out one command and answer it."""
    request_id = inp.body.get("request_id")
    try:
        limits = Limits(table.s.seats, table.s.max_stack,
                        strict=table.command_checks >= STRICT_CHECKS,
                        printable_names=table.command_checks >= PRINTABLE_NAMES)
        parsed = parse_command(inp.cmd, inp.body, limits)
        data = _run(table, parsed)
    except CommandError as err:
        table.out.reply(Reply(inp.cmd, request_id, False, str(err)))
        table.out.note("info", "command refused", cmd=inp.cmd, error=str(err))
        return
    table.out.reply(Reply(inp.cmd, request_id, True, None, data))


def _run(table: TableCore, cmd: Any) -> Any:
    hand = table.session if table.session is not None and table.session.live else None
    if isinstance(cmd, c.SeatCmd):
        if cmd.seat > table.s.seats:
            raise CommandError(f"seat {cmd.seat} does not exist (table has {table.s.seats} "
                               "seats)")
        if hand is not None and hand.in_hand(cmd.seat):
            raise CommandError(f"seat {cmd.seat} is in the current hand; seat after it ends")
        newcomer = cmd.seat not in table.players
        table.players[cmd.seat] = Player(cmd.seat, cmd.name, cmd.stack)
        table.unverified.discard(cmd.seat)  # the controller gave the stack
        table.seated(cmd.seat, cmd.name, newcomer)
        return {"seat": cmd.seat}
    if isinstance(cmd, c.UnseatCmd):
        if cmd.seat not in table.players:
            raise CommandError(f"seat {cmd.seat} is empty")
        if hand is not None and hand.live_hand(cmd.seat):
            raise CommandError(f"seat {cmd.seat} has a live hand; unseat after it ends")
        table.unseated(cmd.seat, table.players.pop(cmd.seat))
        return {"seat": cmd.seat}
    if isinstance(cmd, c.ConfigureCmd):
        return _configure(table, cmd, hand)
    if isinstance(cmd, c.StacksCmd):
        return _stacks(table, cmd)
    if isinstance(cmd, c.DeclareCmd):
        return _declare(table, cmd)
    if isinstance(cmd, c.AckAlertCmd):
        open_alerts = table.out.open_alerts
        name = open_alerts.get(cmd.alert_id)
        if name is None:
            raise CommandError(f"no open critical alert {cmd.alert_id!r}; open: "
                               f"{', '.join(open_alerts) or 'none'}")
        table.out.close_alert(cmd.alert_id)
        table.out.note("info", "alert acknowledged", alert=cmd.alert_id, name=name, by=cmd.by)
        return {"alert_id": cmd.alert_id, "name": name}
    if isinstance(cmd, c.ButtonCmd):
        if cmd.seat not in table.players:
            raise CommandError(f"seat {cmd.seat} is empty; the button goes to a seated player")
        table.next_button = cmd.seat
        table.button_known = True  # the controller says where it goes
        return {"next_button": cmd.seat}
    raise CommandError(f"command {type(cmd).__name__} is not supported yet")


def _configure(table: TableCore, cmd: c.ConfigureCmd, hand: Hand | None) -> dict[str, Any]:
    """A new level (or limit), its fields merged onto the level in effect. A controller sends
    it when its clock says so, whatever the table is doing: during a hand it waits for the
    next hand (the hand under way finishes on the level it was dealt at), and a second one
    replaces it; between hands it applies at once. The reply says which, and the level as it
    will be. (A journal of a version that refused it during a followed hand replays so.)"""
    waits = table.command_checks >= PENDING_LEVELS
    if hand is not None and hand.tracked and not waits:
        raise CommandError("a level change takes effect between hands; send it after "
                           "this hand ends")
    changes = cmd.model_dump(exclude_none=True, exclude={"request_id"})
    new = replace(table.s, **changes)
    if new.small_blind > new.big_blind:
        raise CommandError(f"small_blind {new.small_blind} exceeds big_blind "
                           f"{new.big_blind}")
    level = Level.of(new)
    if hand is not None and waits and level != Level.of(table.s):
        table.pending_level = level
        return {"takes_effect": "next_hand", "level": level.view()}
    table.pending_level = None  # (the level in effect again: nothing waits)
    table.level_now(level)
    return {"takes_effect": "now", "level": level.view()}


def _stacks(table: TableCore, cmd: c.StacksCmd) -> dict[str, Any]:
    """The floor's chip count: the stacks as counted, confirmed from now on."""
    hand = table.session
    if hand is not None and hand.live and hand.tracked:
        raise CommandError("a chip count is taken between hands; the hand under way is "
                           "followed, so send it after the hand ends")
    empty = sorted(s for s in cmd.stacks if s not in table.players)
    if empty:
        raise CommandError("no player is seated at seat(s) "
                           + ", ".join(map(str, empty)) + "; seat them first (cmd/seat)")
    for seat, stack in cmd.stacks.items():
        table.players[seat].stack = stack
        table.unverified.discard(seat)
    table.continuity.counted.update(cmd.stacks)  # the count is newer than any gap before it
    if hand is not None and hand.live:
        hand.stacks_counted(set(cmd.stacks))
    return {"stacks": {str(s): table.players[s].stack for s in sorted(cmd.stacks)},
            "unverified": sorted(table.unverified)}


def _declare(table: TableCore, cmd: Any) -> Any:
    if cmd.ruling in ("suspend_rule", "restore_rule"):
        return _suspend(table, cmd)
    hand = table.session
    if hand is None or not hand.live:
        raise CommandError("no hand is running")
    if cmd.ruling == "misdeal":
        table.misdeal(f"floor ruling: {cmd.reason or 'misdeal'}")
        return {"ruling": "misdeal", "hand": hand.number}
    return hand.rule_dead(cmd.seat, cmd.ruling, cmd.reason)


def _suspend(table: TableCore, cmd: Any) -> Any:
    """DRAW-10: all players agree to set a rule aside; its alerts become info."""
    out = table.out
    suspended = out.suspended
    if cmd.rule is None:
        raise CommandError(f"{cmd.ruling} needs the rule ID, e.g. \"rule\": \"SEAT-10\"")
    if cmd.ruling == "restore_rule":
        if suspended.pop(cmd.rule, None) is None:
            raise CommandError(f"rule {cmd.rule} is not suspended; suspended: "
                               f"{', '.join(sorted(suspended)) or 'none'}")
        out.alert("rule_restored", "DRAW-10", "info", f"rule {cmd.rule} applies again")
        return {"restored": cmd.rule}
    suspended[cmd.rule] = cmd.reason
    out.alert("rule_suspended", "DRAW-10", "info",
              f"the players agreed to suspend rule {cmd.rule}"
              + (f" ({cmd.reason})" if cmd.reason else "")
              + ": its alerts are reported as info until it is restored")
    return {"suspended": sorted(suspended)}
