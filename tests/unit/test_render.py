"""The demo's one-line event rendering: what a watcher of a draw game, or of Omaha, reads."""

from __future__ import annotations

import pytest

from tablesvc.commands import render as render_module
from tablesvc.commands.render import describe, render
from tablesvc.core.events import EVENT_TYPES


def test_a_draw_game_reads_as_draw_not_as_hold_em_blinds() -> None:
    started = {"type": "hand_started", "variant": "draw5", "button": 4, "ante": 25,
               "carried_pot": 75, "seats": [{"seat": 1, "name": "Ann", "stack": 975}],
               "small_blind": 0, "big_blind": 0, "small_blind_seat": None,
               "big_blind_seat": None}
    assert describe(started) == "Five-card draw, dealer 4, ante 25, carried pot 75 · 1:Ann 975"
    assert describe({**started, "limit": "fixed-limit"}).startswith(
        "Fixed-limit five-card draw, dealer 4, ante 25")
    assert describe({"type": "draw", "seat": 2, "discarded": 3, "received": 3}) == \
        "seat 2 draws 3"
    assert describe({"type": "draw", "seat": 2, "discarded": 0, "received": 0}) == \
        "seat 2 stands pat"
    assert describe({"type": "hand_ended", "reason": "checked_out", "carried_pot": 100,
                     "stacks": []}) == "checked_out · 100 stays in the pot · "


def test_a_hand_names_its_game_pot_limit_omaha_and_one_not_known_yet_by_its_ids() -> None:
    started = {"type": "hand_started", "variant": "omaha", "limit": "pot-limit", "button": 6,
               "small_blind_seat": 1, "big_blind_seat": 2, "small_blind": 50, "big_blind": 100,
               "ante": 0, "seats": [{"seat": 1, "name": "Ann", "stack": 10000},
                                    {"seat": 2, "name": "Ben", "stack": 9000}],
               "seq": 41, "hand": 7, "ts": "2026-12-01T20:00:00.123Z"}
    line = "Pot-limit Omaha, button 6, blinds 50/100 (SB 1, BB 2) · 1:Ann 10000, 2:Ben 9000"
    assert describe(started) == line
    assert render(started).plain.endswith(f"hand_started   {line}")
    assert describe({**started, "variant": "holdem", "limit": "no-limit"}).startswith(
        "No-limit Hold'em, button 6")
    assert describe({**started, "variant": "omaha5"}).startswith(
        "Pot-limit five-card Omaha, button 6")
    assert describe({**started, "variant": "razz", "limit": "spread-limit"}).startswith(
        "Spread-limit razz, button 6")
    assert describe({k: v for k, v in started.items() if k not in ("variant", "limit")}
                    ).startswith("button 6, blinds 50/100")  # an event that names no game


def test_every_event_type_is_followed_by_a_space_the_longest_service_started_too(
        monkeypatch: pytest.MonkeyPatch) -> None:
    started = {"type": "service_started", "version": "0.1.0", "boot": 1, "seq": 1,
               "hand": None, "ts": "2026-12-01T20:00:00.001Z"}
    assert render(started).plain.endswith("service_started version 0.1.0, boot 1")
    monkeypatch.setattr(render_module, "describe", lambda e: "what")
    for kind in EVENT_TYPES:
        name = kind.model_fields["type"].default
        assert render({"type": name}).plain.endswith(f"{name} what".replace(
            " ", " " * max(1, 15 - len(name)))), name  # never glued to what follows
    monkeypatch.undo()
    # the column stays 15 wide for the shorter names
    assert render({"type": "burn", "before": "flop", "index": 3}).plain.endswith(
        "burn           burn before the flop (#3)")
