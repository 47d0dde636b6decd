"""Synthetic but valid device traffic for the benchmarks: clean hold'em hands as frames.

Every hand is played as the sensors would see it: NEWHAND, the blinds' chips in their bet
zones, the deal, everyone calling the big blind and checking down, the bets gathered, the
board, the pot pushed — so the tracker raises no alert and every street is on time.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from drivers.tsp import Frame, encode
from tablesvc.core.cards import new_deck_order

BLIND = 100  # small and big blind alike: each seat's bet is one chip


def bench_deck(seed: int = 1) -> dict[str, str]:
    rng = random.Random(seed)
    return {f"{rng.getrandbits(64):016X}": card for card in new_deck_order()}


def bench_chips(players: int = 10) -> dict[str, int]:
    """One chip of the blind's value per seat: what each seat bets every hand."""
    return {chip_of(s): BLIND for s in range(1, players + 1)}


def chip_of(seat: int) -> str:
    return f"C{seat:015X}"


@dataclass
class Stream:
    """Frames of consecutive clean hands at a table with ``players`` seats 1..players."""

    deck: dict[str, str]
    players: int = 10
    seed: int = 2
    seqs: dict[str, int] = field(default_factory=dict)

    def line(self, dev: str, ftype: str, *fields: str) -> tuple[str, bytes]:
        seq = (self.seqs.get(dev, -1) + 1) % 65536
        self.seqs[dev] = seq
        return dev, encode(Frame(dev, seq, ftype, fields))

    def hands(self) -> Iterator[tuple[str, bytes, tuple[int, str] | None]]:
        """(device, bytes, key); key names the event a frame ends in: (hand, "index:n") for a
        card dealt to a seat or burnt, (hand, "board:<street>") for the card completing a street."""
        rng = random.Random(self.seed)
        uids = list(self.deck)
        seats = list(range(1, self.players + 1))
        button = seats[0]
        hand = 0
        while True:
            hand += 1
            rng.shuffle(uids)
            yield (*self.line("console", "BTN", "NEWHAND"), None)
            later = [s for s in seats if s > button]
            order = later + [s for s in seats if s <= button]  # s_1 (SB) .. button
            sb, bb = order[0], order[1]
            yield (*self.line("chips", "CHIPS", f"B{sb}", chip_of(sb)), None)
            yield (*self.line("chips", "CHIPS", f"B{bb}", chip_of(bb)), None)
            dests = [f"S{s}" for s in order] * 2
            streets = [("BURN", "BOARD", "BOARD", "BOARD"), ("BURN", "BOARD"), ("BURN", "BOARD")]
            names = ("flop", "turn", "river")
            cards = iter(uids)
            i = 0
            for dest in dests:
                i += 1
                uid = next(cards)
                yield (*self.line("shoe", "DRAW", uid, "D"), None)
                yield (*self.line("cards", "ARR", dest, uid), (hand, f"index:{i}"))
            for s in [*order[2:], sb]:  # everyone calls the big blind; the small blind checks
                if s == sb:
                    yield (*self.line("console", "BTN", "CHECK", str(s)), None)
                else:
                    yield (*self.line("chips", "CHIPS", f"B{s}", chip_of(s)), None)
            yield (*self.line("console", "BTN", "CHECK", str(bb)), None)
            for s in order:
                yield (*self.line("chips", "CHIPS", f"B{s}", ""), None)
            pot = " ".join(chip_of(s) for s in order)
            yield (*self.line("chips", "CHIPS", "POT", pot), None)
            for name, street in zip(names, streets, strict=True):
                for k, dest in enumerate(street):
                    i += 1
                    uid = next(cards)
                    yield (*self.line("shoe", "DRAW", uid, "D"), None)
                    key: tuple[int, str] | None = None
                    if dest == "BURN":
                        key = (hand, f"index:{i}")
                    elif k == len(street) - 1:  # the card that completes the street
                        key = (hand, f"board:{name}")
                    yield (*self.line("cards", "ARR", dest, uid), key)
                for s in order:
                    yield (*self.line("console", "BTN", "CHECK", str(s)), None)
            yield (*self.line("chips", "CHIPS", "POT", ""), None)
            yield (*self.line("shoe", "HB", str(hand)), None)
            for uid in uids[: 2 * len(order) + 8]:
                yield (*self.line("cards", "ARR", "MUCK", uid), None)
            button = order[0]


def with_idle_traffic(stream: Iterator[tuple[str, bytes, tuple[int, str] | None]],
                      stream_gen: Stream, per_frame: int = 8,
                      ) -> Iterator[tuple[str, bytes, tuple[int, str] | None]]:
    """The hand frames with the traffic an idle table adds between them.

    Every device beats once a second and the chip reader repeats its twelve zones at least
    every two seconds: a real table sends several such frames for each frame of play.
    """
    n = 0
    for item in stream:
        yield item
        for _ in range(per_frame):
            n += 1
            dev = ("shoe", "cards", "chips", "console")[n % 4]
            if dev == "chips" and n % 8 == 2:
                yield (*stream_gen.line("chips", "CHIPS", "TRAY", ""), None)
            else:
                yield (*stream_gen.line(dev, "HB", str(n)), None)
