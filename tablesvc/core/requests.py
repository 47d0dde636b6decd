"""Work the core asks for but does not do: it would take too long inside ``apply``.

The core decides *when* something is due and *what* exactly to compute, and puts a request on
its ``Output.work``; the pipeline computes it on a worker thread and hands the result back as
an input, which is journalled like any other. So the events stay a function of the journal
(a replay re-applies the journalled results and computes nothing), and the pipeline thread
never waits for a computation.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class EquityRequest:
    """Win probabilities of one hand state (``tablesvc.core.equity`` makes these).

    ``hand`` and ``version`` are the key of the state: the version changes whenever a card or
    a fold changes what the figures would be, and a result is used only while its key is
    still the current one. Holds hole cards: never log it.
    """

    hand: int
    version: int
    variant: str  # the game's name in the registry of games: "holdem", "omaha", "draw5", ...
    street: str  # preflop, flop, turn, river; draw5: predraw, postdraw
    holes: tuple[tuple[int, tuple[str, ...]], ...]  # (seat, cards) of the live seats, in order
    board: tuple[str, ...] = ()
    dead: tuple[str, ...] = ()  # cards known to be out of play

    @property
    def key(self) -> tuple[int, int]:
        return (self.hand, self.version)

    def __repr__(self) -> str:  # hole cards stay out of any log line or traceback
        return (f"EquityRequest(hand={self.hand}, version={self.version}, "
                f"street={self.street!r}, seats={[s for s, _ in self.holes]})")
