"""The simulator's betting rules: bets and raises by structure (RULES.md BET-11..14, BET-19),
antes as dead money, the in-memory recorder, and scripts that the rules refuse."""

from __future__ import annotations

import re

import pytest

from drivers.tsp import decode
from simulators.betting import Action, BettingRound, Limit, Pot, build_pots
from simulators.phh import loads_phh
from simulators.script import HandScript, ScriptAction, ScriptError, hole_deal
from simulators.virtual import recorded_table


def preflop(
    stacks: dict[int, int], order: list[int], sb: int, bb: int, **kw: object
) -> BettingRound:
    """Seats ``order`` (first to act first); ``sb``/``bb`` seats have posted 50/100."""
    return BettingRound(
        order=order, stacks={s: st - (50 if s == sb else 100 if s == bb else 0)
                             for s, st in stacks.items()},
        bets={sb: 50, bb: 100}, high=100, min_raise=100, **kw,  # type: ignore[arg-type]
    )  # fmt: skip


# no-limit ------------------------------------------------------------------------------------


def test_minimum_raise_is_the_last_full_raise_and_at_least_the_big_blind() -> None:
    rnd = preflop(dict.fromkeys((1, 2, 3, 4), 10_000), [3, 4, 1, 2], sb=1, bb=2)
    assert rnd.legal(3) == (Action.CALL, Action.RAISE, Action.FOLD)
    assert rnd.raise_range(3) == (200, 10_000)
    with pytest.raises(ValueError, match=re.escape("200..10000")):
        rnd.act(3, Action.RAISE, 150)
    assert rnd.act(3, Action.RAISE, 350) == 350  # a raise of 250
    assert rnd.raise_range(4) == (600, 10_000)
    rnd.act(4, Action.RAISE, 600)  # exactly the minimum re-raise
    assert rnd.raise_range(1) == (850, 10_000)


def test_postflop_first_bet_is_a_bet_of_at_least_the_big_blind() -> None:
    rnd = BettingRound(order=[1, 2], stacks={1: 5000, 2: 5000}, min_raise=100)
    assert rnd.legal(1) == (Action.CHECK, Action.BET, Action.FOLD)
    assert rnd.raise_range(1) == (100, 5000)
    rnd.act(1, Action.BET, 100)
    assert rnd.legal(2) == (Action.CALL, Action.RAISE, Action.FOLD)


def test_no_raising_ones_own_bet_when_nobody_raised_since() -> None:
    rnd = BettingRound(order=[1, 2, 3], stacks=dict.fromkeys((1, 2, 3), 5000), min_raise=100)
    rnd.act(1, Action.BET, 300)
    rnd.act(2, Action.CALL)
    rnd.act(3, Action.RAISE, 900)
    assert rnd.next_actor() == 1 and rnd.can_raise(1)  # seat 3 raised since seat 1 bet
    rnd.act(1, Action.CALL)
    rnd.act(2, Action.CALL)
    assert rnd.next_actor() is None  # back to the raiser: the round is over


def test_short_all_in_does_not_reopen_the_betting_for_players_who_acted() -> None:
    # seat 1 bets 1000, seat 2 calls, seat 3 goes all-in for 1400 (a raise of 400 < 1000)
    rnd = BettingRound(order=[1, 2, 3, 4], stacks={1: 9000, 2: 9000, 3: 1400, 4: 9000},
                       min_raise=100)  # fmt: skip
    rnd.act(1, Action.BET, 1000)
    rnd.act(2, Action.CALL)
    assert rnd.raise_range(3) == (1400, 1400)  # all-in short of the minimum
    rnd.act(3, Action.RAISE, 1400)
    assert rnd.min_raise == 1000 and rnd.high == 1400
    # seat 4 has not acted: it may raise, to at least 1400 + 1000
    assert rnd.raise_range(4) == (2400, 9000)
    rnd.act(4, Action.CALL)
    # seats 1 and 2 acted before the short all-in: call or fold only (BET-14)
    assert rnd.legal(1) == (Action.CALL, Action.FOLD)
    rnd.act(1, Action.CALL)
    assert rnd.legal(2) == (Action.CALL, Action.FOLD)


def test_short_all_ins_that_add_up_to_a_full_raise_reopen_the_betting() -> None:
    rnd = BettingRound(order=[1, 2, 3, 4], stacks={1: 9000, 2: 1600, 3: 2100, 4: 9000},
                       min_raise=100)  # fmt: skip
    rnd.act(1, Action.BET, 1000)
    rnd.act(2, Action.RAISE, 1600)  # +600, short
    rnd.act(3, Action.RAISE, 2100)  # +500, short; 1100 since seat 1 acted
    rnd.act(4, Action.CALL)
    assert Action.RAISE in rnd.legal(1)


