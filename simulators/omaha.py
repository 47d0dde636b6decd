"""Pot-limit Omaha as a careful dealer deals it, on the shared dealer (``simulators.dealer``).

The hand is hold'em's (``simulators.holdem``), card for card and chip for chip, but for two
things. The deal is four rounds of one card to each seat, from the first seat left of the
button (hold'em deals two): card #k goes to seat s_((k-1) mod N)+1 for k = 1..4N. At the
showdown a hand is exactly two of its four hole cards with exactly three of the board
(``simulators.handeval.best_omaha``), never the board alone and never one or three hole cards.

Burns and board, blinds and antes, the gathering, the push and the collection are hold'em's.
The betting is pot-limit (the table refuses any other structure for Omaha): a bet or raise
goes at most to the pot after the call (``simulators.betting.BettingRound.raise_range``), the
minimum raise is no-limit's, and random players who bet "the pot" bet exactly that limit.
"""

from __future__ import annotations

from simulators.dealer import Dealer, HandSettings
from simulators.handeval import best_omaha
from simulators.holdem import FlopGame, play_flop_game
from simulators.records import HandRecord
from simulators.script import HOLE_CARDS, HandScript

__all__ = ["OMAHA", "play_omaha"]

OMAHA = FlopGame("omaha", HOLE_CARDS["omaha"], best_omaha)


def play_omaha(
    dealer: Dealer, settings: HandSettings, number: int, script: HandScript | None = None
) -> HandRecord:
    """Deal hand ``number`` of pot-limit Omaha at the dealer's button, as ``script`` says if
    given (players left without script actions decide at random)."""
    return play_flop_game(OMAHA, dealer, settings, number, script)
