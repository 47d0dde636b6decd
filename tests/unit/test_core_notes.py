"""The core's notes for the service log read as a problem only when there is one: a device
that restarted lost nothing it can count, and is said so at info; frames missing from its seq
are a warning with their count."""

from __future__ import annotations

from typing import Any

import pytest

from tablesvc.core.emitter import Note
from tests.room import Reader, Session


@pytest.fixture(scope="module")
def session() -> Session:
    return Session({1: 5000, 3: 5000, 4: 5000}, hands=2, seed=5, aggression=0.2)


def noting(r: Reader) -> list[Note]:
    """Every note the reader's core writes from now on."""
    notes: list[Note] = []
    apply = r.core.apply

    def recorded(inp: Any) -> Any:
        out = apply(inp)
        notes.extend(out.notes)
        return out

    r.core.apply = recorded  # type: ignore[method-assign]
    return notes


def test_a_device_restarted_mid_hand_is_an_info_note_not_frames_lost(session: Session) -> None:
    r = Reader(session)
    hand = session.hand(1)
    r.frames(hand[:20])
    notes = noting(r)
    r.reboot("shoe")
    r.frames(hand[20:])
    said = [(n.level, n.message, n.fields.get("device")) for n in notes
            if n.fields.get("device") == "shoe"]
    assert ("info", "device restarted", "shoe") in said
    assert not [n for n in notes if n.message == "frames lost"]
    assert not [n for n in notes if n.level == "warning" and n.fields.get("count") == 0]


def test_frames_missing_from_a_devices_seq_are_a_warning_with_their_count(
        session: Session) -> None:
    r = Reader(session)
    hand = session.hand(1)
    r.frames(hand[:20])
    notes = noting(r)
    r.seqs["shoe"] += 2  # two frames the line dropped
    r.frames(hand[20:])
    lost = [n for n in notes if n.message == "frames lost"]
    assert [(n.level, n.fields["device"], n.fields["count"]) for n in lost] == [
        ("warning", "shoe", 2)]
