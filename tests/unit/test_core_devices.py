"""Device health and link counters, as a technician sees them in device_status."""

from __future__ import annotations

from tablesvc.core import events as ev
from tests.helpers import Script, make_core


def statuses(core, inputs) -> list[ev.DeviceStatus]:
    out = []
    for inp in inputs:
        out += [e for e in core.apply(inp).events if isinstance(e, ev.DeviceStatus)]
    return out


def test_port_open_then_silence_goes_stale_after_three_seconds_then_offline_on_unplug():
    core = make_core()
    s = Script()
    seen = statuses(core, [s.port("shoe", True), s.frame("shoe", "HELLO", "SH-1", "2.1", "TSP1")])
    assert [(x.device, x.state) for x in seen] == [("shoe", "online"), ("shoe", "online")]
    assert (seen[-1].model, seen[-1].firmware) == ("SH-1", "2.1")
    deadline = core.next_deadline()
    assert deadline is not None and deadline == s.ms + 3000
    assert statuses(core, [s.tick(2000)]) == []
    stale = statuses(core, [s.tick(1000)])
    assert [(x.device, x.state) for x in stale] == [("shoe", "stale")]
    back = statuses(core, [s.frame("shoe", "HB", "5000")])
    assert [x.state for x in back] == ["online"]
    gone = statuses(core, [s.port("shoe", False)])
    assert [(x.state, x.detail) for x in gone] == [("offline", "unplugged")]


def test_bad_frames_are_counted_by_kind_and_the_frames_around_them_survive():
    core = make_core()
    s = Script()
    good = s.frame("console", "BTN", "NEWHAND")
    inputs = [
        s.raw("console", "noise before a dollar"),
        s.raw("console", "$console,5,BTN,NEWHAND*0000"),  # bad CRC
        s.raw("console", "$console,5,BTN*"),  # malformed
        s.raw("console", "$" + "x" * 1100),  # too long
        good,
    ]
    events = []
    for inp in inputs:
        events += core.apply(inp).events
    assert any(isinstance(e, ev.HandStarted) for e in events)
    c = core.links["console"].counters
    assert (c.garbage, c.bad_crc, c.malformed, c.too_long, c.ok) == (1, 1, 1, 1, 1)


def test_frame_type_a_device_kind_does_not_send_is_counted_unknown_and_ignored():
    core = make_core()
    s = Script()
    out = core.apply(s.frame("chips", "DRAW", "0123456789ABCDEF", "D"))
    assert core.links["chips"].counters.unknown_type == 1
    assert not [e for e in out.events if e.type == "alert"]
    assert any("unknown_type" in str(n.fields.get("reason")) for n in out.notes)


def test_seq_gap_counts_lost_frames_and_repeat_counts_duplicate():
    core = make_core()
    s = Script()
    core.apply(s.frame("shoe", "HB", "1"))
    s.seqs["shoe"] += 3  # three frames never arrive
    core.apply(s.frame("shoe", "HB", "2"))
    repeat = s.raw("shoe", core_last_line(s, "shoe", "HB", "2"))
    core.apply(repeat)
    c = core.links["shoe"].counters
    assert (c.lost, c.duplicate, c.ok) == (3, 1, 2)


def core_last_line(s: Script, dev: str, *fields: str) -> str:
    from drivers.tsp import Frame, encode

    return encode(Frame(dev, s.seqs[dev], fields[0], fields[1:])).decode().rstrip()


def test_error_counter_updates_are_published_at_most_once_a_second():
    core = make_core()
    s = Script(step_ms=10)
    core.apply(s.frame("cards", "HB", "1"))
    published = statuses(core, [s.raw("cards", "garbage") for _ in range(50)])
    assert len(published) <= 1  # 50 bad lines within 0.5 s: not 50 events
    assert core.next_deadline() is not None
    later = statuses(core, [s.tick(1500)])
    assert later and later[-1].counters.garbage == 50
