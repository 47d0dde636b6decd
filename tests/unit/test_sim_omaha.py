"""The virtual dealer deals pot-limit Omaha (issue 31), told by the wire and checked apart.

Every hand runs at pace 0 on devices that record every frame in true order (no hardware, no
ptys). What is expected is derived here from the rules, not from the dealer's code: the deal
sequence from RULES.md §2.2 with four rounds instead of two, the pot limit (BET-19) from the
actions the hand records, and the showdown and the final stacks from pokerkit, which replays
each hand written as PHH (``PO``) action by action.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import fields, replace
from pathlib import Path

import pytest
from pokerkit import Automation, HandHistory, OmahaHoldemHand

from drivers.tsp import decode
from simulators.betting import Limit
from simulators.dealer import ROOM_HABITS, Habits
from simulators.handeval import best_hand
from simulators.phh import dumps_phh, loads_phh, script_from_record
from simulators.scenario import ScenarioError, load_scenario, loads_scenario, scenario_files
from simulators.scenario_player import play_scenario
from simulators.script import ScriptError
from simulators.table import HandRecord, VirtualTable
from simulators.virtual import recorded_table
from tests.unit.test_sim_pokerkit import pokerkit_stacks, replay

STREETS = ["BURN", "BOARD", "BOARD", "BOARD", "BURN", "BOARD", "BURN", "BOARD"]
HANDS = 200


def clockwise_from_button(button: int, seats: Sequence[int]) -> list[int]:
    ordered = sorted(seats)
    return [s for s in ordered if s > button] + [s for s in ordered if s <= button]


def dealt(frames: list[tuple[str, bytes]], table: VirtualTable) -> list[tuple[str, str]]:
    """(card, zone) of every card that left the shoe, in order, where it was first read."""
    drawn: list[str] = []
    first: dict[str, str] = {}
    for _, raw in frames:
        f = decode(raw.decode("ascii").rstrip("\r\n"))
        if f.type == "DRAW":
            drawn.append(f.fields[0])
        elif f.type == "ARR":
            first.setdefault(f.fields[1], f.fields[0])
    return [(table.deck[uid], first[uid]) for uid in drawn]


def play(seats: dict[int, int], **options: object) -> tuple[HandRecord, list[tuple[str, str]]]:
    options.setdefault("seed", 3)
    table, frames = recorded_table(seats, variant="omaha", **options)  # type: ignore[arg-type]
    mark = len(frames)
    record = table.play_hand()
    return record, dealt(frames[mark:], table)


# the deal ------------------------------------------------------------------------------------


def test_four_rounds_of_one_card_from_the_buttons_left_then_burns_and_board() -> None:
    seats = {2: 5000, 4: 5000, 5: 5000, 7: 5000, 9: 5000}
    record, wire = play(seats, button=5, fold_probability=0)
    assert [zone for _, zone in wire] == [
        "S7", "S9", "S2", "S4", "S5",
        "S7", "S9", "S2", "S4", "S5",
        "S7", "S9", "S2", "S4", "S5",
        "S7", "S9", "S2", "S4", "S5",
        *STREETS,
    ]  # fmt: skip
    assert [zone for _, zone in wire] == [
        f"S{s}" for s in clockwise_from_button(5, list(seats))] * 4 + STREETS
    for seat in seats:
        assert record.hole_cards[seat] == tuple(c for c, z in wire if z == f"S{seat}")
        assert len(record.hole_cards[seat]) == 4
    assert record.board == tuple(c for c, z in wire if z == "BOARD")
    assert record.burns == tuple(c for c, z in wire if z == "BURN")
    assert (record.variant, record.limit, record.seats) == ("omaha", "pot-limit", (7, 9, 2, 4, 5))
    assert record.showdown


def test_heads_up_the_big_blind_gets_the_first_of_the_eight_hole_cards() -> None:
    record, wire = play({2: 5000, 5: 5000}, button=5, fold_probability=0)
    assert [zone for _, zone in wire] == ["S2", "S5"] * 4 + STREETS
    assert (record.small_blind_seat, record.big_blind_seat) == (5, 2)


def test_a_hand_folded_to_the_big_blind_deals_no_burn_nor_board() -> None:
    record, wire = play({1: 5000, 2: 5000, 3: 5000}, button=1, fold_probability=1.0)
    assert [zone for _, zone in wire] == ["S2", "S3", "S1"] * 4
    assert record.winners == {3: 100} and not record.showdown


def test_the_showdown_plays_exactly_two_hole_cards_with_three_of_the_board() -> None:
    # seat 1 (big blind, first card) holds four hearts: hold'em would give him the ace-high
    # straight A-K-Q-J-T with one board card; Omaha allows him only two of them: ace high.
    # Seat 2's pair of eights wins.
    order = ["Ah", "8c", "Kh", "8d", "Qh", "4s", "Jh", "5s",
             "2h", "Th", "2c", "3d", "6h", "7s", "6c", "9c"]  # fmt: skip
    record, _ = play({1: 5000, 2: 5000}, button=2, fold_probability=0, deck_order=order)
    assert record.hole_cards == {1: ("Ah", "Kh", "Qh", "Jh"), 2: ("8c", "8d", "4s", "5s")}
    assert record.board == ("Th", "2c", "3d", "7s", "9c")
    assert record.showdown and record.winners == {2: 200}
    assert record.stacks_after == {1: 4900, 2: 5100}


# pot-limit betting ---------------------------------------------------------------------------


def random_hands(count: int, seed: int, habits: Habits = ROOM_HABITS) -> Iterator[HandRecord]:
    """One Omaha hand on a fresh table each: 2..10 players, deep and short stacks, antes or
    not, players who bet and raise often (stacks always cover the ante and the big blind, as
    pokerkit's rules need)."""
    rng = random.Random(seed)
    for i in range(count):
        n = rng.randint(2, 10)
        sb, bb = rng.choice([(50, 100), (25, 50), (100, 200), (25, 100)])
        ante, mode = rng.choice([(0, "each")] * 3 + [(25, "each"), (bb, "big_blind")])
        least = ante + bb + 25
        seats = {
            s: rng.choice([least, rng.randint(3, 30) * bb, rng.randint(50, 200) * bb])
            for s in rng.sample(range(1, 11), n)
        }
        table, _ = recorded_table(
            seats, seed=seed * 100_000 + i, small_blind=sb, big_blind=bb, ante=ante,
            ante_mode=mode, variant="omaha", aggression=rng.uniform(0.3, 0.8),
            all_in_share=rng.uniform(0.1, 0.5), fold_probability=rng.uniform(0.05, 0.3),
            button=rng.choice(sorted(seats)), habits=habits,
        )  # fmt: skip
        yield table.play_hand()


def pot_limit_check(record: HandRecord) -> Counter[str]:
    """Every bet and raise of the hand against BET-19's pot limit, worked out from its actions
    alone: the most a seat may make his round total is H plus the pot after his call (the pot
    before the round, every bet of the round, and what he has to call). The minimum raise is
    no-limit's (the last full raise, at least the big blind); only an all-in may be short.

    The hand must be dealt by a dealer who gathers every bet (``Habits()``): the pot is then
    all that was put in before the round."""
    seen: Counter[str] = Counter()
    pot = sum(a.amount for a in record.actions if a.action == "post_ante")
    for street in ("preflop", "flop", "turn", "river"):
        actions = record.street_actions(street)
        bets: dict[int, int] = {}
        high = record.big_blind if street == "preflop" else 0
        last_full = record.big_blind
        for a in actions:
            if a.action == "post_ante":
                continue
            if a.action in ("post_small_blind", "post_big_blind"):
                bets[a.seat] = a.to
                continue
            if a.action in ("bet", "raise"):
                call = high - bets.get(a.seat, 0)
                limit = high + pot + sum(bets.values()) + call
                where = f"hand {record.number} {street}: seat {a.seat} to {a.to}"
                assert a.to <= limit, f"{where} is over the pot limit {limit}"
                increment = a.to - high
                assert increment >= last_full or a.all_in, f"{where} is short of {last_full}"
                seen["wager"] += 1
                seen["pot"] += a.to == limit
                seen["all-in short of the pot"] += a.all_in and a.to < limit
                seen["between"] += high + last_full < a.to < limit
                last_full = max(last_full, increment)
                high = a.to
            bets[a.seat] = a.to
        pot += sum(bets.values())
    return seen


def test_every_bet_and_raise_of_200_random_hands_stays_within_the_pot_limit() -> None:
    seen: Counter[str] = Counter()
    for record in random_hands(HANDS, seed=31, habits=Habits()):
        assert record.limit == "pot-limit"
        seen += pot_limit_check(record)
    assert seen["wager"] >= HANDS, seen
    assert seen["pot"] >= HANDS // 10, seen  # "pot!" bets the limit exactly
    assert seen["all-in short of the pot"] >= 5 and seen["between"] >= HANDS // 10, seen


def test_random_omaha_hands_replay_legally_in_pokerkit_to_the_same_stacks() -> None:
    """pokerkit deals PO itself: its pot limit, its Omaha showdown and its pots. Every action
    must be legal where it stands and the stacks must end as the table's (neighbouring pots of
    the same winners joined, as pokerkit joins them)."""
    seen: Counter[str] = Counter()
    for record in random_hands(150, seed=7):
        text = dumps_phh(script_from_record(record))
        assert text.startswith('variant = "PO"\n')
        try:
            state = replay(text, record.unit)
        except (ValueError, AssertionError) as e:
            pytest.fail(f"hand {record.number} is not legal for pokerkit: {e}\n{text}")
        assert list(state.stacks) == pokerkit_stacks(record), text
        seen["showdown"] += record.showdown
        seen["side pot"] += len(record.pots) > 1
        seen["split"] += any(len(p.shares) > 1 for p in record.pots)
    assert seen["showdown"] >= 30 and seen["side pot"] >= 10 and seen["split"] >= 1, seen


# scripts and PHH -----------------------------------------------------------------------------

# Three-handed pot-limit Omaha: p1..p3 in seats 3, 6, 8, seat 8 on the button. p3 raises the
# pot pre-flop (to 350: 100 to call, then a pot of 250), p1 folds, p2 calls; on the flop p2
# bets the pot (750) and p3 calls; turn and river are checked. p3's A-K of spades with three
# spades of the board (the nut flush) beats p2's three kings.
THREE_HANDED = """\
variant = "PO"
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [5000, 5000, 5000]
actions = [
  "d dh p1 2c3d7h9d", "d dh p2 KdKh4c5c", "d dh p3 AsKs8h8c",
  "p3 cbr 350", "p1 f", "p2 cc",
  "d db Ts7s2s",
  "p2 cbr 750", "p3 cc",
  "d db Kc",
  "p2 cc", "p3 cc",
  "d db 3h",
  "p2 cc", "p3 cc",
]
seats = [3, 6, 8]
finishing_stacks = [4950, 3900, 6150]
"""


def test_an_omaha_phh_file_is_dealt_exactly_and_pokerkit_ends_it_alike() -> None:
    table, frames = recorded_table({1: 1000, 2: 1000}, seed=9, variant="omaha")
    mark = len(frames)
    record = table.play_script(loads_phh(THREE_HANDED))
    wire = dealt(frames[mark:], table)
    assert [z for _, z in wire] == ["S3", "S6", "S8"] * 4 + STREETS
    assert [c for c, z in wire if z == "S6"] == ["Kd", "Kh", "4c", "5c"]
    assert [c for c, z in wire if z == "BOARD"] == ["Ts", "7s", "2s", "Kc", "3h"]
    assert record.stacks_after == {3: 4950, 6: 3900, 8: 6150}
    assert record.winners == {8: 2250}
    hh = HandHistory.loads(THREE_HANDED, automations=(
        *HandHistory.automations, Automation.HOLE_CARDS_SHOWING_OR_MUCKING))
    *_, final = iter(hh)
    assert list(final.stacks) == [4950, 3900, 6150]


def test_a_hand_written_as_phh_deals_again_exactly_the_same() -> None:
    compared = [f.name for f in fields(HandRecord) if f.name not in ("number", "deal", "burns")]
    for record in random_hands(40, seed=5, habits=Habits()):
        script = loads_phh(dumps_phh(script_from_record(record)))
        assert script.variant == "omaha"
        table, _ = recorded_table({1: 1000, 2: 1000}, seed=record.number, habits=Habits(),
                                  variant="omaha")
        again = table.play_script(script)
        for name in compared:
            assert getattr(again, name) == getattr(record, name), name


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('"d dh p1 2c3d7h9d"', '"d dh p1 2c3d"'), "Omaha deals 4 hole cards"),
        (('"p3 cbr 350"', '"p3 cbr 400"'), r"p3 cbr 400.*350"),  # over the pot
        (('"p2 cbr 750"', '"p2 cbr 800"'), r"p2 cbr 800.*750"),
    ],
)
def test_a_script_over_the_pot_or_with_two_hole_cards_is_refused_before_any_frame(
    change: tuple[str, str], message: str,
) -> None:
    table, frames = recorded_table({1: 1000, 2: 1000}, seed=1, variant="omaha")
    mark = len(frames)
    with pytest.raises(ScriptError, match=message):
        table.play_script(loads_phh(THREE_HANDED.replace(*change)))
    assert len(frames) == mark


