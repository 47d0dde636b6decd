"""Deck and chip registries written by the simulators (DESIGN §5)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from simulators.decks import (
    is_uid,
    load_chips,
    load_decks,
    make_chipset,
    make_deck,
    new_deck_order,
    write_chips,
    write_deck,
)


def test_new_deck_order_is_spades_and_diamonds_up_then_clubs_and_hearts_down() -> None:
    order = new_deck_order()
    assert len(order) == 52 == len(set(order))
    assert order[:3] == ["As", "2s", "3s"] and order[12] == "Ks"
    assert order[13] == "Ad" and order[25] == "Kd"
    assert order[26] == "Kc" and order[38] == "Ac"
    assert order[39] == "Kh" and order[51] == "Ah"


def test_make_deck_has_52_distinct_uids_and_cards_in_new_deck_order() -> None:
    deck = make_deck("RED-0001", random.Random(5))
    assert len(deck) == 52
    assert all(is_uid(u) for u in deck)
    assert list(deck.values()) == new_deck_order()


def test_same_seed_gives_same_tags() -> None:
    assert make_deck("A", random.Random(9)) == make_deck("A", random.Random(9))
    assert make_chipset(random.Random(9)) == make_chipset(random.Random(9))


def test_deck_file_round_trips_and_has_the_registry_shape(tmp_path: Path) -> None:
    deck = make_deck("RED-0001", random.Random(1))
    path = write_deck(tmp_path, "RED-0001", deck)
    assert path == tmp_path / "RED-0001.json"
    doc = json.loads(path.read_text())
    assert doc == {"deck_id": "RED-0001", "cards": deck}
    assert load_decks(tmp_path) == {"RED-0001": deck}


def test_write_deck_refuses_a_deck_with_a_repeated_card(tmp_path: Path) -> None:
    deck = make_deck("X", random.Random(1))
    first = next(iter(deck))
    deck[first] = "Kh"
    with pytest.raises(ValueError, match="twice"):
        write_deck(tmp_path, "X", deck)
    assert not list(tmp_path.iterdir())


def test_load_decks_refuses_a_uid_enrolled_in_two_decks(tmp_path: Path) -> None:
    a = make_deck("A", random.Random(1))
    write_deck(tmp_path, "A", a)
    (tmp_path / "B.json").write_text(json.dumps({"deck_id": "B", "cards": a}))
    with pytest.raises(ValueError, match="also in deck"):
        load_decks(tmp_path)


def test_default_chipset_holds_the_requested_denominations(tmp_path: Path) -> None:
    chips = make_chipset(random.Random(2))
    counts: dict[int, int] = {}
    for value in chips.values():
        counts[value] = counts.get(value, 0) + 1
    assert counts == {25: 40, 100: 60, 500: 40, 1000: 40, 5000: 20}
    assert all(is_uid(u) for u in chips)
    path = write_chips(tmp_path / "chips.json", chips)
    assert json.loads(path.read_text()) == {"chips": chips}
    assert load_chips(path) == chips


def test_card_and_chip_uids_never_collide() -> None:
    rng = random.Random(3)
    cards = set(make_deck("A", rng)) | set(make_deck("B", rng))
    chips = set(make_chipset(rng))
    assert not cards & chips
