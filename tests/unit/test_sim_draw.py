"""The virtual table deals five-card draw as docs/DRAW.md says, and the wire shows it.

Every expectation is read off the frames the devices send, in their true order, and derived
from RULES.md (DEAL-04, DRAW-02, DRAW-04, DRAW-05, POT-10, BET-22) directly; the table's own
record is only used to find the hands worth looking at and to check that it tells the truth.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from pokerkit import StandardHighHand

from drivers.tsp import decode
from simulators.dealer import Habits
from simulators.table import HandRecord, VirtualTable
from simulators.virtual import recorded_table

EIGHT = dict.fromkeys(range(1, 9), 40_000)
FOUR = dict.fromkeys(range(1, 5), 10_000)


@dataclass(frozen=True)
class F:
    dev: str
    type: str
    fields: tuple[str, ...]


@dataclass
class Game:
    record: HandRecord
    frames: list[F]

    def of(self, *types: str) -> list[F]:
        return [f for f in self.frames if f.type in types]

    def buttons(self, name: str) -> list[tuple[str, ...]]:
        return [f.fields[1:] for f in self.of("BTN") if f.fields[0] == name]


class Wire:
    """A recorded draw table and the frames of each game it deals."""

    def __init__(self, seats: dict[int, int], seed: int, **options: Any) -> None:
        options.setdefault("ante", 25)
        self.table, self._raw = recorded_table(
            seats, seed=seed, variant="draw5", hello=False, **options
        )

    @property
    def deck(self) -> dict[str, str]:
        return self.table.deck

    def play(self) -> Game:
        start = len(self._raw)
        record = self.table.play_hand()
        frames = []
        for dev, raw in self._raw[start:]:
            frame = decode(raw.decode().rstrip("\r\n"))
            if frame.type not in ("HELLO", "HB"):
                frames.append(F(dev, frame.type, tuple(frame.fields)))
        return Game(record, frames)

    def games(self, count: int) -> Iterator[Game]:
        """Up to ``count`` games, while at least two players have chips."""
        for _ in range(count):
            if len(self.table.seated()) < 2:
                return
            yield self.play()


def clockwise_from(dealer: int, seats: list[int]) -> list[int]:
    ordered = sorted(seats)
    return [s for s in ordered if s > dealer] + [s for s in ordered if s <= dealer]


def first_zones(game: Game) -> list[str]:
    """Where each card leaving the shoe first arrived, in the order they left it."""
    out: list[str] = []
    frames = game.frames
    for i, f in enumerate(frames):
        if f.type == "DRAW":
            arr = next(g for g in frames[i + 1:] if g.type == "ARR" and g.fields[1] == f.fields[0])
            out.append(arr.fields[0])
    return out


def chip_total(table: VirtualTable, inventory: str) -> int:
    values = table.chip_values
    return sum(values[u] for u in inventory.split())


# the deal -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 4, 8, 10])
def test_five_cards_each_go_out_one_at_a_time_starting_left_of_the_dealer(seats: int) -> None:
    wire = Wire(dict.fromkeys(range(1, seats + 1), 10_000), seed=seats, button=2)
    game = wire.play()
    order = clockwise_from(2, list(range(1, seats + 1)))
    assert game.frames[0] == F("console", "BTN", ("NEWHAND",))
    assert first_zones(game)[: 5 * seats] == [f"S{s}" for s in order] * 5
    # antes before the first card, and no blinds: the bet zones stay empty until someone bets
    first_draw = game.frames.index(game.of("DRAW")[0])
    pots = [f for f in game.frames[:first_draw] if f.type == "CHIPS"]
    assert [p.fields[0] for p in pots] == ["POT"]
    assert chip_total(wire.table, pots[0].fields[1]) == 25 * seats
    assert game.record.seats == tuple(order) and game.record.button == 2
    assert {s: len(c) for s, c in game.record.dealt.items()} == dict.fromkeys(order, 5)


def test_the_dealer_is_the_next_seat_clockwise_after_every_game_checked_out_or_not() -> None:
    wire = Wire(FOUR, seed=3, button=3)
    dealers = [game.record.button for game in wire.games(12)]
    assert dealers == [3, 4, 1, 2] * 3
    outcomes = {game.record.outcome for game in Wire(FOUR, seed=3).games(30)}
    assert "checked_out" in outcomes and "showdown" in outcomes


# the draw -------------------------------------------------------------------------------------


def draw_turns(game: Game) -> list[tuple[int, int, list[F]]]:
    """(seat, announced, the frames up to the next announcement or bet) for each DRAW button."""
    turns: list[tuple[int, int, list[F]]] = []
    for i, f in enumerate(game.frames):
        if f.type == "BTN" and f.fields[0] == "DRAW":
            rest = []
            for g in game.frames[i + 1:]:
                if g.type in ("BTN", "CHIPS"):
                    break
                rest.append(g)
            turns.append((int(f.fields[1]), int(f.fields[2]), rest))
    return turns


def test_discards_reach_the_muck_before_any_replacement_and_as_many_come_back() -> None:
    wire = Wire(EIGHT, seed=21)
    checked = 0
    for game in wire.games(40):
        for seat, k, frames in draw_turns(game):
            assert 0 <= k <= 3
            zone = f"S{seat}"
            moves = [f for f in frames if f.type in ("DEP", "ARR", "DRAW")
                     and not (f.type == "DEP" and f.fields[0] == "MUCK")]  # a reshuffle
            discards, replacements = moves[: 2 * k], moves[2 * k:]
            assert [(f.type, f.fields[0]) for f in discards] == [("DEP", zone), ("ARR", "MUCK")] * k
            assert [(f.type, f.fields[0] if f.type == "ARR" else "") for f in replacements] == [
                ("DRAW", ""), ("ARR", zone)] * k
            checked += k
    assert checked > 200


def test_the_draw_goes_clockwise_from_the_dealers_left_among_the_players_still_in() -> None:
    for game in Wire(FOUR, seed=8).games(30):
        record = game.record
        announced = [seat for seat, _, _ in draw_turns(game)]
        if not announced:
            continue
        folded = {a.seat for a in record.actions if a.street == "first" and a.action == "fold"}
        assert announced == [s for s in record.seats if s not in folded]
        assert [e.seat for e in record.exchanges] == announced


def test_the_bottom_card_is_never_dealt_in_200_eight_handed_games() -> None:
    """DRAW-04: the stub's last card stays; so does the last card of every new pack."""
    games = reshuffled = 0
    seed = 0
    while games < 200:
        seed += 1
        wire = Wire(EIGHT, seed=seed)
        while games < 200 and len(wire.table.seated()) == 8:
            game = wire.play()
            games += 1
            reshuffled += bool(game.of("DECK"))
            out_of_deck: set[str] = set()
            packs: list[list[str]] = []
            for f in game.of("DRAW", "DECK"):
                if f.type == "DECK":
                    packs.append(f.fields[0].split(" "))
                    continue
                uid = f.fields[0]
                if packs:
                    assert uid != packs[-1][-1], "the bottom card of a new pack was dealt"
                else:
                    out_of_deck.add(uid)
            assert len(out_of_deck) <= 51
            bottom = set(wire.deck) - out_of_deck
            assert game.record.bottom_cards[0] in {wire.deck[u] for u in bottom}
            if packs:  # the stub ran out: the one card never dealt is in the first pack
                assert len(bottom) == 1 and bottom <= set(packs[0])
    assert reshuffled >= 30  # the stub runs out often enough for the test to mean something


