"""Time to settle a 10-way all-in with side pots: evaluate, build pots, award, odd chips."""

from __future__ import annotations

import random
import time

from tablesvc.core.betting import Decision
from tablesvc.core.cards import new_deck_order
from tablesvc.core.ledger import Ledger
from tablesvc.core.showdown import evaluate


def _all_in_hand(rng: random.Random) -> tuple[Ledger, dict[int, list[str]], list[str]]:
    seats = tuple(range(1, 11))
    stacks = {s: 1000 * s + rng.randrange(0, 1000, 25) for s in seats}  # all different
    ledger = Ledger(order=seats, button=10, stacks=stacks, small_blind=50, big_blind=100,
                    unit=25)
    ledger.post_forced()
    assert ledger.round is not None
    for seat in ledger.round.order:
        to = ledger.round.contributed.get(seat, 0) + ledger.round.stacks[seat]
        d: Decision = ledger.round.classify(seat, to)
        ledger._decide(d)
    cards = new_deck_order()
    rng.shuffle(cards)
    holes = {s: cards[2 * i:2 * i + 2] for i, s in enumerate(seats)}
    return ledger, holes, cards[20:25]


def run(repeat: int = 2000) -> None:
    rng = random.Random(1)
    hands = [_all_in_hand(rng) for _ in range(repeat)]
    t = time.perf_counter()
    pots = 0
    for ledger, holes, board in hands:
        pots += len(ledger.showdown(holes, board).awards)
    dt = (time.perf_counter() - t) / repeat
    print(f"settle a 10-way all-in (10 evaluations, {pots / repeat:.1f} pots on average): "
          f"{dt * 1e6:,.0f} µs per hand")
    sevens = [[*holes[1], *board] for _, holes, board in hands]
    t = time.perf_counter()
    n = 0
    for cards in sevens:
        evaluate(cards)
        n += 1
    dt = time.perf_counter() - t
    print(f"evaluate() best five of seven, with the hand's name: {n / dt:,.0f} hands/s")
