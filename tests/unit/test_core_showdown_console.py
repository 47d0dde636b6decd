"""The dealer's showdown inputs checked against the hands (SHOW-03..08, POT-05/06), and the
floor's other rulings (EXPOSE-05, BET-18, DRAW-10)."""

from __future__ import annotations

from typing import Any

import pytest

from tablesvc.core import events as ev
from tablesvc.core.showdown import CATEGORIES
from tests.helpers import ChipBox, Script, make_core, make_deck
from tests.unit.test_core_cardflow import clean_hand, run


def alerts(events: list[ev.Event], info: bool = False) -> list[tuple[str, str, int | None]]:
    return [(e.name, e.rule, e.seat) for e in events if isinstance(e, ev.Alert)
            and (info or e.severity != "info")]


def checked_down(seed: int = 7) -> tuple[Any, Script, list[ev.Event]]:
    core = make_core(deck=make_deck(seed=seed))
    script = Script()
    inputs, _ = clean_hand(script, make_deck(seed=seed), [2, 3, 1], core=core)
    return core, script, run(core, inputs)


def result(events: list[ev.Event]) -> tuple[set[int], dict[int, ev.Showdown]]:
    winners = {s for e in events if isinstance(e, ev.PotAwarded) for s in e.seats}
    shows = {e.seat: e for e in events if isinstance(e, ev.Showdown)}
    return winners, shows


def btn(core: Any, script: Script, *args: str) -> list[ev.Event]:
    return run(core, [script.frame("console", "BTN", *args)])


@pytest.mark.rules("POT-05")
def test_awarding_the_pot_to_a_loser_is_stopped_before_the_push() -> None:
    core, script, events = checked_down()
    winners, _ = result(events)
    loser = next(s for s in (1, 2, 3) if s not in winners)
    got = alerts(btn(core, script, "AWARD", str(loser)))
    assert ("pot_award_mismatch", "POT-05", loser) in got


@pytest.mark.rules("SHOW-05")
def test_awarding_an_unshown_winner_asks_for_the_hand_to_be_shown() -> None:
    core, script, events = checked_down()
    winner = min(result(events)[0])
    got = alerts(btn(core, script, "AWARD", str(winner)))
    assert got == [("winner_not_shown", "SHOW-05", winner)]


@pytest.mark.rules("POT-06")
def test_a_shown_winner_awarded_correctly_raises_nothing_and_late_objections_are_noted() -> None:
    core, script, events = checked_down()
    winners = result(events)[0]
    for w in winners:
        btn(core, script, "SHOWN", str(w))
    got = []
    for w in winners:
        got += btn(core, script, "AWARD", str(w))
    assert alerts(got) == []
    late = alerts(btn(core, script, "OBJECTION", "2"), info=True)
    assert late == [("late_objection", "POT-06", 2)]


@pytest.mark.rules("SHOW-03")
def test_at_a_qualification_table_a_winner_who_shows_one_card_must_show_both() -> None:
    for qualification, expected in ((False, []), (True, ["SHOW-03"])):
        core = make_core(deck=make_deck(), qualification_table=qualification)
        script = Script()
        inputs, _ = clean_hand(script, make_deck(), [2, 3, 1], core=core)
        winner = min(result(run(core, inputs))[0])
        btn(core, script, "SHOWN", str(winner), "1")
        got = alerts(btn(core, script, "AWARD", str(winner)))
        assert got == [("both_cards_required", rule, winner) for rule in expected]


@pytest.mark.rules("SHOW-07", "SHOW-06")
def test_an_overstated_announcement_is_misannounced_and_an_understated_one_a_mismatch() -> None:
    core, script, _ = checked_down()
    shown = core.session.ledger.settled.showdown[0]
    seat, category = shown.seat, shown.value.category
    assert category != "straight flush"  # this deck's hands leave room above
    higher = CATEGORIES[CATEGORIES.index(category) + 1]
    got = alerts(btn(core, script, "ANNOUNCED", str(seat), higher.replace(" ", "_")))
    assert got == [("misannounced_hand", "SHOW-07", seat)]
    if category != "high card":
        lower = CATEGORIES[CATEGORIES.index(category) - 1]
        got = alerts(btn(core, script, "ANNOUNCED", str(seat), lower.replace(" ", "_")))
        assert got == [("hand_announcement_mismatch", "SHOW-06", seat)]
    assert alerts(btn(core, script, "ANNOUNCED", str(seat), category.replace(" ", "_"))) == []


@pytest.mark.rules("SHOW-08")
def test_a_tabled_and_announced_hand_thrown_in_the_muck_stays_in_contention() -> None:
    core, script, _ = checked_down()
    shown = core.session.ledger.settled.showdown[0]
    btn(core, script, "ANNOUNCED", str(shown.seat), shown.value.category.replace(" ", "_"))
    uid = next(u for u, r in core.session.tracker.cards.items() if r.zone == f"S{shown.seat}")
    events = run(core, [script.frame("cards", "DEP", f"S{shown.seat}", uid),
                        script.frame("cards", "ARR", "MUCK", uid)])
    assert alerts(events, info=True) == [("tabled_hand_mucked", "SHOW-08", shown.seat)]


