"""Win probabilities for the broadcast: pure computation, no I/O, no clock.

``compute(request)`` answers an ``EquityRequest`` of the core (``tablesvc.core.requests``) with
the payload of the ``equity`` event: per live seat the win and tie percentages, their method
(every board counted, or boards sampled with the error stated), on the turn the outs, and from
the flop on the hand each seat holds now. Five-card draw gets each seat's hand after the deal,
and after the draw, when nothing is left to come, the settled result. Omaha (four or five hole
cards, ``tablesvc.equity.omaha``) gets the payload of hold'em: every board counted from the
flop on, boards sampled pre-flop.

It runs on the pipeline's worker thread (``tablesvc.pipeline.equity``), never inside the core:
pre-flop, the exact figures take tens of milliseconds, a thousand times a frame's budget.
"""

from __future__ import annotations

from typing import Any

from tablesvc.core.requests import EquityRequest
from tablesvc.core.showdown import evaluate, evaluate_draw, evaluate_omaha
from tablesvc.equity.holdem import EXACT_LIMIT, SAMPLES, holdem_counts, quad_table
from tablesvc.equity.omaha import OMAHA_EXACT_LIMIT, OMAHA_VARIANTS, omaha_counts, omaha_tables
from tablesvc.equity.tables import tables

__all__ = ["EXACT_LIMIT", "SAMPLES", "compute", "warm_up"]


def warm_up() -> None:
    """Build the lookup tables now (about half a second) rather than at the first hand."""
    tables()
    quad_table()
    omaha_tables()


def compute(request: EquityRequest, *, exact_limit: int = EXACT_LIMIT,
            samples: int = SAMPLES) -> dict[str, Any]:
    """The ``equity`` event's payload for one hand state (see ``tablesvc.core.events``)."""
    if request.variant == "draw5":
        return _draw(request)
    seats = [s for s, _ in request.holes]
    holes = [cards for _, cards in request.holes]
    omaha = request.variant in OMAHA_VARIANTS
    if omaha:  # the service's limit counts hold'em hands: it may lower Omaha's, never raise it
        counts = omaha_counts(holes, request.board, request.dead,
                              exact_limit=min(exact_limit, OMAHA_EXACT_LIMIT), samples=samples,
                              seed=request.key)
    else:
        counts = holdem_counts(holes, request.board, request.dead, exact_limit=exact_limit,
                               samples=samples, seed=request.key)
    figures = counts.percentages()
    out: list[dict[str, Any]] = []
    for i, seat in enumerate(seats):
        win, tie = figures[i]
        row: dict[str, Any] = {"seat": seat, "win": win, "tie": tie}
        if counts.outs is not None:
            row["outs"] = list(counts.outs[i])
        if request.board:
            value = (evaluate_omaha(holes[i], request.board) if omaha
                     else evaluate([*holes[i], *request.board]))
            row["hand"] = value.name
        out.append(row)
    return {"street": request.street, "method": counts.method, "samples": counts.boards,
            "error": counts.error(), "dead": len(request.dead), "seats": out}


def _draw(request: EquityRequest) -> dict[str, Any]:
    """Five-card draw: each seat's hand; after the draw the best one has won (or split)."""
    values = {seat: evaluate_draw(cards) for seat, cards in request.holes}
    if request.street != "postdraw":
        return {"street": request.street, "method": "none", "samples": 0, "error": None,
                "dead": 0, "seats": [{"seat": s, "win": None, "tie": None,
                                      "hand": values[s].name} for s, _ in request.holes]}
    best = max(values.values())
    winners = [s for s, v in values.items() if v == best]
    split = round(100 / len(winners), 2) if len(winners) > 1 else 0.0
    ties = {seat: split for seat in winners} if split else {}
    if ties:  # 100 split k ways, rounded so that the shares add up to exactly 100
        ties[winners[0]] = round(100 - split * (len(winners) - 1), 2)
    rows = [{"seat": seat, "win": 100.0 if [seat] == winners else 0.0,
             "tie": ties.get(seat, 0.0), "hand": values[seat].name}
            for seat, _ in request.holes]
    return {"street": request.street, "method": "exact", "samples": 1, "error": None,
            "dead": 0, "seats": rows}
