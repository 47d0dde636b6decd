"""Events built without validation are the events validation builds, to the byte.

The core builds its events with ``Event.trusted`` from values it already holds; validating
them again cost as much as the rest of a frame's work. These tests record the values of every
event built in real sessions of both games (clean hands, betting with all-ins, random play
full of irregularities, device faults), then build each one both ways and compare.
"""

from __future__ import annotations

import copy
import itertools
import random
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from bench.streams import Stream, bench_deck
from simulators.virtual import recorded_table
from tablesvc.core import events as ev
from tablesvc.core.inputs import EquityResult, Input, PublishRefused, ServiceStart, format_ts
from tablesvc.equity import compute
from tests.helpers import ChipBox, Script, make_core, make_deck, track
from tests.unit.test_core_robustness import random_inputs

Built = tuple[type[ev.Event], dict[str, Any]]


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Built]]:
    """The class and the exact values of every event built while the test runs."""
    calls: list[Built] = []
    base_init = BaseModel.__init__
    trusted_from = ev.Event.trusted_from.__func__  # type: ignore[attr-defined]

    def init(self: ev.Event, **data: Any) -> None:
        calls.append((type(self), copy.deepcopy(data)))
        base_init(self, **data)

    def record(cls: type[ev.Event], data: dict[str, Any]) -> ev.Event:
        calls.append((cls, copy.deepcopy(data)))
        return trusted_from(cls, data)  # type: ignore[no-any-return]

    monkeypatch.setattr(ev.Event, "__init__", init)
    monkeypatch.setattr(ev.Event, "trusted_from", classmethod(record))
    yield calls


def _sessions() -> list[ev.Event]:
    """Events of both games from clean, aggressive, random and faulty sessions."""
    events: list[ev.Event] = []
    for variant in ("holdem", "draw5"):
        seats = {1: 5000, 3: 2000, 4: 5000, 6: 800, 8: 5000}
        ante = 25 if variant == "draw5" else 0
        table, frames = recorded_table(seats, seed=3, variant=variant, aggression=0.5,
                                       all_in_share=0.2, ante=ante, button=1)
        table.run(hands=8)
        events += track(frames, stacks=seats, button=1, deck=table.deck,
                        chips=table.chip_values, variant=variant, ante=ante)
        rng = random.Random(5)
        deck, box = make_deck(), ChipBox()
        core = make_core({s: 5000 for s in (1, 2, 4, 7)}, deck=deck, variant=variant, ante=ante)
        core.chip_values = box.values
        script = Script()
        faults: list[Input] = [
            ServiceStart(format_ts(script.ms), script.ms, "0.1.0"),
            script.port("shoe", True), script.frame("shoe", "HELLO", "SH-1", "2.1", "TSP1"),
            script.raw("shoe", "$shoe,5,HB,1*0000"), script.frame("shoe", "ERR", "E7", "jam"),
            script.tick(5000), script.port("cards", False),
            PublishRefused(format_ts(script.ms), script.ms, 3, "not authorized"),
        ]
        for inp in [*faults, *random_inputs(rng, deck, box, 1500, [1, 2, 4, 7])]:
            events += core.apply(inp).events
    stream = Stream(bench_deck())
    core = make_core({s: 10**9 for s in range(1, 11)}, deck=stream.deck,
                     chips={f"C{s:015X}": 100 for s in range(1, 11)}, small_blind=100,
                     big_blind=100)
    script = Script()
    for dev, raw, _ in itertools.islice(stream.hands(), 300):
        out = core.apply(script.raw(dev, raw.decode().rstrip("\r\n")))
        events += out.events
        for req in out.work:  # the equity worker's part, done at once
            result = EquityResult(format_ts(script.ms), script.ms, req.hand, req.version,
                                  compute(req))
            events += core.apply(result).events
    return events


def _shape(value: Any) -> Any:
    """A value's types all the way down: equal values of other types would dump otherwise."""
    if isinstance(value, list | tuple):
        return type(value), [_shape(v) for v in value]
    if isinstance(value, dict):
        return type(value), [(_shape(k), _shape(v)) for k, v in value.items()]
    if isinstance(value, BaseModel):
        return type(value), _shape(value.__dict__)
    return type(value)


