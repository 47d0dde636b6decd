"""The players' exchanges at the draw of five-card draw: one turn each, in order, and the
checks of their order and counts (RULES.md §2.7; DRAW-02, DRAW-07, DRAW-08).

One job: what one exchange is and when its count or its place in the order is wrong. An
``Exchange`` is one player's turn (announced, discarded, received); the draw tracker
(``draw5.tracker``) keeps the turns in draw order, feeds them the cards and asks these
functions what is irregular; it answers ``Drew`` when a turn is finished and ``DrawComplete``
when every player has exchanged. Rule IDs:

- DRAW-08 ``draw_player_skipped``: a later player gets cards while an earlier one has not drawn;
- DRAW-07 ``draw_count_mismatch``: more or fewer cards received than announced;
- DRAW-02 ``draw_declaration_mismatch``: more or fewer cards discarded than announced.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tablesvc.core.card_flow import CardRecord, GameOutcome, Irregularity, alert, irregularity

# Rule ID -> the alerts raised here (docs/RULES-COVERAGE.md is generated from it).
RULES: dict[str, tuple[str, ...]] = {
    "DRAW-02": ("draw_declaration_mismatch",),
    "DRAW-07": ("draw_count_mismatch",),
    "DRAW-08": ("draw_player_skipped",),
}


@dataclass(frozen=True, slots=True)
class Drew(GameOutcome):
    """A player's exchange is finished (DRAW-02): counts for everyone, cards for secure."""

    seat: int
    discarded: int
    received: int
    hole: tuple[str, ...]
    again: bool = False  # the turn was reopened (a card exposed or put back): hole cards only


@dataclass(frozen=True, slots=True)
class DrawComplete(GameOutcome):
    """Every player has exchanged: the second betting round may start (BET-22)."""


@dataclass(slots=True)
class Exchange:
    """One player's turn at the draw."""

    seat: int
    announced: int | None = None
    discards: list[str] = field(default_factory=list)
    received: list[str] = field(default_factory=list)
    done: bool = False
    forfeited: bool = False
    reopened: bool = False
    flagged: set[str] = field(default_factory=set)  # alert names raised for this turn


def started_after(turns: list[Exchange], turn: Exchange) -> bool:
    """Has any player after ``turn`` begun his exchange?"""
    later = turns[turns.index(turn) + 1:]
    return any(t.announced is not None or t.discards or t.received for t in later)


def skipped(turns: list[Exchange], turn: Exchange, rec: CardRecord) -> list[Irregularity]:
    """DRAW-08: card ``rec`` went to ``turn``'s player while earlier ones have not drawn."""
    out: list[Irregularity] = []
    for t in turns:
        if t is turn:
            break
        if not t.done and "skipped" not in t.flagged:
            t.flagged.add("skipped")
            out.append(irregularity(
                "draw_player_skipped", "DRAW-08", "warning", t.seat, rec, f"S{t.seat}",
                f"S{turn.seat}", f"card #{rec.index} went to seat {turn.seat}, but seat "
                f"{t.seat} has not drawn yet", f"if seat {turn.seat} has not looked at his "
                f"new cards, they go to seat {t.seat} in order; if he has (CARDS_VIEWED), "
                f"seat {t.seat} loses his exchange and keeps his cards"))
    return out


def over_count(turn: Exchange, k: int) -> list[Irregularity]:
    """More cards discarded or received than the ``k`` announced: said once per turn, and not
    when the discards are over the limit (DRAW-03 said it)."""
    name = "draw_count_mismatch" if len(turn.received) > k else "draw_declaration_mismatch"
    over = name == "draw_declaration_mismatch" and "draw_exceeds_max" in turn.flagged
    if name in turn.flagged or over:
        return []
    turn.flagged.add(name)
    got = len(turn.received) if name == "draw_count_mismatch" else len(turn.discards)
    what = "received" if name == "draw_count_mismatch" else "discarded"
    return [alert(
        name, "DRAW-07" if name == "draw_count_mismatch" else "DRAW-02", "warning",
        turn.seat, f"seat {turn.seat} announced {k} and has {what} {got}",
        "if he has not looked at the new cards, an extra card goes back on top of "
        "the stub; if he has, with too many cards he is out of this game"
        if name == "draw_count_mismatch" else
        "settle the count before the next player draws")]


def short_count(turn: Exchange) -> list[Irregularity]:
    """The turn is closed with what it has: fewer cards received or discarded than announced
    (or than discarded, when nothing was announced)."""
    out: list[Irregularity] = []
    k = turn.announced if turn.announced is not None else len(turn.discards)
    if len(turn.received) != k and "draw_count_mismatch" not in turn.flagged:
        out.append(alert(
            "draw_count_mismatch", "DRAW-07", "warning", turn.seat,
            f"seat {turn.seat} announced {k} and received {len(turn.received)}",
            "if he has not looked, he gets the missing card now (the next stub card); if he "
            "has, he plays on short"))
    if len(turn.discards) != k and not turn.flagged & {"draw_declaration_mismatch",
                                                        "draw_exceeds_max"}:
        out.append(alert(
            "draw_declaration_mismatch", "DRAW-02", "warning", turn.seat,
            f"seat {turn.seat} announced {k} and discarded {len(turn.discards)}",
            "settle the count before the next player draws"))
    return out
