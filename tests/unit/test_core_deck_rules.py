"""Defective decks by the moment they are found (MISDEAL-09/10, DECK-05, DECK-06): the
remedy differs inside and after the misdeal window, and in draw."""

from __future__ import annotations

import pytest

from tablesvc.core import events as ev
from tablesvc.core.cards import DeckRegistry
from tablesvc.core.inputs import Input
from tablesvc.core.table import TableCore
from tests.helpers import ChipBox, Script, make_core, make_deck
from tests.unit.test_core_cardflow import clean_hand, run

JOKER = "0123456789ABCDEF"


def alerts(events: list[ev.Event]) -> list[tuple[str, str, str]]:
    return [(e.name, e.severity, e.rule) for e in events
            if isinstance(e, ev.Alert) and e.severity != "info"]


def newhand_with_blinds(core: TableCore, script: Script) -> list[Input]:
    """NEWHAND at button 1 of seats 1-3, and the blinds in seat 2's and seat 3's zones."""
    box = ChipBox()
    core.chip_values = box.values
    return [script.frame("console", "BTN", "NEWHAND"),
            script.frame("chips", "CHIPS", "B2", box.uids(50)),
            script.frame("chips", "CHIPS", "B3", box.uids(100))]


def after_preflop(core, script):  # type: ignore[no-untyped-def]
    deck = dict(make_deck())
    inputs, _ = clean_hand(script, deck, [2, 3, 1], core=core)  # button 1
    first_burn = next(i for i, inp in enumerate(inputs)
                      if getattr(inp, "frame", "").find("ARR,BURN") >= 0)
    run(core, inputs[:first_burn - 1])  # pre-flop played: the window is closed
    script.continue_after(inputs[:first_burn - 1])


@pytest.mark.rules("DECK-05")
def test_joker_after_the_window_cancels_the_hand_with_one_alert_and_no_misdeal() -> None:
    core = make_core(deck=make_deck())
    script = Script()
    after_preflop(core, script)
    events = run(core, script.deal(JOKER, "BURN"))
    assert alerts(events) == [("deck_defective_foreign_card", "critical", "DECK-05")]
    alert = next(e for e in events if isinstance(e, ev.Alert))
    assert "cancelled" in alert.remedy and "BURN" in alert.message
    ended = [e for e in events if isinstance(e, ev.HandEnded)]
    assert [e.reason for e in ended] == ["cancelled"]  # every bet goes back
    assert {i.seat: i.stack for i in ended[0].stacks} == {2: 10000, 3: 10000, 1: 10000}


@pytest.mark.rules("DECK-04", "MISDEAL-10")
def test_duplicate_face_inside_the_window_is_one_alert_at_its_seat_calling_for_a_misdeal(
        ) -> None:
    deck = make_deck()
    uids = list(deck)
    core = make_core(deck=deck)
    core.decks = DeckRegistry({"RED-0001": {**deck, "FEEDFACE00000001": deck[uids[0]]}})
    script = Script()
    events = run(core, [*newhand_with_blinds(core, script),
                        *script.deal(uids[0], "S2"), *script.deal("FEEDFACE00000001", "S3"),
                        *script.deal(uids[1], "S1")])
    got = [(e.name, e.severity, e.rule, e.seat) for e in events
           if isinstance(e, ev.Alert) and e.severity != "info"]
    assert got == [("deck_defective_duplicate", "critical", "MISDEAL-10", 3)]


@pytest.mark.rules("DECK-06")
def test_foreign_card_in_a_draw_game_is_one_alert_calling_for_a_redeal() -> None:
    core = make_core({1: 1000, 2: 1000, 3: 1000}, deck=make_deck(), variant="draw5")
    script = Script()
    events = run(core, [script.frame("console", "BTN", "NEWHAND"), *script.deal(JOKER, "S1")])
    got = [(e.name, e.severity, e.rule, e.seat) for e in events
           if isinstance(e, ev.Alert) and e.severity != "info"]
    assert got == [("deck_defective_foreign_card", "critical", "DECK-06", 1)]
    alert = next(e for e in events if isinstance(e, ev.Alert) and e.severity == "critical")
    assert "REDEAL" in alert.remedy
    ended = [e for e in run(core, [script.frame("console", "BTN", "REDEAL")])
             if isinstance(e, ev.HandEnded)]
    assert [e.reason for e in ended] == ["misdeal"]


def test_a_joker_no_antenna_reads_is_still_one_alert_without_a_seat() -> None:
    core = make_core(deck=make_deck(), deliver_ms=1000)
    script = Script()
    events = run(core, [*newhand_with_blinds(core, script),
                        script.frame("shoe", "DRAW", JOKER, "D"), script.tick(1500)])
    got = [(e.name, e.seat) for e in events if isinstance(e, ev.Alert) and e.severity != "info"]
    assert got == [("deck_defective_foreign_card", None)]