def test_every_event_the_core_builds_is_what_validation_builds_to_the_byte(
    built: list[Built], monkeypatch: pytest.MonkeyPatch,
) -> None:
    _sessions()
    monkeypatch.undo()
    assert {cls for cls, _ in built} == set(ev.EVENT_TYPES), "every type was built"
    for cls, data in built:
        validated = cls.model_validate(copy.deepcopy(data))
        given = copy.deepcopy(data)
        trusted = cls.trusted(**given)
        assert type(trusted) is cls
        assert trusted == validated
        assert trusted.model_dump_json() == validated.model_dump_json()
        assert trusted.model_fields_set == validated.model_fields_set
        assert _shape(trusted.__dict__) == _shape(validated.__dict__)
        assert list(trusted.__dict__) == list(cls.model_fields)
        assert (trusted.__pydantic_extra__, trusted.__pydantic_private__) == (
            validated.__pydantic_extra__, validated.__pydantic_private__)
        for name, value in given.items():  # like validation, it keeps no caller's list or dict
            if isinstance(value, list | dict):
                assert getattr(trusted, name) is not value, name


def test_an_event_dumps_as_pydantic_dumps_it_and_reads_back_the_same() -> None:
    for event in _sessions():
        text = event.model_dump_json()
        assert text == BaseModel.model_dump_json(event)
        again = type(event).model_validate_json(text)
        assert again == event and again.model_dump_json() == text
    assert event.model_dump_json(indent=2) == BaseModel.model_dump_json(event, indent=2)


def test_a_trusted_event_is_frozen_like_any_other() -> None:
    event = ev.Burn.trusted(venue="v", table="t", seq=1, ts="2026-11-29T21:00:00.123Z",
                            hand=1, before="flop", index=9)
    with pytest.raises(Exception, match="frozen"):
        event.index = 3  # type: ignore[misc]
    assert hash(event) == hash(ev.Burn(**event.model_dump()))


def test_a_missing_or_unknown_field_is_not_trusted_but_refused_by_validation() -> None:
    envelope: dict[str, Any] = {"venue": "v", "table": "t", "seq": 1,
                                "ts": "2026-11-29T21:00:00.123Z", "hand": 1}
    with pytest.raises(ValueError, match="index"):
        ev.Burn.trusted(**envelope, before="flop")
    with pytest.raises(ValueError, match="colour"):
        ev.Burn.trusted(**envelope, before="flop", index=9, colour="red")


def test_defaults_are_fresh_for_each_trusted_event() -> None:
    envelope: dict[str, Any] = {"venue": "v", "table": "t", "seq": 1,
                                "ts": "2026-11-29T21:00:00.123Z", "hand": None}
    a, b = ev.AlertDetail.trusted(**envelope, id="x"), ev.AlertDetail.trusted(**envelope, id="y")
    assert a.cards == [] and a.evidence == {} and a.cards is not b.cards
    assert a.evidence is not b.evidence
    assert a == ev.AlertDetail(**envelope, id="x")


def test_seat_and_counter_records_built_without_validation_are_what_validation_builds() -> None:
    """The records inside hand_started, hand_ended and device_status are built the same way."""
    cases: list[tuple[type[ev.Trusted], dict[str, Any]]] = [
        (ev.SeatInfo, {"seat": 3, "name": "Ann", "stack": 1500, "unverified": False}),
        (ev.SeatInfo, {"seat": 7, "name": "Bo \"B\"", "stack": 0, "unverified": True}),
        (ev.SeatInfo, {"seat": 1, "name": "Cy", "stack": 20}),
        (ev.Counters, {"ok": 9, "bad": 2, "lost": 1, "bad_crc": 1, "malformed": 1,
                       "too_long": 0, "garbage": 0, "unknown_type": 0, "duplicate": 3}),
    ]
    for cls, given in cases:
        trusted = cls.trusted(**given)
        validated = cls(**given)
        assert trusted == validated
        assert trusted.model_dump_json() == validated.model_dump_json()
        assert trusted.model_fields_set == validated.model_fields_set
