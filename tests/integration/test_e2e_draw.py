"""Five-card draw end to end: virtual devices on ptys -> ``tablesvc run`` -> mosquitto.

The same standards as hold'em: events in order on both feeds, the draw's cards only on the
secure feed until the showdown tables them, and a journal that replays to exactly what was
published.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from simulators.table import HandRecord
from simulators.virtual import VirtualTableRig
from tablesvc.brokers.mosquitto import Mosquitto, wait_until
from tests.conftest import ServiceProcess, Subscriber
from tests.integration.conftest import PLAYERS, PREFIX, SECURE, start_service
from tests.integration.test_e2e import assert_contiguous, hands_ended, replay

pytestmark = pytest.mark.integration


@pytest.fixture
def draw_rig(tmp_path: Path) -> Iterator[VirtualTableRig]:
    r = VirtualTableRig(tmp_path / "sim", seats=dict.fromkeys(PLAYERS, 5000), seed=5,
                        pace=0.01, chips=tmp_path / "chips.json", variant="draw5", ante=25)
    yield r
    r.close()


def test_draw_games_reach_subscribers_with_cards_only_on_secure_and_replay_exactly(
        tmp_path: Path, broker: Mosquitto, draw_rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    sub = subscriber_factory(f"{PREFIX}/#")
    cfg, svc = start_service(tmp_path, draw_rig, broker, service_factory, sub,
                             extra='[game]\nvariant = "draw5"\nante = 25\n')
    records: list[HandRecord] = [draw_rig.table.play_hand() for _ in range(3)]
    wait_until(lambda: hands_ended(sub) == 3, 30, "three games ended")
    assert svc.stop() == 0

    public = sub.events("events")
    secure = sub.events("secure/events")
    assert_contiguous(public)
    assert_contiguous(secure)
    started = [e for e in public if e["type"] == "hand_started"]
    assert [e["variant"] for e in started] == ["draw5"] * 3
    for record, start in zip(records, started, strict=True):
        hand = [e for e in public if e["hand"] == start["hand"]]
        assert start["button"] == record.button
        assert hand[-1]["type"] == "hand_ended" and hand[-1]["reason"] == record.outcome
        draws = {e["seat"]: e["received"] for e in hand if e["type"] == "draw"}
        assert draws == record.draws
        noisy = [e["name"] for e in hand if e["type"] == "alert" and e["severity"] != "info"]
        assert not noisy
    faces = {c for e in secure if e["type"] == "hole_cards" for c in e["cards"]}
    tabled = {c for e in public if e["type"] == "showdown" for c in e["cards"] or ()}
    with sub.lock:
        public_msgs = [m for m in sub.messages if "/secure/" not in m.topic]
    for m in public_msgs:
        if isinstance(m.payload, dict) and m.payload.get("type") == "showdown":
            continue
        text = json.dumps(m.payload)
        leaked = [c for c in faces | tabled if f'"{c}"' in text]
        assert not leaked, f"a card on public topic {m.topic}: {text[:200]}"
    replayed = replay(cfg)
    assert [e for e in replayed if e["type"] not in SECURE] == public
    assert [e for e in replayed if e["type"] in SECURE] == secure
