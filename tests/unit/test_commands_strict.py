"""Commands are checked strictly by the core, and old journals replay as they were published.

A seat is a JSON integer within the table (``true`` is not seat 1), a stack an integer up to
``[game] max_stack``, a rule ID one of the catalogue's. A journal recorded by a version that
checked laxly holds commands that were accepted then; it must replay to the very events that
were published then, so the checks a command gets follow the service's start record.
"""

from __future__ import annotations

from typing import Any

import pytest

from tablesvc.core.commands import COMMAND_CHECKS
from tablesvc.core.emitter import Reply
from tablesvc.core.inputs import ServiceStart, format_ts, input_from_record, record_of
from tablesvc.core.table import TableCore
from tests.helpers import Script, make_core


def answer(core: TableCore, script: Script, command: str, /, **body: Any) -> Reply:
    return core.apply(script.cmd(command, **body)).replies[0]


@pytest.mark.parametrize(("name", "body", "words"), [
    ("seat", {"seat": True, "name": "X", "stack": 100}, "seat: Input should be a valid integer"),
    ("seat", {"seat": "2", "name": "X", "stack": 100}, "seat: Input should be a valid integer"),
    ("seat", {"seat": 2.0, "name": "X", "stack": 100}, "seat: Input should be a valid integer"),
    ("seat", {"seat": 9, "name": "X", "stack": 100}, "seat 9 does not exist (the table has 8"),
    ("seat", {"seat": 2, "name": "X", "stack": 10**30}, "stack: must be at most 50000"),
    ("seat", {"seat": 2, "name": "X", "stack": False}, "stack: Input should be a valid integer"),
    ("unseat", {"seat": 11}, "seat: Input should be less than or equal to 10"),
    ("button", {"seat": True}, "seat: Input should be a valid integer"),
    ("configure", {"big_blind": 10**9}, "big_blind: must be at most 50000"),
    ("configure", {"ante": True}, "ante: Input should be a valid integer"),
    ("declare", {"ruling": "suspend_rule", "rule": "SEAT-99"},
     "rule: SEAT-99 is not a rule of the rules catalogue"),
    ("declare", {"ruling": "dead_hand", "seat": 0}, "seat: Input should be greater than"),
    ("ack_alert", {"alert_id": 7}, "alert_id: Input should be a valid string"),
    ("seat", {"request_id": True, "seat": 2, "name": "X", "stack": 1},
     "request_id: must be a string or an integer"),
], ids=lambda v: str(v)[:30] if isinstance(v, str) else None)
def test_a_command_with_a_value_of_the_wrong_kind_or_out_of_range_is_refused_saying_which(
        name: str, body: dict[str, Any], words: str) -> None:
    core = make_core({1: 9600}, seats=8, max_stack=50_000)
    reply = answer(core, Script(), name, **body)
    assert not reply.ok
    assert words in str(reply.error)
    assert core.players[1].stack == 9600


def test_a_well_formed_command_within_the_limits_is_carried_out() -> None:
    core = make_core({1: 9600}, seats=8, max_stack=50_000)
    script = Script()
    assert answer(core, script, "seat", seat=8, name="Eve", stack=50_000, request_id="r1").ok
    assert answer(core, script, "declare", ruling="suspend_rule", rule="SEAT-10").ok
    assert core.players[8].stack == 50_000


def start(script: Script, checks: int | None) -> ServiceStart:
    script.ms += 10
    if checks is None:  # a start record of a version before the strict checks
        return ServiceStart(format_ts(script.ms), script.ms, "0.1.0")
    return ServiceStart(format_ts(script.ms), script.ms, "0.2.0", checks)


def test_a_journal_of_the_lax_version_replays_its_accepted_commands_as_they_were_published(
        ) -> None:
    core = make_core({1: 9600, 2: 5000})
    script = Script()
    core.apply(start(script, None))
    # accepted then: `true` was taken as seat 1 and the seated player's stack replaced
    assert answer(core, script, "seat", seat=True, name="Ann", stack=100).ok
    assert core.players[1].stack == 100
    # after an upgrade the journal continues with a start record of the strict version
    core.apply(start(script, COMMAND_CHECKS))
    reply = answer(core, script, "seat", seat=True, name="Ann", stack=9600)
    assert not reply.ok and "seat: Input should be a valid integer" in str(reply.error)
    assert core.players[1].stack == 100


def test_the_start_record_says_how_its_commands_were_checked_and_old_ones_mean_lax() -> None:
    script = Script()
    new = start(script, COMMAND_CHECKS)
    assert record_of(new)["start"] == {"version": "0.2.0", "command_checks": COMMAND_CHECKS}
    assert input_from_record(record_of(new)) == new
    old = {"ts": "2026-11-29T21:00:00.001Z", "src": "service", "start": {"version": "0.1.0"}}
    assert input_from_record(old).command_checks == 1  # type: ignore[union-attr]
    assert record_of(input_from_record(old)) == old  # written back byte for byte
    # a core that saw no start record (a replayed segment, a test) checks strictly
    assert make_core().command_checks == COMMAND_CHECKS


@pytest.mark.parametrize("name", ["Ann\x00", "Ann\nBob", "\u202eAnn", "Ann\u200b"],
                         ids=["nul", "newline", "right-to-left override", "zero width"])
def test_a_name_with_a_control_or_format_character_is_refused_naming_the_character(
        name: str) -> None:
    """A name is shown on screens, overlays and log lines as it is: a NUL, a newline or a
    right-to-left override would forge what they show."""
    core = make_core({1: 9600})
    reply = answer(core, Script(), "seat", seat=2, name=name, stack=100)
    assert not reply.ok and "no control or format characters (U+" in str(reply.error)
    assert 2 not in core.players


def test_a_journal_of_a_version_that_took_any_name_replays_it_as_published() -> None:
    core = make_core({1: 9600})
    script = Script()
    core.apply(start(script, 4))
    assert answer(core, script, "seat", seat=2, name="Ann\nBob", stack=100).ok
    assert core.players[2].name == "Ann\nBob"
