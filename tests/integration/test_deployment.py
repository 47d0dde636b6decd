"""An edge box that installs and runs itself: private storage, clear refusals, metrics.

``tablesvc run`` is started as systemd starts it (its own process). What a technician relies
on: hole cards on disk are readable by the service's user only; a config, registry or storage
problem ends the process with exit status 2 (the unit's RestartPreventExitStatus, so systemd
does not restart it in a loop) and one line that names the file; the metrics endpoint, when
configured, answers Prometheus with the table's figures.
"""

from __future__ import annotations

import json
import stat
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from simulators.virtual import VirtualTableRig
from tablesvc.brokers.mosquitto import Mosquitto, free_port, wait_until
from tests.conftest import ROOT, ServiceProcess, Subscriber
from tests.integration.conftest import start_service, write_config

pytestmark = pytest.mark.integration


def hands_ended(sub: Subscriber) -> int:
    return sum(1 for e in sub.events() if e["type"] == "hand_ended")


def run(cfg: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablesvc.commands.cli", "run", "--config",
                           str(cfg), "--log", "json"], capture_output=True, text=True, cwd=ROOT,
                          timeout=60)


def test_journal_outbox_and_hand_histories_are_readable_by_the_services_user_only(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    # an older version left the storage dir and a hand history readable by everyone
    store = tmp_path / "store"
    (store / "hands").mkdir(parents=True)
    old = store / "hands" / "t01-000000.phh"
    old.write_text("hole cards of an old hand")
    store.chmod(0o755)
    (store / "hands").chmod(0o755)
    old.chmod(0o644)
    sub = subscriber_factory("tablesvc/#")
    _, svc = start_service(tmp_path, rig, broker, service_factory, sub)
    rig.table.play_hand()
    wait_until(lambda: hands_ended(sub) == 1, 20, "the hand")
    assert svc.stop() == 0
    paths = [store, *store.rglob("*")]
    names = {p.relative_to(store).as_posix() for p in paths}
    assert {"journal", "outbox.sqlite", "hands"} <= names
    assert any(n.startswith("hands/") and n != "hands/t01-000000.phh" for n in names)
    loose = [(p.relative_to(tmp_path).as_posix(), oct(stat.S_IMODE(p.stat().st_mode)))
             for p in paths if not p.is_symlink() and stat.S_IMODE(p.stat().st_mode)
             != (0o700 if p.is_dir() else 0o600)]
    assert loose == []


def test_run_refuses_a_missing_password_file_with_exit_2_and_a_line_naming_it(
        tmp_path: Path, rig: VirtualTableRig) -> None:
    cfg = write_config(tmp_path, rig, free_port(),
                       extra="").read_text().replace(
        "[mqtt]\n", f'[mqtt]\nusername = "t01"\npassword_file = "{tmp_path / "mqtt.pass"}"\n')
    path = tmp_path / "table.toml"
    path.write_text(cfg)
    done = run(path)
    assert done.returncode == 2
    assert f"{path}: mqtt.password_file: {tmp_path / 'mqtt.pass'} does not exist" in done.stderr
    assert "Traceback" not in done.stderr


def test_run_on_storage_it_cannot_use_exits_2_naming_the_file(
        tmp_path: Path, rig: VirtualTableRig) -> None:
    cfg = write_config(tmp_path, rig, free_port())
    store = tmp_path / "store"
    (store / "outbox.sqlite").mkdir(parents=True)  # where the outbox's file should be
    done = run(cfg)
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if "cannot start" in line]
    assert len(lines) == 1 and str(store / "outbox.sqlite") in lines[0], done.stderr
    assert "Traceback" not in done.stderr
    # a storage dir that cannot be created is found before anything starts
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    cfg.write_text(cfg.read_text().replace(f'dir = "{store}"', f'dir = "{blocker / "store"}"'))
    done = run(cfg)
    assert done.returncode == 2
    assert f"{cfg}: storage.dir: {blocker / 'store'} does not exist and cannot be created" in (
        done.stderr)