def test_a_table_deals_the_scripts_of_its_own_game_only() -> None:
    holdem, _ = recorded_table({1: 1000, 2: 1000}, seed=1)
    with pytest.raises(ScriptError, match="omaha hand; this table deals holdem"):
        holdem.play_script(loads_phh(THREE_HANDED))
    omaha, _ = recorded_table({1: 1000, 2: 1000}, seed=1, variant="omaha")
    record = holdem.play_hand()
    with pytest.raises(ScriptError, match="holdem hand; this table deals omaha"):
        omaha.play_script(script_from_record(record))


# the table's settings ------------------------------------------------------------------------


def test_omaha_is_dealt_pot_limit_only() -> None:
    table, _ = recorded_table({1: 1000, 2: 1000}, seed=1, variant="omaha")
    assert table.limit.value == "pot-limit"
    for limit in ("no-limit", "fixed-limit"):
        with pytest.raises(ValueError, match=f"omaha is dealt pot-limit only, not {limit}"):
            recorded_table({1: 1000, 2: 1000}, seed=1, variant="omaha", limit=limit)
        with pytest.raises(ValueError, match="pot-limit only"):
            table.set_level(limit=limit)
    table.set_level(small_blind=100, big_blind=200)
    assert (table.big_blind, table.limit.value) == (200, "pot-limit")
    with pytest.raises(ScriptError, match="Omaha is dealt pot-limit only, not no-limit"):
        replace(loads_phh(THREE_HANDED), limit=Limit.NO_LIMIT)
    with pytest.raises(ScenarioError, match="omaha is dealt pot-limit only, not no-limit"):
        loads_scenario("id: OX\nsetup: {variant: omaha, seats: {1: 900, 2: 900}, button: 1, "
                       "limit: no-limit}\nsteps: [newhand]\n")
    assert loads_scenario("id: OX\nsetup: {variant: omaha, seats: {1: 900, 2: 900}, "
                          "button: 1}\nsteps: [newhand]\n").setup.limit == "pot-limit"


