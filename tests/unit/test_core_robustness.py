"""The service never crashes on input: random but well-formed frames, console presses and
commands, in any order, through the core of both games.

A dealer can do anything in any order, and so can a faulty device; whatever arrives, the core
must answer with events (alerts where the rules say so), never with an exception, and no
public alert may name a card.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from tablesvc.core import events as ev
from tests.helpers import ChipBox, Script, make_core, make_deck

CARD_RE = re.compile(r"\b[2-9TJQKA][shdc]\b")
BUTTONS = ["NEWHAND", "CHECK", "FOLD", "TIME", "MISDEAL", "EXPOSED", "FLOOR", "PLAYER_ABSENT",
           "BOXED_CARD", "REDRESS_IMPOSSIBLE", "DRAW", "CARDS_VIEWED", "REDEAL", "SHUFFLE_ERROR",
           "SEAT_DRAW", "DEALER_DRAW", "DECLARE", "KNOCK", "SHOWN", "ANNOUNCED", "AWARD",
           "OBJECTION", "BURN_FACE_UP", "NOSUCH"]
ZONES = [*(f"S{n}" for n in range(1, 11)), "BOARD", "BURN", "MUCK", "FLOOR"]


def random_inputs(rng: random.Random, deck: dict[str, str], box: ChipBox,
                  n: int, seats: list[int]) -> list[Any]:
    script = Script()
    uids = list(deck)
    seen: list[str] = []
    out: list[Any] = []
    for _ in range(n):
        pick = rng.random()
        if rng.random() < 0.01:  # now and then a deal begins cleanly: the hand is placed
            first = rng.randrange(len(seats))
            out.append(script.frame("console", "BTN", "NEWHAND"))
            for seat in seats[first:] + seats[:first + 1]:
                card = rng.choice(uids)
                seen.append(card)
                out += script.deal(card, f"S{seat}")
            continue
        uid = rng.choice(seen) if seen and rng.random() < 0.6 else rng.choice(uids)
        if rng.random() < 0.02:
            uid = f"{rng.getrandbits(64):016X}"  # a tag of no deck
        if pick < 0.25:
            seen.append(uid)
            out += script.deal(uid, rng.choice(ZONES[:13]), rng.choice("DDDU"))
        elif pick < 0.40:
            out.append(script.frame("cards", "ARR", rng.choice(ZONES), uid))
        elif pick < 0.47:
            out.append(script.frame("cards", "DEP", rng.choice(ZONES), uid))
        elif pick < 0.52:
            out.append(script.frame("shoe", "RET", uid, rng.choice("TB")))
        elif pick < 0.70:
            zone = rng.choice([*(f"B{n}" for n in range(1, 11)), "POT", "TRAY"])
            amount = rng.choice([0, 0, 25, 50, 100, 200, 600, 1000, 5000])
            out.append(script.frame("chips", "CHIPS", zone, box.uids(amount)))
        elif pick < 0.93:
            name = rng.choice(BUTTONS)
            args = [str(rng.randint(0, 11)) for _ in range(rng.randint(0, 2))]
            if name in ("EXPOSED", "BURN_FACE_UP", "BOXED_CARD"):
                args = [uid] + (["player"] if rng.random() < 0.2 else [])
            if name == "ANNOUNCED":
                args = [str(rng.randint(1, 10)), rng.choice(["pair", "two_pair", "flush", "x"])]
            out.append(script.frame("console", "BTN", name, *args))
        elif pick < 0.96:
            k = rng.randint(0, 53)
            out.append(script.frame("shoe", "DECK", " ".join(rng.sample(uids, min(k, 52)))))
        elif pick < 0.98:
            out.append(script.cmd("declare", ruling=rng.choice(
                ["misdeal", "dead_hand", "foul_hand", "suspend_rule", "restore_rule"]),
                seat=rng.randint(1, 10), rule=rng.choice(["SEAT-10", "DRAW-03"])))
        else:
            out.append(script.tick(rng.choice([100, 2000, 31_000])))
    return out


@pytest.mark.parametrize("variant", ["holdem", "draw5"])
@pytest.mark.parametrize("seed", range(8))
def test_random_well_formed_input_never_crashes_the_core_nor_names_a_card(
        variant: str, seed: int) -> None:
    rng = random.Random(seed)
    deck = make_deck()
    box = ChipBox()
    seats = sorted(rng.sample(range(1, 11), rng.randint(2, 8)))
    core = make_core({s: 5000 for s in seats},
                     deck=deck, variant=variant, ante=25 if variant == "draw5" else 0)
    core.chip_values = box.values
    events: list[ev.Event] = []
    for inp in random_inputs(rng, deck, box, 2500, seats):
        events += core.apply(inp).events  # must not raise
    alerts = [e for e in events if isinstance(e, ev.Alert)]
    assert alerts, "random play should break some rule"
    for a in alerts:
        assert not CARD_RE.search(a.message + " " + a.remedy), a.message
    assert any(isinstance(e, ev.HandStarted) for e in events)


def mutated(frames: list[tuple[str, bytes]], rng: random.Random,
            rate: float) -> list[tuple[str, str, tuple[str, ...]]]:
    """A real session's frames with dealer and device slips: frames dropped, repeated, swapped
    with their neighbour, and stray console presses - each with probability ``rate``."""
    from drivers.tsp import decode

    out: list[tuple[str, str, tuple[str, ...]]] = []
    for dev, raw in frames:
        f = decode(raw.decode().rstrip("\r\n"))
        item = (dev, f.type, tuple(f.fields))
        r = rng.random()
        if r < rate:
            continue
        out.append(item)
        if r < 2 * rate:
            out.append(item)
        elif r < 3 * rate and len(out) > 1:
            out[-1], out[-2] = out[-2], out[-1]
        elif r < 4 * rate:
            name = rng.choice(BUTTONS)
            out.append(("console", "BTN", (name, str(rng.randint(1, 10)))))
    return out


@pytest.mark.parametrize("variant", ["holdem", "draw5"])
@pytest.mark.parametrize("seed", range(6))
def test_a_real_session_with_random_slips_never_crashes_the_core(variant: str, seed: int) -> None:
    from simulators.virtual import recorded_table
    from tablesvc.core.cards import DeckRegistry

    seats = {1: 5000, 3: 5000, 4: 5000, 6: 5000, 8: 5000}
    table, frames = recorded_table(seats, seed=seed, variant=variant, aggression=0.3,
                                   all_in_share=0.05,
                                   ante=25 if variant == "draw5" else 0, button=1)
    played: list[object] = []
    table.run(hands=12, on_hand=played.append)
    core = make_core(seats, deck=table.deck, chips=table.chip_values, variant=variant,
                     ante=25 if variant == "draw5" else 0)
    core.decks = DeckRegistry({"SIM": table.deck})
    script = Script()
    rng = random.Random(seed)
    events: list[ev.Event] = []
    for dev, ftype, fields in mutated(frames, rng, 0.01):
        events += core.apply(script.frame(dev, ftype, *fields)).events  # must not raise
    # slips may merge or void hands, but the core keeps tracking hand after hand
    assert sum(isinstance(e, ev.HandEnded) for e in events) >= len(played) // 2
    for a in (e for e in events if isinstance(e, ev.Alert)):
        assert not CARD_RE.search(a.message + " " + a.remedy), a.message
