"""The service's PHH writer: round trips, and files that pokerkit reads and replays."""

from __future__ import annotations

import ast
import datetime
import itertools
import random
import tomllib
import warnings
from pathlib import Path

import pytest
from pokerkit import Automation, HandHistory

from simulators.phh import phh_fields, script_from_record
from simulators.table import HandRecord
from simulators.virtual import recorded_table
from tablesvc.core.phh import PhhError, PhhHand, dumps, loads

ROOT = Path(__file__).resolve().parents[2]


def sample(**changes: object) -> PhhHand:
    base: dict[str, object] = {
        "variant": "NT",
        "antes": [25, 25, 25],
        "blinds_or_straddles": [50, 100, 0],
        "min_bet": 100,
        "starting_stacks": [5000, 3000, 7000],
        "actions": ["d dh p1 AsKs", "d dh p2 7c7d", "d dh p3 QhJh", "p3 cbr 300", "p1 f",
                    "p2 cc", "d db 2c7hKd", "p2 cc", "p3 cbr 400", "p2 cbr 2600", "p3 cc",
                    "d db 9s", "d db Ts", "p2 sm 7c7d", "p3 sm QhJh"],
        "players": ['Ann "the rock"', "Bé\\n", "Cy\u0007"],
        "seats": [2, 5, 9],
        "seat_count": 10,
        "hand": 57,
        "table": "t01",
        "venue": "demo",
    }  # fmt: skip
    base.update(changes)
    return PhhHand(**base)  # type: ignore[arg-type]


def test_dumps_then_loads_gives_the_same_hand() -> None:
    for hand in (
        sample(),
        sample(finishing_stacks=[4925, 3250, 4825]),
        sample(variant="FT", min_bet=100),
        sample(variant="FT", min_bet=100, small_bet=100, big_bet=200),
        sample(actions=[], extra={"_note": "x", "time": datetime.time(21, 0),
                                  "ante_trimming_status": False}),
    ):  # fmt: skip
        text = dumps(hand)
        tomllib.loads(text)  # plain TOML
        assert loads(text) == hand


def test_fixed_limit_is_written_with_small_and_big_bets() -> None:
    hand = sample(variant="FT", min_bet=100)
    assert (hand.small_bet, hand.big_bet) == (100, 200)
    doc = tomllib.loads(dumps(hand))
    assert (doc["small_bet"], doc["big_bet"]) == (100, 200) and "min_bet" not in doc
    assert sample().small_bet is None  # no-limit has a minimum bet only


def test_loads_reads_what_pokerkit_writes() -> None:
    players = ["Ann 'the rock'", 'Bo "B"', "Cé"]
    text = dumps(sample(finishing_stacks=[4925, 0, 10075], players=players))
    again = HandHistory.loads(text).dumps()  # pokerkit's own writer: other quoting, other order
    back = loads(again)
    assert back.actions == sample().actions and back.players == players
    assert back.finishing_stacks == [4925, 0, 10075] and back.hand == 57


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("variant = ", "not TOML"),
        ('variant = "NT"\nantes = [0, 0]', "missing"),
        ('variant = "NT"\nantes = [0, 0.5]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\n'
         "starting_stacks = [10, 10]\nactions = []", "whole number"),
        ('variant = "NT"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\n'
         'starting_stacks = [10, 10]\nactions = ["p1 f", 3]', "strings"),
    ],
)  # fmt: skip
def test_loads_refuses_what_is_not_a_hand(text: str, message: str) -> None:
    with pytest.raises(PhhError, match=message):
        loads(text)


def test_the_writer_depends_on_no_other_module_of_the_core_nor_on_pokerkit() -> None:
    """The PHH text is a format of its own: the core writes it, pokerkit checks it."""
    tree = ast.parse((ROOT / "tablesvc" / "core" / "phh.py").read_text())
    modules = {
        name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""])
    }  # fmt: skip
    assert not {m for m in modules if m.startswith(("tablesvc", "pokerkit", "simulators"))}


# pokerkit replays what the writer wrote ------------------------------------------------------


def as_service_would_write(record: HandRecord) -> PhhHand:
    """A PhhHand built from what happened (here the simulator's record stands in)."""
    f = phh_fields(script_from_record(record))
    return PhhHand(
        variant=f["variant"],
        antes=f["antes"],
        blinds_or_straddles=f["blinds_or_straddles"],
        min_bet=record.big_blind,
        starting_stacks=f["starting_stacks"],
        actions=f["actions"],
        players=[f"P{s}" for s in record.seats],
        seats=list(record.seats),
        seat_count=10,
        hand=record.number,
        table="t01",
        venue="demo",
        finishing_stacks=[record.stacks_after[s] for s in record.seats],
    )


def pokerkit_final_stacks(text: str, unit: int) -> list[int]:
    def divide(amount: int, winners: int) -> tuple[int, int]:
        share = amount // unit // winners * unit
        return share, amount - share * winners

    hh = HandHistory.loads(
        text,
        divmod=divide,
        automations=(*HandHistory.automations, Automation.HOLE_CARDS_SHOWING_OR_MUCKING),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        *_, final = iter(hh)
    assert not final.status
    return list(final.stacks)


def pots_split_alike(record: HandRecord) -> bool:
    """No two neighbouring pots shared by the same winners (pokerkit would split them as one,
    which can move an odd chip; see test_sim_pokerkit)."""
    winners = [tuple(p.shares) for p in record.pots]
    return all(a != b or len(a) == 1 for a, b in itertools.pairwise(winners))


def test_a_written_hand_loads_in_pokerkit_and_replays_to_the_finishing_stacks() -> None:
    rng = random.Random(8)
    checked = 0
    for i in range(60):
        seats = {s: rng.choice([400, 2000, 10_000]) for s in rng.sample(range(1, 11), 2 + i % 9)}
        table, _ = recorded_table(seats, seed=i, aggression=0.4, ante=25 * (i % 2),
                                  limit="fixed-limit" if i % 5 == 0 else "no-limit")  # fmt: skip
        record = table.play_hand()
        if not pots_split_alike(record):
            continue
        hand = as_service_would_write(record)
        text = dumps(hand)
        assert loads(text) == hand
        assert pokerkit_final_stacks(text, record.unit) == hand.finishing_stacks, text
        checked += 1
    assert checked >= 50