def test_the_metrics_endpoint_reports_frames_events_alerts_hands_the_outbox_syncs_and_steps(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    port = free_port()
    sub = subscriber_factory("tablesvc/#")
    _, svc = start_service(tmp_path, rig, broker, service_factory, sub,
                           extra=f"[metrics]\nport = {port}\n")
    rig.table.play_hand()
    wait_until(lambda: hands_ended(sub) == 1, 20, "the hand")

    def scrape() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
            text = r.read().decode()
        return {(s.name, tuple(sorted(s.labels.items()))): s.value
                for fam in text_string_to_metric_families(text) for s in fam.samples}

    wait_until(lambda: scrape()[("tablesvc_outbox_depth", ())] == 0, 10, "every event acked")
    # the hand's checkpoint is written by a thread of its own: wait for it, not a guess
    wait_until(lambda: scrape().get(("tablesvc_checkpoints_total", (("result", "synced"),)),
                                    0) >= 1, 10, "the hand's checkpoint")
    m = scrape()
    assert svc.stop() == 0
    for device in ("shoe", "cards", "chips", "console"):
        assert m[("tablesvc_frames_total", (("device", device), ("result", "ok")))] > 0
        assert m[("tablesvc_frames_total", (("device", device), ("result", "lost")))] == 0
        assert m[("tablesvc_device_online", (("device", device),))] == 1
    public = len(sub.events("events")) + len(sub.events("alerts"))
    assert m[("tablesvc_events_published_total", ())] >= public
    assert m[("tablesvc_publish_refused_total", ())] == 0
    assert m[("tablesvc_hands_total", ())] == 1
    alerts = [e for e in sub.events() if e["type"] == "alert"]
    assert m[("tablesvc_alerts_total", (("severity", "info"),))] == sum(
        1 for e in alerts if e["severity"] == "info")
    assert m[("tablesvc_inflight", ())] >= 0
    assert m[("tablesvc_broker_connected", ())] == 1
    assert ("tablesvc_recovery_seconds", ()) in m
    # the hand's end was checkpointed (the first of a run is synced), and none failed
    assert m[("tablesvc_checkpoints_total", (("result", "synced"),))] >= 1
    assert m[("tablesvc_checkpoints_total", (("result", "failed"),))] == 0
    assert ("tablesvc_checkpoints_total", (("result", "unsynced"),)) in m
    # the disk's syncs, each one a wait of every event behind it
    syncs = m[("tablesvc_journal_sync_seconds_count", ())]
    assert syncs >= 1
    assert m[("tablesvc_journal_sync_seconds_bucket", (("le", "+Inf"),))] == syncs
    assert m[("tablesvc_journal_sync_seconds_sum", ())] > 0
    # the service's own steps on the way of an event: the batch's work, the publisher's hop
    for step in ("tablesvc_pipeline_work_seconds", "tablesvc_publish_handover_seconds"):
        n = m[(f"{step}_count", ())]
        assert n >= 1, step
        assert m[(f"{step}_bucket", (("le", "+Inf"),))] == n
        assert m[(f"{step}_bucket", (("le", "0.0001"),))] <= n
        assert m[(f"{step}_sum", ())] > 0


def test_each_port_event_is_one_log_line_and_info_alerts_are_logged_at_info(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    sub = subscriber_factory("tablesvc/#")
    _, svc = start_service(tmp_path, rig, broker, service_factory, sub)
    rig.table.play_hand()
    wait_until(lambda: hands_ended(sub) == 1, 20, "the hand")
    rig.unplug("chips")
    wait_until(lambda: "port closed" in svc.logs(), 10, "the unplugged port")
    assert svc.stop() == 0
    lines = [json.loads(line) for line in svc.logs().splitlines() if line.startswith("{")]
    ports = [(r["event"], r.get("device")) for r in lines if "port" in r["event"]
             or "transport" in r["event"]]
    devices = ("shoe", "cards", "chips", "console")
    # each opened once, and closed once: the chips when unplugged, the others at the stop
    assert sorted(ports) == sorted([("port open", d) for d in devices]
                                   + [("port closed", d) for d in devices])
    closed = {r["device"]: r for r in lines if r["event"] == "port closed"}
    assert closed["chips"]["level"] == "warning" and closed["chips"]["url"].endswith("chips")
    assert closed["shoe"]["level"] == "info" and closed["shoe"]["detail"] == "stopped"
    alerts = [r for r in lines if r["event"] == "alert"]
    assert alerts and all(r["level"] == {"info": "info", "warning": "warning",
                                         "critical": "error"}[r["severity"]] for r in alerts)
    assert any(r["severity"] == "info" for r in alerts)


def test_a_long_recovery_says_how_far_it_has_come(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import structlog

    from tablesvc.config.table import load_config
    from tablesvc.core.inputs import format_ts
    from tablesvc.pipeline import recovery
    from tablesvc.pipeline import service as service_module

    store = tmp_path / "store"
    store.mkdir()
    t0 = 1_796_000_000_000
    # the journal of an older install: one file, 3,000 inputs
    (store / "journal.jsonl").write_text("".join(
        json.dumps({"ts": format_ts(t0 + n * 1000), "src": "tick"}) + "\n"
        for n in range(3000)))
    (tmp_path / "decks").mkdir()
    cfg = tmp_path / "table.toml"
    cfg.write_text(f'[table]\nvenue = "v"\nid = "t"\n[storage]\ndir = "{store}"\n')
    monkeypatch.setattr(recovery, "PROGRESS_S", 0.0)  # every 1,000 inputs
    service = service_module.Service(load_config(cfg), cfg)
    with structlog.testing.capture_logs() as logs:
        service.recover()
    service.outbox.close()
    progress = [r["inputs"] for r in logs if r["event"] == "recovering: replaying the journal"]
    assert progress == [1000, 2000, 3000]