def test_nobody_raises_when_every_other_player_is_all_in() -> None:
    rnd = BettingRound(order=[1, 2], stacks={1: 300, 2: 5000}, min_raise=100)
    rnd.act(1, Action.BET, 300)
    assert rnd.legal(2) == (Action.CALL, Action.FOLD)


def test_a_call_that_takes_the_whole_stack_is_a_call_not_a_raise() -> None:
    rnd = BettingRound(order=[1, 2], stacks={1: 5000, 2: 400}, min_raise=100)
    rnd.act(1, Action.BET, 500)
    assert rnd.legal(2) == (Action.CALL, Action.FOLD)
    assert rnd.act(2, Action.CALL) == 400


# pot-limit and fixed-limit -------------------------------------------------------------------


def test_pot_limit_maximum_is_the_pot_after_the_call() -> None:
    rnd = preflop(dict.fromkeys((1, 2, 3), 10_000), [3, 1, 2], sb=1, bb=2, limit=Limit.POT_LIMIT)
    # 100 to call, the pot then 150 + 100 = 250: raise to 100 + 250 = 350
    assert rnd.raise_range(3) == (200, 350)
    rnd.act(3, Action.RAISE, 350)
    # seat 1: 300 to call, the pot then 500 + 300 = 800: raise to 350 + 800
    assert rnd.raise_range(1) == (600, 1150)


def test_pot_limit_counts_the_antes_and_earlier_rounds() -> None:
    rnd = BettingRound(order=[1, 2], stacks={1: 9000, 2: 9000}, min_raise=100, pot=700,
                       limit=Limit.POT_LIMIT)  # fmt: skip
    assert rnd.raise_range(1) == (100, 700)


def test_fixed_limit_raises_by_the_fixed_bet_and_caps_at_four_bets() -> None:
    stacks = dict.fromkeys((1, 2, 3), 10_000)
    rnd = preflop(stacks, [3, 1, 2], sb=1, bb=2, limit=Limit.FIXED_LIMIT, raises=1)
    assert rnd.raise_range(3) == (200, 200)
    rnd.act(3, Action.RAISE, 200)
    rnd.act(1, Action.RAISE, 300)
    rnd.act(2, Action.RAISE, 400)  # the fourth bet: the big blind was the first
    assert rnd.legal(3) == (Action.CALL, Action.FOLD)


def test_fixed_limit_turn_bets_are_big_bets() -> None:
    rnd = BettingRound(order=[1, 2], stacks={1: 9000, 2: 9000}, min_raise=200,
                       limit=Limit.FIXED_LIMIT)  # fmt: skip
    assert rnd.raise_range(1) == (200, 200)


# antes ---------------------------------------------------------------------------------------


def test_antes_are_dead_money_at_the_bottom_of_the_main_pot() -> None:
    # the big blind paid a 100 ante for everybody; seat 3 is all-in for 40 of blinds
    pots = build_pots({1: 200, 2: 200, 3: 40}, live={1, 2, 3}, dead=100)
    assert pots == [Pot(100 + 120, frozenset({1, 2, 3})), Pot(320, frozenset({1, 2}))]


def test_a_player_all_in_with_the_ante_still_plays_for_the_antes() -> None:
    pots = build_pots({1: 100, 2: 100, 3: 0}, live={1, 2, 3}, dead=75)
    assert pots == [Pot(75, frozenset({1, 2, 3})), Pot(200, frozenset({1, 2}))]


def test_antes_go_into_the_pot_in_one_inventory_before_the_blinds() -> None:
    table, frames = recorded_table({1: 5000, 2: 5000, 3: 5000}, seed=5, ante=25, button=3,
                                   fold_probability=1.0)  # fmt: skip
    mark = len(frames)
    record = table.play_hand()
    decoded = [decode(raw.decode().rstrip("\r\n")) for _, raw in frames[mark:]]
    chips = [f for f in decoded if f.type == "CHIPS"]
    values = table.chip_values
    first = [(f.fields[0], sum(values[u] for u in f.fields[1].split())) for f in chips[:3]]
    assert first == [("POT", 75), ("B1", 50), ("B2", 100)]
    assert record.antes == {1: 25, 2: 25, 3: 25}
    assert record.winners == {2: 175} and record.returned == {2: 50}  # the uncalled 50 back
    assert record.stacks_after == {1: 4925, 2: 5100, 3: 4975}