def test_a_new_pack_holds_the_bottom_card_and_the_finished_players_discards_only() -> None:
    """DRAW-05: not the current player's discards, not the folded hands; DECK lists the pack,
    top first, and the replacements come from it in that order."""
    seen = 0
    wire = Wire(EIGHT, seed=5)
    for game in wire.games(60):
        if not game.of("DECK"):
            continue
        seen += 1
        drawn: set[str] = set()
        eligible: set[str] = set()  # finished players' discards not in a pack yet
        current: list[str] = []  # the discards of the player drawing now
        folded: set[str] = set()
        bottom: str | None = None
        pack: list[str] = []
        frames = game.frames
        for i, f in enumerate(frames):
            if f.type == "BTN" and f.fields[0] == "DRAW":
                eligible.update(current)
                current = []
            elif f.type == "ARR" and f.fields[0] == "MUCK":
                if any(g.type == "BTN" and g.fields[0] == "DRAW" for g in frames[:i]):
                    current.append(f.fields[1])
                else:
                    folded.add(f.fields[1])
            elif f.type == "DRAW":
                drawn.add(f.fields[0])
                if pack:
                    assert f.fields[0] == pack.pop(0), "not the top card of the new pack"
            elif f.type == "DECK":
                new = f.fields[0].split(" ")
                if bottom is None:
                    (bottom,) = set(wire.deck) - drawn
                taken = []
                for g in reversed(frames[:i]):  # the pick-up just before the load
                    if g.type != "DEP" or g.fields[0] != "MUCK":
                        break
                    taken.append(g.fields[1])
                assert set(new) == eligible | {bottom}
                assert set(taken) == eligible
                assert not set(new) & (set(current) | folded)
                eligible = set()
                pack = new
                bottom = new[-1]
        record = game.record
        assert record.reshuffled
        assert [list(p) for p in record.reshuffles][-1][-1] == wire.deck[bottom or ""]
    assert seen >= 10


# pots -----------------------------------------------------------------------------------------