# the scenario files of Omaha irregularities --------------------------------------------------

OMAHA_SCENARIOS = [p for p in scenario_files() if load_scenario(p).setup.variant == "omaha"]


@pytest.mark.parametrize("path", OMAHA_SCENARIOS, ids=lambda p: p.stem)
def test_every_omaha_scenario_deals_four_rounds_from_the_buttons_left_first(path: Path) -> None:
    """Whatever goes wrong later, each scenario's first 4N cards are the clean Omaha deal (the
    irregularities of the scenarios come after it, or at a card of it, like a face-up one)."""
    sc = load_scenario(path)
    st = sc.setup
    table, frames = recorded_table(st.seats, seed=1, small_blind=st.small_blind,
                                   big_blind=st.big_blind, button=st.button, variant=st.variant)
    assert table.limit.value == st.limit == "pot-limit"
    mark = len(frames)
    play_scenario(table, sc)
    order = clockwise_from_button(st.button, list(st.seats))
    zones = [zone for _, zone in dealt(frames[mark:], table)]
    assert zones[: 4 * len(order)] == [f"S{s}" for s in order] * 4, sc.id


def test_the_clean_omaha_scenario_is_dealt_as_the_dealer_deals_and_won_by_the_omaha_rule() -> None:
    """O01 is the virtual dealer's clean hand, card for card; its showdown turns on the rule
    of two: by pokerkit's Omaha reading S3's flush beats S2's three kings, where hold'em
    would give S2 the ace-high flush with one heart."""
    sc = load_scenario(next(p for p in OMAHA_SCENARIOS if p.stem.startswith("o01")))
    st = sc.setup
    table, frames = recorded_table(st.seats, seed=1, small_blind=st.small_blind,
                                   big_blind=st.big_blind, button=st.button, variant="omaha")
    mark = len(frames)
    stacks = play_scenario(table, sc)
    wire = dealt(frames[mark:], table)
    assert [z for _, z in wire] == ["S1", "S2", "S3", "S4"] * 4 + STREETS
    hole = {s: "".join(c for c, z in wire if z == f"S{s}") for s in st.seats}
    board = "".join(c for c, z in wire if z == "BOARD")
    s2, s3 = (OmahaHoldemHand.from_game(hole[s], board) for s in (2, 3))
    assert s3 > s2 and str(s2).startswith("Three of a kind") and str(s3).startswith("Flush")
    board_cards = [board[i : i + 2] for i in range(0, 10, 2)]
    assert hole[2].startswith("Ah") and hole[3].startswith("9h8h")
    holdem = best_hand(["Ah", "Kc", *board_cards]), best_hand(["9h", "8h", *board_cards])
    assert holdem[0] > holdem[1] and holdem[0][:2] == (5, 14)  # hold'em: S2's ace-high flush
    assert sc.expect.outcome.awards == ((12300, {3: 12300}),)
    assert stacks == sc.expect.outcome.stacks
