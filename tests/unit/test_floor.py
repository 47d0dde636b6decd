"""The floor console's pure parts: its config, what of a message it keeps, its logins, its
store (SQLite here, PostgreSQL in tests/integration/test_floor_postgres.py), the rule titles."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from tablesvc.config.table import ConfigError
from tablesvc.floor.auth import Sessions, hash_password, load_users, set_user, verify_password
from tablesvc.floor.config import load_floor_config
from tablesvc.floor.db import open_sqlite
from tablesvc.floor.intake import controller_alert
from tablesvc.floor.public import public_event, public_state
from tablesvc.floor.store import Queries, Store
from tablesvc.rules import load

ROOT = Path(__file__).resolve().parents[2]


def write(tmp: Path, text: str) -> Path:
    p = tmp / "floor.toml"
    p.write_text(text)
    return p


def test_a_floor_config_binds_to_loopback_without_login_by_default(tmp_path: Path) -> None:
    cfg = load_floor_config(write(tmp_path, '[floor]\nvenue = "hall"\n'))
    assert (cfg.web.host, cfg.web.users_file, cfg.mqtt.username) == ("127.0.0.1", "", "floor")


def test_an_exposed_console_without_logins_or_tls_is_refused_with_every_problem(
        tmp_path: Path) -> None:
    path = write(tmp_path, '[floor]\nvenue = "no spaces"\n[web]\nhost = "0.0.0.0"\nport = 99999\n'
                 'colour = "red"\n[mqtt]\nca_file = "missing.pem"\n')
    with pytest.raises(ConfigError) as err:
        load_floor_config(path)
    text = "\n".join(err.value.problems)
    assert "floor.venue: String should match pattern" in text
    assert "web.port: Input should be less than or equal to 65535" in text
    assert "web.colour: unknown key" in text
    # in the same pass (issue 32): what the exposed address lacks, on [web] as written, and
    # the missing file
    assert "web: host '0.0.0.0' is reachable from other machines: set users_file" in text
    assert "set cert_file and key_file (or behind_tls_proxy = true)" in text
    assert f"mqtt.ca_file: file {tmp_path / 'missing.pem'} not found" in text
    fixed = write(tmp_path, '[floor]\nvenue = "hall"\n[web]\nhost = "0.0.0.0"\n'
                  '[mqtt]\nca_file = "missing.pem"\n')
    with pytest.raises(ConfigError) as err2:
        load_floor_config(fixed)
    problems = err2.value.problems
    assert any("set users_file" in p for p in problems)
    assert any("cert_file and key_file" in p for p in problems)
    ok = write(tmp_path, '[floor]\nvenue = "hall"\n[mqtt]\nca_file = "missing.pem"\n')
    with pytest.raises(ConfigError) as err3:
        load_floor_config(ok)
    assert err3.value.problems == [f"mqtt.ca_file: file {tmp_path / 'missing.pem'} not found"]


def test_the_checks_of_a_list_and_of_storage_run_when_another_key_is_wrong_too(
        tmp_path: Path) -> None:
    """Table ids given twice beside an id that is no string, a storage URL of another
    database beside a misspelt key of [storage], certificate and key apart beside a web port
    out of range (issue 32: every problem in one pass)."""
    path = write(tmp_path, '[floor]\nvenue = "hall"\ntables = ["t01", 7, "t01", "no good"]\n'
                 '[storage]\nurl = "mysql://db/floor"\npth = "x"\n'
                 '[web]\nport = 99999\ncert_file = "c.pem"\n')
    with pytest.raises(ConfigError) as err:
        load_floor_config(path)
    assert sorted(err.value.problems) == sorted([
        "floor.tables.1: Input should be a valid string",
        "floor.tables: not table ids (1-32 of letters, digits, _ and -): ['no good']",
        "floor.tables: given twice: ['t01']",
        "storage.pth: unknown key (check the spelling)",
        "storage.url: only postgresql://... URLs are supported (leave it empty for the SQLite "
        "file)",
        "web.port: Input should be less than or equal to 65535",
        "web: cert_file and key_file go together",
        f"web.cert_file: file {tmp_path / 'c.pem'} not found"])


def test_an_exposed_console_with_logins_and_a_tls_proxy_is_accepted(tmp_path: Path) -> None:
    (tmp_path / "users").write_text("")
    cfg = load_floor_config(write(tmp_path, '[floor]\nvenue = "hall"\n[web]\nhost = "0.0.0.0"\n'
                                  'users_file = "users"\nbehind_tls_proxy = true\n'))
    assert cfg.web.https


@pytest.mark.parametrize(("event", "kept"), [
    ({"type": "hole_cards", "seat": 1, "cards": ["As", "Kd"]}, None),
    ({"type": "alert_detail", "id": "a1", "cards": ["As"]}, None),
    ({"type": "equity", "street": "flop"}, None),
    ({"type": "card_dealt", "seat": 1, "face_up": False, "card": "As"},
     {"type": "card_dealt", "seat": 1, "face_up": False}),
    ({"type": "card_dealt", "seat": 1, "face_up": True, "card": "As"},
     {"type": "card_dealt", "seat": 1, "face_up": True, "card": "As"}),
    ({"type": "showdown", "seat": 2, "tabled": False, "cards": ["2c", "7d"], "rank": "x"},
     {"type": "showdown", "seat": 2, "tabled": False, "rank": "x"}),
    ({"type": "showdown", "seat": 2, "tabled": True, "cards": ["2c", "7d"]},
     {"type": "showdown", "seat": 2, "tabled": True, "cards": ["2c", "7d"]}),
    ({"type": "alert", "id": "a1", "message": "m", "cards": ["As"], "evidence": {"c": "As"}},
     {"type": "alert", "id": "a1", "message": "m"}),
    ({"type": "board", "cards": ["As"], "board": ["As"]},
     {"type": "board", "cards": ["As"], "board": ["As"]}),
])
def test_the_console_keeps_no_hidden_card_even_when_a_public_message_carries_one(
        event: dict[str, Any], kept: dict[str, Any] | None) -> None:
    assert public_event(event) == kept


def test_the_table_state_is_reduced_to_what_the_grid_shows() -> None:
    state = {"hand": 3, "board": ["As"], "players": [], "holes": {"1": ["Kd", "Kc"]}}
    assert public_state(state) == {"hand": 3, "board": ["As"], "players": []}


def test_passwords_are_checked_against_scrypt_hashes_and_sessions_expire(tmp_path: Path) -> None:
    users = tmp_path / "users"
    assert set_user(users, "sam", "correct horse") is True
    assert set_user(users, "sam", "battery staple") is False  # a changed password
    assert (users.stat().st_mode & 0o077) == 0
    stored = load_users(users)["sam"]
    assert "battery" not in users.read_text()
    assert verify_password("battery staple", stored)
    assert not verify_password("correct horse", stored)
    assert not verify_password("x", hash_password("y"))
    sessions = Sessions(hours=1)
    token = sessions.create("sam")
    assert sessions.user(token) == "sam" and sessions.user("forged") is None
    sessions.ttl = -1
    expired = sessions.create("kim")
    assert sessions.user(expired) is None
    sessions.end(token)
    assert sessions.user(token) is None


def event(seq: int, etype: str, hand: int | None = 1, **kw: Any) -> dict[str, Any]:
    return {"v": 1, "venue": "hall", "table": "t01", "seq": seq, "prev_seq": seq - 1,
            "ts": f"2026-11-29T21:00:{seq:02d}.000Z", "hand": hand, "type": etype, **kw}


def alert(seq: int, name: str, rule: str, severity: str, seat: int | None) -> dict[str, Any]:
    return event(seq, "alert", id=f"t01-a{seq}", name=name, rule=rule, severity=severity,
                 seat=seat, message="m", remedy="r")


def test_the_store_keeps_each_event_once_and_finds_a_day_by_table_seat_rule_severity(
        tmp_path: Path) -> None:
    db = open_sqlite(tmp_path / "floor.sqlite")
    store, q = Store(db), Queries(db)
    stream = [event(1, "hand_started", seats=[], button=1),
              event(2, "action", seat=3, action="bet", amount=100),
              alert(3, "burn_missing", "BURN-04", "critical", None),
              alert(4, "card_exposed", "MISDEAL-12", "warning", 3),
              event(5, "hand_ended", reason="showdown", stacks=[]),
              event(6, "hand_started", hand=2, seats=[], button=2)]
    assert [store.add_event("t01", e) for e in stream] == [True] * 6
    # the copy from the alerts topic, and the broker's redelivery, change nothing
    assert store.add_event("t01", stream[2]) is False
    store.commit()
    day = q.search("2026-11-29")["alerts"][0]["day"]
    assert [a["rule"] for a in q.search(day)["alerts"]] == ["MISDEAL-12", "BURN-04"]
    assert [a["rule"] for a in q.search(day, rule="BURN-04")["alerts"]] == ["BURN-04"]
    assert [a["seat"] for a in q.search(day, seat=3)["alerts"]] == [3]
    assert [a["severity"] for a in q.search(day, severity="warning")["alerts"]] == ["warning"]
    assert [e["seq"] for e in q.search(day, table="t01", seat=3)["events"]] == [4, 2]
    assert q.search(day, table="t02")["alerts"] == []
    hands = q.hands("t01", day)
    assert [(h["hand"], h["reason"], h["alerts"]) for h in hands] == [
        (2, None, 0), (1, "showdown", 2)]
    one = q.hand("t01", 1)
    assert one is not None and [e["seq"] for e in one["events"]] == [1, 2, 3, 4, 5]
    # acknowledging: the first one stands, the table's answer is kept with it
    assert store.ack_sent("t01", 3, "sam", "2026-11-29T21:01:00Z", "floor-1", "sent")
    assert not store.ack_sent("t01", 3, "kim", "2026-11-29T21:02:00Z", "floor-2", "sent")
    assert store.ack_reply("t01", "floor-1", True, "acknowledged by the table") is not None
    store.commit()
    row = q.alert("t01", 3)
    assert row is not None
    assert (row["acked_by"], row["ack_state"], row["ack_reply"]) == (
        "sam", "ok", "acknowledged by the table")
    assert [a["seq"] for a in q.open_alerts()] == [4]


def test_the_shipped_rule_titles_are_what_the_catalogue_says() -> None:
    spec = importlib.util.spec_from_file_location("rule_titles", ROOT / "docs" / "rule_titles.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = gen
    spec.loader.exec_module(gen)
    fresh = gen.render(load())
    assert fresh == gen.OUTPUT.read_text(encoding="utf-8"), (
        f"tablesvc/floor/rule_titles.json is stale; regenerate it with\n  {gen.REGENERATE}")


def test_a_controller_alert_is_kept_under_a_seq_that_sorts_as_raised_and_repeats_for_a_copy(
        ) -> None:
    doc = {"id": "c-12", "name": "player_seated_twice", "rule": "TABLE-07",
           "severity": "critical", "message": "Dee is seated at t01 seat 4 and t02 seat 2",
           "remedy": "find the player", "at": "2026-12-01T20:00:00.250Z", "table": None,
           "seat": None, "player": None}
    first = controller_alert(doc)
    assert first is not None and first == controller_alert(dict(doc))  # a copy: the same seq
    later = controller_alert({**doc, "id": "c-13", "at": "2026-12-01T20:00:00.251Z"})
    new_event = controller_alert({**doc, "id": "c-1", "at": "2026-12-01T21:00:00.000Z"})
    assert later is not None and new_event is not None
    assert first["seq"] < later["seq"] < new_event["seq"] < 2**53  # exact in a page's numbers
    assert (first["type"], first["seat"], first["ts"]) == ("alert", None, doc["at"])
    for bad in ({**doc, "at": "yesterday"}, {**doc, "severity": "loud"}, {**doc, "id": 3}):
        assert controller_alert(bad) is None