@pytest.mark.rules("BET-18")
def test_leaving_the_table_after_betting_with_a_live_hand_is_flagged() -> None:
    core = make_core(deck=make_deck())
    script = Script()
    inputs, _ = clean_hand(script, make_deck(), [2, 3, 1], core=core)
    first_burn = next(i for i, inp in enumerate(inputs)
                      if getattr(inp, "frame", "").find("ARR,BURN") >= 0)
    run(core, inputs[:first_burn - 1])  # pre-flop: everyone called
    script.continue_after(inputs[:first_burn - 1])
    got = alerts(btn(core, script, "PLAYER_ABSENT", "3"))
    assert ("player_left_with_live_hand", "BET-18", 3) in got


@pytest.mark.rules("EXPOSE-05")
def test_a_self_exposed_card_is_kept_without_replacement() -> None:
    deck = make_deck()
    uid = next(iter(deck))
    core = make_core(deck=deck)
    script = Script()
    run(core, [script.frame("console", "BTN", "NEWHAND"), *script.deal(uid, "S2")])
    got = alerts(btn(core, script, "EXPOSED", uid, "player"), info=True)
    assert got == [("player_exposed_own_card", "EXPOSE-05", 2)]


@pytest.mark.rules("DRAW-10")
def test_a_suspended_rule_reports_as_info_until_restored() -> None:
    core = make_core({1: 1000, 2: 1000}, deck=make_deck(), variant="draw5")
    script = Script()
    reply = core.apply(script.cmd("declare", ruling="suspend_rule", rule="SEAT-10",
                                  reason="heads-up agreed by both players"))
    assert reply.replies[0].ok
    assert alerts(reply.events, info=True) == [("rule_suspended", "DRAW-10", None)]
    events = btn(core, script, "NEWHAND")
    counted = [e for e in events if isinstance(e, ev.Alert)
               and e.name == "player_count_out_of_range"]
    assert counted[0].severity == "info" and "suspended" in counted[0].message
    restored = core.apply(script.cmd("declare", ruling="restore_rule", rule="SEAT-10"))
    assert alerts(restored.events, info=True) == [("rule_restored", "DRAW-10", None)]
    refused = core.apply(script.cmd("declare", ruling="restore_rule", rule="SEAT-10"))
    assert not refused.replies[0].ok and "not suspended" in (refused.replies[0].error or "")


def dealt_three_handed() -> tuple[Any, Script, ChipBox, list[Any]]:
    """Button 1, blinds in zones 2 and 3, two cards each: the inputs, not yet applied."""
    deck = make_deck()
    uids = list(deck)
    core = make_core(deck=deck)
    box = ChipBox()
    core.chip_values = box.values  # chips enrolled as they are handed out
    script = Script()
    inputs = [script.frame("console", "BTN", "NEWHAND"),
              script.frame("chips", "CHIPS", "B2", box.uids(50)),
              script.frame("chips", "CHIPS", "B3", box.uids(100))]
    for k, seat in enumerate([2, 3, 1, 2, 3, 1]):
        inputs += script.deal(uids[k], f"S{seat}")
    return core, script, box, inputs


@pytest.mark.rules("BOARD-04")
def test_knocking_while_a_seat_is_short_of_the_bet_flags_the_open_issue() -> None:
    core, script, box, inputs = dealt_three_handed()
    inputs.append(script.frame("chips", "CHIPS", "B1", box.uids(100)))  # seat 1 calls
    run(core, inputs)
    got = alerts(btn(core, script, "KNOCK"))  # seat 2 (small blind) has not completed
    assert got == [("round_closed_with_open_issue", "BOARD-04", None)]
    run(core, [script.frame("chips", "CHIPS", "B2", box.uids(100))])  # he completes
    run(core, [script.frame("console", "BTN", "CHECK", "3")])
    assert alerts(btn(core, script, "KNOCK")) == []


def test_knocking_after_a_settled_round_is_quiet() -> None:
    core, script, _ = checked_down()
    assert alerts(btn(core, script, "KNOCK")) == []


def test_an_uncalled_bet_given_back_before_the_pot_is_pushed_is_no_missing_chips() -> None:
    core, script, box, inputs = dealt_three_handed()
    inputs += [script.frame("chips", "CHIPS", "B1", box.uids(600)),  # seat 1 raises
               script.frame("console", "BTN", "FOLD", "2"),
               script.frame("console", "BTN", "FOLD", "3"),
               script.frame("chips", "CHIPS", "B1", box.uids(100)),  # the uncalled 500 back
               script.frame("chips", "CHIPS", "B1", ""),
               script.frame("chips", "CHIPS", "B2", ""),
               script.frame("chips", "CHIPS", "B3", ""),
               script.frame("chips", "CHIPS", "POT", box.uids(250))]
    events = run(core, inputs)
    assert alerts(events) == []
    assert next(e.seats for e in events if isinstance(e, ev.PotAwarded)) == [1]