@pytest.mark.rules("DEAL-03", "BET-06")
def test_a_clean_deal_announces_deal_complete_and_each_round_complete() -> None:
    core = make_core(deck=make_deck())
    script = Script()
    inputs, _ = clean_hand(script, make_deck(), [2, 3, 1], core=core)
    events = run(core, inputs)
    info = [(e.name, e.rule) for e in events if isinstance(e, ev.Alert) and e.severity == "info"]
    assert ("deal_complete", "DEAL-03") in info
    rounds = [e.message for e in events if isinstance(e, ev.Alert) and e.name == "round_complete"]
    assert [m.split()[1] for m in rounds] == ["preflop", "flop", "turn", "river"]
    assert alerts(events) == []


@pytest.mark.rules("DEAL-03", "MISDEAL-05")
def test_betting_with_a_seat_short_of_a_card_is_a_count_error_and_a_misdeal() -> None:
    deck = make_deck()
    uids = list(deck)
    core = make_core(deck=deck)
    script = Script()
    inputs = [script.frame("console", "BTN", "NEWHAND")]
    for k, seat in enumerate([2, 3, 1, 2, 3]):  # seat 1 (the button) gets only one card
        inputs += script.deal(uids[k], f"S{seat}")
    inputs.append(script.frame("console", "BTN", "CHECK", "1"))  # betting begins
    events = run(core, inputs)
    got = alerts(events)
    assert ("hole_card_count_error", "warning", "DEAL-03") in got
    assert ("misdeal_required", "critical", "MISDEAL-05") in got


@pytest.mark.rules("POT-09")
def test_chips_taken_out_of_a_draw_pot_are_flagged() -> None:
    from tests.helpers import ChipBox

    box = ChipBox()
    core = make_core({1: 1000, 2: 1000, 3: 1000}, deck=make_deck(), chips=box.values,
                     variant="draw5", ante=10)
    script = Script()
    pot = box.uids(30)
    core.chip_values.update(box.values)
    events = run(core, [script.frame("console", "BTN", "NEWHAND"),
                        script.frame("chips", "CHIPS", "POT", pot),
                        script.frame("chips", "CHIPS", "POT", pot.split(" ")[0])])
    assert ("pot_chips_removed", "warning", "POT-09") in alerts(events)


def string_bet_inputs(script: Script, box, motions: list[tuple[int, int]],  # type: ignore[no-untyped-def]
                      declare: bool = False) -> list:  # type: ignore[type-arg]
    """Three-handed, button 1: blinds 2 and 3, seat 1 raises in the given motions."""
    deck = make_deck()
    uids = list(deck)
    inputs = [script.frame("console", "BTN", "NEWHAND"),
              script.frame("chips", "CHIPS", "B2", box.uids(50)),
              script.frame("chips", "CHIPS", "B3", box.uids(100))]
    for k, seat in enumerate([2, 3, 1, 2, 3, 1]):
        inputs += script.deal(uids[k], f"S{seat}")
    if declare:
        inputs.append(script.frame("console", "BTN", "DECLARE", "1"))
    chips: list[str] = []
    for gap, amount in motions:
        script.ms += gap
        chips += box.uids(amount).split(" ")
        inputs.append(script.frame("chips", "CHIPS", "B1", " ".join(chips)))
    inputs.append(script.frame("chips", "CHIPS", "B2", box.uids(50) + " " + box.uids(250)))
    return inputs


@pytest.mark.rules("BET-10")
def test_a_raise_in_two_motions_without_a_declaration_is_a_suspected_string_bet() -> None:
    from tests.helpers import ChipBox

    box = ChipBox()
    core = make_core(deck=make_deck())
    core.chip_values = box.values  # chips enrolled as they are handed out
    script = Script()
    events = run(core, string_bet_inputs(script, box, [(0, 100), (1500, 200)]))
    assert ("string_bet_suspected", "warning", "BET-10") in alerts(events)


def test_a_declared_raise_or_one_motion_is_no_string_bet() -> None:
    from tests.helpers import ChipBox

    for motions, declare in (([(0, 100), (1500, 200)], True), ([(0, 300)], False),
                             ([(0, 100), (100, 200)], False)):  # one motion read twice
        box = ChipBox()
        core = make_core(deck=make_deck())
        core.chip_values = box.values
        events = run(core, string_bet_inputs(Script(), box, motions, declare))
        assert not [a for a in alerts(events) if a[0] == "string_bet_suspected"], motions


def test_a_card_put_back_in_the_shoe_after_the_hand_is_not_reported_missing() -> None:
    core = make_core(deck=make_deck())
    script = Script()
    inputs, used = clean_hand(script, make_deck(), [2, 3, 1], core=core)
    run(core, inputs)
    back = used[-1]  # the river card goes back into the shoe
    events = run(core, [script.frame("chips", "CHIPS", "POT", ""),  # the pot is pushed
                        script.frame("cards", "DEP", "BOARD", back),
                        script.frame("shoe", "RET", back, "T")])
    for uid in used[:-1]:
        events += run(core, [script.frame("cards", "ARR", "MUCK", uid)])
    events += run(core, [script.frame("console", "BTN", "NEWHAND")])
    assert [e.reason for e in events if isinstance(e, ev.HandEnded)] == ["showdown"]
    assert alerts(events) == []
