"""A table the console hears nothing from is silent (``tablesvc.floor.silence``): counted on
the console's own clock, from the later of its last message and the console's connection,
never while the console has no broker, and never for a table the broker says is offline."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from tablesvc.config.table import ConfigError
from tablesvc.floor.config import load_floor_config
from tablesvc.floor.db import open_sqlite
from tablesvc.floor.intake import Intake
from tablesvc.floor.silence import Silence, marked


def test_a_table_that_says_nothing_for_silent_after_s_is_silent_until_its_next_message(
        ) -> None:
    s = Silence(15)
    s.listening(0.0)
    s.heard("t01", 1.0)
    s.heard("t02", 1.0)
    assert s.silent_for("t01", 15.9) is None
    assert s.changes(15.9) == set()
    s.heard("t02", 10.0)  # a sign of life of the other table
    assert s.silent_for("t01", 16.5) == 15.5
    assert s.changes(16.5) == {"t01"}
    assert s.changes(17.0) == set()  # told once
    s.heard("t01", 20.0)  # the next message, retained or not, clears it
    assert s.silent_for("t01", 20.0) is None
    assert s.changes(20.0) == {"t01"}
    assert s.changes(24.9) == set()
    assert s.changes(25.0) == {"t02"}


def test_silence_is_counted_from_the_consoles_connection_and_never_without_a_broker() -> None:
    s = Silence(15)
    s.expect("t09")  # known from the store, not heard since the console started
    s.heard("t01", 0.0)
    assert s.silent_for("t09", 1000.0) is None  # not connected yet: nothing can be heard
    s.listening(100.0)
    assert s.silent_for("t01", 114.0) is None  # heard long ago, but the console just came
    assert s.silent_for("t09", 115.0) == 15.0
    assert s.changes(115.0) == {"t01", "t09"}
    s.listening(None)  # the console lost the broker: the tables are not to blame
    assert s.silent_for("t09", 200.0) is None
    assert s.changes(200.0) == {"t01", "t09"}


def test_an_offline_table_is_shown_offline_not_silent() -> None:
    assert marked({"id": "t01", "online": False}, 30.0)["silent_s"] is None
    assert marked({"id": "t01", "online": True}, 30.7)["silent_s"] == 30
    assert marked({"id": "t01", "online": None}, 16.0)["silent_s"] == 16  # no status yet
    assert marked({"id": "t01", "online": True}, None)["silent_s"] is None


def write(tmp: Path, text: str) -> Path:
    p = tmp / "floor.toml"
    p.write_text(text)
    return p


def test_silent_after_s_is_fifteen_seconds_unless_set_and_a_bad_value_names_file_and_key(
        tmp_path: Path) -> None:
    cfg = load_floor_config(write(tmp_path, '[floor]\nvenue = "hall"\n'))
    assert cfg.floor.silent_after_s == 15
    cfg = load_floor_config(write(tmp_path, '[floor]\nvenue = "hall"\nsilent_after_s = 30\n'))
    assert cfg.floor.silent_after_s == 30
    for value, says in (("0", "greater than or equal to 1"), ('"soon"', "a valid number"),
                        ("true", "a valid number"), ("7200", "less than or equal to 3600"),
                        ("nan", "a finite number")):
        path = write(tmp_path, f'[floor]\nvenue = "hall"\nsilent_after_s = {value}\n')
        with pytest.raises(ConfigError) as err:
            load_floor_config(path)
        assert str(path) in str(err.value)
        assert err.value.problems == [f"floor.silent_after_s: Input should be {says}"], value


@pytest.fixture
def intake(tmp_path: Path) -> Iterator[tuple[Intake, list[tuple[str, Any]]]]:
    cfg_path = write(tmp_path, '[floor]\nvenue = "hall"\nsilent_after_s = 15\n'
                     '[mqtt]\nusername = ""\n')
    told: list[tuple[str, Any]] = []
    i = Intake(load_floor_config(cfg_path), cfg_path, open_sqlite(tmp_path / "floor.sqlite"),
               lambda kind, payload: told.append((kind, payload)))
    yield i, told
    i.store.db.close()


def message(topic: str, body: dict[str, Any], mid: int) -> mqtt.MQTTMessage:
    m = mqtt.MQTTMessage(mid=mid, topic=topic.encode())
    m.payload = json.dumps(body).encode()
    m.qos = 1
    return m


def test_a_status_said_again_is_heard_but_neither_stored_nor_shown_again(
        intake: tuple[Intake, list[tuple[str, Any]]]) -> None:
    """Every table says its status every 5 s: the console notes that it heard it and has
    nothing to write or to redraw unless it changed."""
    i, told = intake
    i.silence.listening(time.monotonic() - 100)  # connected for a while, nothing heard
    assert i.silence.silent_for("t01", time.monotonic()) is not None
    status = {"state": "online", "version": "1", "boot": 2}
    for mid in (1, 2):
        i._on_message(i.client, None, message("tablesvc/v1/hall/t01/status", status, mid))
        assert i.silence.silent_for("t01", time.monotonic()) is None  # heard as it was read
        taken = i.inbox.take(10)
        assert taken is not None
        i._batch(taken[1], urgent=taken[0])
    assert [k for k, _ in told] == ["tables"]  # the second changed nothing to show
    assert i.stats["messages"] == 2
    assert i.queries.retained() == {"t01": {"status": status}}
    offline = {"state": "offline"}
    i._on_message(i.client, None, message("tablesvc/v1/hall/t01/status", offline, 3))
    taken = i.inbox.take(10)
    assert taken is not None
    i._batch(taken[1], urgent=taken[0])
    assert [k for k, _ in told] == ["tables", "tables"]
    assert i.snapshot()["tables"][0]["online"] is False
