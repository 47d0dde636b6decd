"""PHH in and out: a hand history dealt on the virtual table comes back from the service.

The file is the reference: dealt exactly by the simulator, read off the wire by the service,
written again by the service as PHH — the same hole cards, board, actions and final stacks.
"""

from __future__ import annotations

import tomllib

import pytest

from simulators.phh import loads_phh
from simulators.virtual import recorded_table
from tablesvc.core import events as ev
from tablesvc.core.phh import loads
from tests.helpers import track
from tests.integration.test_sim_phh import FIXED, HEADS_UP, RING
from tests.unit.test_sim_omaha import THREE_HANDED as OMAHA


@pytest.mark.parametrize("text", [RING, HEADS_UP, FIXED, OMAHA],
                         ids=["ring", "heads-up", "fixed", "pot-limit-omaha"])
def test_phh_file_dealt_on_the_table_comes_back_from_the_service_unchanged(text: str) -> None:
    script = loads_phh(text)
    table, frames = recorded_table(dict(script.stacks), seed=3, small_blind=script.small_blind,
                                   big_blind=script.big_blind, variant=script.variant)
    table.play_script(script)
    names = dict(zip(script.seats, script.players, strict=False)) if script.players else {}
    events = track(frames, stacks=dict(script.stacks), button=script.button, deck=table.deck,
                   chips=table.chip_values, names=names, limit=script.limit.value,
                   small_blind=script.small_blind, big_blind=script.big_blind,
                   ante=script.ante, ante_mode=script.ante_mode, variant=script.variant)
    assert not [e.name for e in events if isinstance(e, ev.Alert) and e.severity != "info"]
    written = [e.phh for e in events if isinstance(e, ev.HandHistory)]
    assert len(written) == 1
    out = loads(written[0])
    source = tomllib.loads(text)
    assert out.variant == source["variant"]
    assert out.actions == [a for a in source["actions"] if " sm" not in a]
    assert out.starting_stacks == source["starting_stacks"]
    assert out.seats == source.get("seats", list(script.seats))
    if "finishing_stacks" in source:
        assert out.finishing_stacks == source["finishing_stacks"]
    if script.players:
        assert out.players == list(script.players)
