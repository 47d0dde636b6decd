"""A short room soak through the core: random accidents, both games, with and without stack
zones; after each, the table is followed again and the floor got at most the one alert the
accident is worth (``tests.room_soak``). ``make soak`` runs the long one, and the live one
with ``tablesvc run``, mosquitto and ptys.
"""

from __future__ import annotations

import pytest

from tests.room_soak import soak


@pytest.mark.parametrize("stack_zones", [False, True], ids=["counted", "stack-zones"])
@pytest.mark.parametrize("variant", ["holdem", "draw5"])
def test_after_every_accident_the_next_hands_are_followed_and_it_is_one_alert_at_most(
        variant: str, stack_zones: bool) -> None:
    verdicts = [v for seed in range(1, 9) for v in soak(variant, seed, 6, hands=40,
                                                   stack_zones=stack_zones)]
    assert len(verdicts) >= 8, "the sessions were too short to hold the accidents"
    failed = [f"{v.accident}: {'; '.join(v.problems)}" for v in verdicts if not v.ok]
    assert not failed, "\n".join(failed)
    assert sum(v.followed for v in verdicts) >= len(verdicts)  # hands were judged
    kinds = {v.accident.kind for v in verdicts}
    assert len(kinds) >= 4, kinds  # a mix, not one kind of accident