def test_big_blind_ante_is_paid_once_by_the_big_blind() -> None:
    table, _ = recorded_table({1: 5000, 2: 5000, 3: 5000}, seed=5, ante=100,
                              ante_mode="big_blind", button=3, fold_probability=1.0)  # fmt: skip
    record = table.play_hand()
    assert record.antes == {2: 100}
    assert [a.action for a in record.actions[:3]] == [
        "post_ante", "post_small_blind", "post_big_blind",
    ]  # fmt: skip
    assert record.winners == {2: 200} and record.returned == {2: 50}  # the uncalled 50 back
    assert record.stacks_after == {1: 4950, 2: 5050, 3: 5000}


# the recorder --------------------------------------------------------------------------------


def test_recorder_keeps_every_frame_of_every_device_in_true_order() -> None:
    table, frames = recorded_table({1: 5000, 2: 5000}, seed=2)
    assert [dev for dev, _ in frames] == ["shoe", "cards", "chips", "console"]
    assert all(decode(raw.decode().rstrip("\r\n")).type == "HELLO" for _, raw in frames)
    table.play_hand()
    names = [dev for dev, _ in frames[4:]]
    assert names[0] == "console"  # NEWHAND
    # a card leaves the shoe, then the antennas read it where it lands
    for i, (dev, raw) in enumerate(frames):
        if dev == "shoe" and b",DRAW," in raw:
            assert frames[i + 1][0] == "cards" and b",ARR," in frames[i + 1][1]
    seqs: dict[str, int] = {}
    for dev, raw in frames:
        frame = decode(raw.decode().rstrip("\r\n"))
        assert frame.seq == seqs.get(dev, -1) + 1
        seqs[dev] = frame.seq


def test_invalid_table_settings_are_refused_with_every_problem() -> None:
    with pytest.raises(ValueError) as err:
        recorded_table({1: 5000, 2: 5000}, ante=30, ante_mode="button", limit="spread",
                       aggression=2.0)  # fmt: skip
    message = str(err.value)
    for part in ("ante 30", "ante_mode", "limit", "aggression"):
        assert part in message


# scripts the rules refuse --------------------------------------------------------------------


def _script(*actions: ScriptAction, limit: Limit = Limit.NO_LIMIT) -> HandScript:
    return HandScript(
        limit=limit, small_blind=50, big_blind=100, ante=0, ante_mode="each",
        seats=(1, 2, 3), starting_stacks=(5000, 5000, 5000),
        actions=(hole_deal(1, ("As", "Ks")), *actions),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        ((ScriptAction(1, "cc"),), "seat 3's turn"),  # p3 (the button) acts first
        ((ScriptAction(3, "cbr", amount=150),), re.escape("200..5000")),  # below the minimum raise
        ((ScriptAction(3, "cc"), ScriptAction(1, "cc"), ScriptAction(0, "db", ("2c", "3c", "4c"))),
         "still to act"),  # the big blind has its option
        ((ScriptAction(3, "f"), ScriptAction(1, "f"), ScriptAction(2, "cc")), "goes on"),
    ],
)  # fmt: skip
def test_a_script_out_of_order_or_against_the_rules_is_refused_before_any_frame(
    actions: tuple[ScriptAction, ...], message: str
) -> None:
    table, frames = recorded_table({1: 5000, 2: 5000, 3: 5000}, seed=3)
    mark = len(frames)
    with pytest.raises(ScriptError, match=message):
        table.play_script(_script(*actions))
    assert len(frames) == mark
    assert table.hands_played == 0


def test_script_shape_problems_are_listed() -> None:
    with pytest.raises(ScriptError) as err:
        HandScript(limit=Limit.NO_LIMIT, small_blind=50, big_blind=100, ante=0,
                   ante_mode="each", seats=(3, 1), starting_stacks=(100, 0, 5),
                   actions=(hole_deal(1, ("As", "As")),))  # fmt: skip
    message = str(err.value)
    assert "starting stacks" in message and "positive" in message and "twice" in message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('variant = "FO/8"', "variant"),  # Omaha hi-lo: the table deals PO only
        ("blinds_or_straddles = [50, 100, 200]", "straddles"),
        ("antes = [0, 0, 25]", "big-blind ante"),
        ("min_bet = 50", "min_bet"),
        ('actions = ["p1 sd"]', "not a hold'em action"),
        ('actions = ["d dh x1 AsKs"]', "not a player"),
        ('actions = ["p1 cbr 1.5"]', "whole number"),
    ],
)
def test_phh_the_table_cannot_deal_is_refused(text: str, message: str) -> None:
    base = {
        "variant": '"NT"',
        "antes": "[0, 0, 0]",
        "blinds_or_straddles": "[50, 100, 0]",
        "min_bet": "100",
        "starting_stacks": "[5000, 5000, 5000]",
        "actions": "[]",
    }
    key, _, value = text.partition(" = ")
    base[key] = value
    with pytest.raises(ScriptError, match=message):
        loads_phh("\n".join(f"{k} = {v}" for k, v in base.items()))
