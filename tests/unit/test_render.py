"""The demo's one-line event rendering: what a watcher of a draw game reads."""

from __future__ import annotations

from tablesvc.commands.render import describe


def test_a_draw_game_reads_as_draw_not_as_hold_em_blinds() -> None:
    started = {"type": "hand_started", "variant": "draw5", "button": 4, "ante": 25,
               "carried_pot": 75, "seats": [{"seat": 1, "name": "Ann", "stack": 975}],
               "small_blind": 0, "big_blind": 0, "small_blind_seat": None,
               "big_blind_seat": None}
    assert describe(started) == "five-card draw, dealer 4, ante 25, carried pot 75 · 1:Ann 975"
    assert describe({"type": "draw", "seat": 2, "discarded": 3, "received": 3}) == \
        "seat 2 draws 3"
    assert describe({"type": "draw", "seat": 2, "discarded": 0, "received": 0}) == \
        "seat 2 stands pat"
    assert describe({"type": "hand_ended", "reason": "checked_out", "carried_pot": 100,
                     "stacks": []}) == "checked_out · 100 stays in the pot · "