def test_a_game_checked_around_leaves_its_pot_for_the_next_one() -> None:
    """BET-20 / POT-10: no push, the cards to the muck, the next antes on top of the pot.

    A dealer who gathers every bet into the pot, so that the pot zone shows every chip."""
    wire = Wire(FOUR, seed=2, habits=Habits())
    carried = carried_twice = 0
    for game in wire.games(40):
        record = game.record
        pots = [chip_total(wire.table, f.fields[1]) for f in game.of("CHIPS")
                if f.fields[0] == "POT"]
        assert pots[0] == carried + sum(record.antes.values())
        assert record.carried_in == carried
        if record.outcome == "checked_out":
            assert pots[-1] == record.carried_over > 0  # the pot zone was never emptied
            assert record.winners == {} and record.pot == 0
            where = {f.fields[1]: f.fields[0] for f in game.of("ARR")}
            assert set(where.values()) == {"MUCK"}  # every card collected all the same
            carried_twice += carried > 0
            carried = record.carried_over
        else:
            assert pots[-1] == 0 and record.carried_over == 0
            # what the pot held went to the winners, but for a bet nobody called: that went back
            assert sum(record.winners.values()) + sum(record.returned.values()) == (
                carried + sum(record.antes.values()) + sum(record.gathered))
            carried = 0
    assert carried_twice  # a carried pot also grew by a second game checked around


def test_a_second_round_checked_around_carries_over_or_goes_to_a_showdown_as_configured() -> None:
    def second_round_checked(record: HandRecord) -> bool:
        second = [a for a in record.actions if a.street == "second"]
        return bool(second) and all(a.action == "check" for a in second)

    carried = [g.record for g in Wire(FOUR, seed=4).games(60)
               if second_round_checked(g.record)]
    shown = [g.record for g in Wire(FOUR, seed=4, second_round_all_check="showdown").games(60)
             if second_round_checked(g.record)]
    assert carried and all(r.outcome == "checked_out" and r.carried_over for r in carried)
    assert shown and all(r.outcome == "showdown" and r.winners for r in shown)


def test_the_second_round_starts_with_the_opener_or_the_next_player_still_in() -> None:
    for game in Wire(FOUR, seed=6).games(40):
        record = game.record
        first = [a for a in record.actions if a.street == "first"]
        second = [a for a in record.actions if a.street == "second"]
        if not second:
            continue
        opener = next(a.seat for a in first if a.action == "bet")
        assert record.opener == opener
        out = {a.seat for a in first if a.action == "fold" or a.all_in}
        # the opener, or the next player to his left who is still in and has chips
        ring = [opener, *clockwise_from(opener, list(record.seats))[:-1]]
        assert second[0].seat == next(s for s in ring if s not in out)


def test_the_best_five_cards_win_and_the_odd_chip_goes_left_of_the_dealer() -> None:
    """Checked against pokerkit's hand ranking, an independent evaluator (RANK, POT-04)."""
    showdowns = side_pots = 0
    games = (game for seed in range(1, 30) for game in
             Wire(dict.fromkeys(range(1, 7), 20_000), seed=seed, aggression=0.3).games(40))
    for game in games:
        record = game.record
        if record.outcome != "showdown":
            continue
        showdowns += 1
        side_pots += len(record.pots) > 1
        hands = {s: StandardHighHand.from_game("".join(record.final_cards[s]))
                 for s in record.seats if s not in record.folds}
        for pot in record.pots:
            best = max(hands[s] for s in pot.eligible)
            winners = [s for s in record.seats if s in pot.eligible and hands[s] == best]
            assert set(pot.shares) == set(winners)
            assert pot.shares[winners[0]] == max(pot.shares.values())
            assert sum(pot.shares.values()) == pot.amount
    assert showdowns >= 100 and side_pots >= 10


def test_the_record_tells_what_the_wire_shows() -> None:
    wire = Wire(EIGHT, seed=12)
    for game in wire.games(20):
        record = game.record
        assert [(wire.deck[f.fields[0]], zone) for f, zone in zip(
            game.of("DRAW"), first_zones(game), strict=True)] == list(record.deal)
        for exchange in record.exchanges:
            assert len(exchange.discarded) == len(exchange.received) == exchange.announced
        assert [(int(s), int(k)) for s, k in game.buttons("DRAW")] == [
            (e.seat, e.announced) for e in record.exchanges]
        assert len(record.reshuffles) == len(game.of("DECK"))
        assert sum(record.stacks_after.values()) + record.carried_over == (
            sum(record.stacks_before.values()) + record.carried_in)


# seeds and settings ---------------------------------------------------------------------------


def test_the_same_seed_deals_the_same_frames() -> None:
    def session(seed: int) -> list[F]:
        return [f for g in Wire(EIGHT, seed=seed).games(15) for f in g.frames]

    assert session(31) == session(31)
    assert session(31) != session(32)


def test_a_draw_table_refuses_what_draw_does_not_have() -> None:
    with pytest.raises(ValueError, match="every seat antes"):
        recorded_table(FOUR, seed=1, variant="draw5", ante=25, ante_mode="big_blind")
    with pytest.raises(ValueError, match="variant"):
        recorded_table(FOUR, seed=1, variant="razz")
    table, _ = recorded_table(FOUR, seed=1, variant="draw5")
    assert table.ante == table.unit  # SEAT-07: one chip unit when nothing else is agreed
