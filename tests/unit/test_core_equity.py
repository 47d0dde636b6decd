"""The core asks for win probabilities at the right moments and publishes only current ones.

Hands dealt by the virtual table are fed, frame by frame in their true order, through a
fresh core; the core's requests (``Output.work``) are answered as the pipeline's worker would,
with ``tablesvc.equity.compute``, as ``EquityResult`` inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from simulators.virtual import recorded_table
from tablesvc.core import events as ev
from tablesvc.core.cards import DeckRegistry
from tablesvc.core.inputs import EquityResult, Input, format_ts
from tablesvc.core.requests import EquityRequest
from tablesvc.core.table import Output, Player, TableCore, TableSettings
from tablesvc.equity import compute
from tests.helpers import DEVICES, Script

SEATS = {1: 5000, 3: 5000, 4: 5000, 6: 5000, 8: 5000}


@dataclass
class Run:
    core: TableCore
    inputs: list[Input] = field(default_factory=list)
    events: list[ev.Event] = field(default_factory=list)
    requests: list[tuple[EquityRequest, list[ev.Event]]] = field(default_factory=list)
    steps: list[tuple[list[ev.Event], list[EquityRequest]]] = field(default_factory=list)
    script: Script = field(default_factory=Script)

    def apply(self, inp: Input) -> Output:
        self.inputs.append(inp)
        out = self.core.apply(inp)
        self.events += out.events
        for req in out.work:
            self.requests.append((req, list(out.events)))
        self.steps.append((list(out.events), list(out.work)))
        return out

    def answer(self, req: EquityRequest) -> Output:
        ms = self.script.ms
        return self.apply(EquityResult(format_ts(ms), ms, req.hand, req.version, compute(req)))


def core_of(variant: str, dead_cards: str = "known", **table: Any
            ) -> tuple[TableCore, list[tuple[str, bytes]], Any]:
    ante = 25 if variant == "draw5" else 0
    t, frames = recorded_table(SEATS, seed=3, variant=variant, ante=ante, button=1,
                               fold_probability=0.3, **table)
    settings = TableSettings(venue="v", table="t", devices=dict(DEVICES), variant=variant,
                             ante=ante, equity_dead_cards=dead_cards)
    core = TableCore(settings, DeckRegistry({"SIM": t.deck}), t.chip_values,
                     [Player(s, f"P{s}", st) for s, st in SEATS.items()])
    return core, frames, t


def play(variant: str, hands: int, answer: Callable[[EquityRequest], bool] = lambda r: True,
         dead_cards: str = "known") -> Run:
    """Deal ``hands`` hands; each request is answered at once when ``answer`` says so."""
    core, frames, table = core_of(variant, dead_cards)
    table.run(hands=hands)
    run = Run(core)
    run.apply(run.script.cmd("button", seat=1))
    for dev, raw in frames:
        out = run.apply(run.script.raw(dev, raw.decode().rstrip("\r\n")))
        for req in out.work:
            if answer(req):
                run.answer(req)
    return run


def of_type(events: list[ev.Event], kind: type[ev.Event]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def test_hold_em_asks_at_the_deal_at_every_street_and_at_every_fold_and_never_at_a_burn() -> None:
    run = play("holdem", 6)
    live: dict[int | None, set[int]] = {}
    dealt: set[int | None] = set()
    folds = 0
    for events, work in run.steps:
        asked = {(r.hand, r.street): r for r in work}
        for e in events:
            if isinstance(e, ev.HandStarted):
                live[e.hand] = {s.seat for s in e.seats}
            elif isinstance(e, ev.Action) and e.action == "fold":
                live[e.hand].discard(e.seat)
                folds += 1
                if e.hand in dealt and len(live[e.hand]) >= 2:  # the fold changed the odds
                    assert [{s for s, _ in r.holes} for r in work] == [live[e.hand]]
            elif isinstance(e, ev.Board):
                assert (e.hand, e.street) in asked  # every street
        kinds = {e.type for e in events}
        if any(r.street == "preflop" for r in work) and not dealt & {r.hand for r in work}:
            assert "hole_cards" in kinds  # the deal is complete
            dealt.update(r.hand for r in work)
        if work:  # nothing else asks: a burn, a bet, a card to a seat before the last
            assert kinds & {"hole_cards", "board"} or any(
                isinstance(e, ev.Action) and e.action == "fold" for e in events), kinds
    assert folds and len(dealt) == 6


def test_every_answered_request_is_one_secure_equity_event_with_its_figures() -> None:
    run = play("holdem", 4)
    equities = of_type(run.events, ev.Equity)
    assert len(equities) == len(run.requests)
    for e, (req, _) in zip(equities, run.requests, strict=True):
        assert e.FEED == "secure"
        assert e.hand == req.hand and e.street == req.street
        assert [s.seat for s in e.seats] == [s for s, _ in req.holes]
        assert sum((s.win or 0) + (s.tie or 0) for s in e.seats) == pytest.approx(100)
        assert (e.street == "turn") == all(s.outs is not None for s in e.seats)


def test_a_result_that_comes_back_after_the_next_card_or_fold_is_dropped() -> None:
    held: list[EquityRequest] = []
    run = play("holdem", 3, answer=lambda r: held.append(r) is not None)  # answer none
    assert len(held) >= 3
    before = len(run.events)
    for req in held[:-1]:  # each was superseded by the next
        out = run.answer(req)
        assert out.events == []
        assert any("earlier hand state" in n.message for n in out.notes)
    assert len(run.events) == before


def test_the_answer_to_the_current_state_is_published_once() -> None:
    pending: list[EquityRequest] = []
    core, frames, table = core_of("holdem")
    table.run(hands=1)
    run = Run(core)
    run.apply(run.script.cmd("button", seat=1))
    for dev, raw in frames:
        pending += run.apply(run.script.raw(dev, raw.decode().rstrip("\r\n"))).work
        if pending and pending[-1].street == "flop":
            break
    current = pending[-1]
    assert run.core.equity.outstanding() == current  # what a restart would compute again
    assert len(of_type(run.answer(current).events, ev.Equity)) == 1
    assert run.core.equity.outstanding() is None
    assert run.answer(current).events == []


def test_replay_of_the_journalled_results_gives_the_same_events_without_computing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    live = play("holdem", 3, answer=lambda r: r.street != "turn")
    core, _, _ = core_of("holdem")

    def no_computing(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("replay computed an equity")

    monkeypatch.setattr("tablesvc.equity.compute", no_computing)
    replayed = [e for inp in live.inputs for e in core.apply(inp).events]
    assert [e.model_dump_json() for e in replayed] == [
        e.model_dump_json() for e in live.events]
    assert of_type(replayed, ev.Equity)


def test_dead_cards_are_the_burns_and_the_folded_hands_or_none_when_configured() -> None:
    run = play("holdem", 4)
    holes: dict[tuple[int | None, int], list[str]] = {
        (e.hand, e.seat): e.cards for e in of_type(run.events, ev.HoleCards)}
    late = [r for r, _ in run.requests if r.street in ("turn", "river")]
    assert late
    for req in late:
        live = {s for s, _ in req.holes}
        folded = {c for (hand, seat), cards in holes.items()
                  if hand == req.hand and seat not in live for c in cards}
        assert folded <= set(req.dead)
        burns = len(req.board) - 2  # flop, turn, river: one burn each
        assert len(set(req.dead) - folded) == burns
    blind = play("holdem", 2, dead_cards="none")
    assert all(r.dead == () for r, _ in blind.requests)
    assert {len(r.dead) for r, _ in play("holdem", 2).requests} != {0}


def test_draw_asks_after_the_deal_and_after_the_draw() -> None:
    run = play("draw5", 4)
    streets = {(r.hand, r.street) for r, _ in run.requests}
    hands = {e.hand for e in of_type(run.events, ev.HandStarted)}
    assert {s for _, s in streets} <= {"predraw", "postdraw"}
    assert {h for h, s in streets if s == "predraw"} <= hands
    equities = of_type(run.events, ev.Equity)
    assert {e.method for e in equities if e.street == "predraw"} == {"none"}
    assert all(s.hand for e in equities for s in e.seats)
    if any(e.street == "postdraw" for e in equities):
        assert {e.method for e in equities if e.street == "postdraw"} == {"exact"}
    assert any(e.street == "predraw" for e in equities)


def test_a_hand_edited_result_in_a_journal_is_refused_with_a_note() -> None:
    pending: list[EquityRequest] = []
    core, frames, table = core_of("holdem")
    table.run(hands=1)
    run = Run(core)
    run.apply(run.script.cmd("button", seat=1))
    for dev, raw in frames:
        pending += run.apply(run.script.raw(dev, raw.decode().rstrip("\r\n"))).work
        if pending:
            break
    req = pending[-1]
    figures = compute(req)
    figures["method"] = "guessed"
    out = run.apply(EquityResult(format_ts(run.script.ms), run.script.ms, req.hand,
                                 req.version, figures))
    assert out.events == []
    assert [n.level for n in out.notes] == ["warning"]
    assert "refused" in out.notes[0].message
