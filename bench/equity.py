"""Win probabilities: how long they take, alone and from the table to a subscriber.

1. The computation alone (``tablesvc.equity``), on the hand states a broadcast meets most
   (pre-flop heads-up, three- and six-handed, exact; the flop and the turn ten-handed), several
   runs each, beside the same computation done the plain way: a Python loop over every board
   calling the library evaluator (phevaluator's native seven-card evaluator) once per hand.
   Omaha likewise (issue 31): two, four and six hands pre-flop (boards sampled) and on the flop
   (every board), each run beside a plain loop over the same number of boards calling
   phevaluator's native Omaha evaluator (best of two hole and three board cards) once per hand,
   the two alternating so that both meet the same minutes of a shared machine.
2. Through the real service and broker: ``tablesvc run`` reads four-handed hands from ptys
   (the deal, one player folding by mucking his cards, the flop, the turn, the river) and the
   time is taken from the write of the frame that changes the odds (the last hole card, the
   first card of the fold into the muck, the card completing a street) to the arrival of its
   ``equity`` event at a subscriber of ``secure/events``. The next frame waits for it, as a
   real table takes seconds between such moments. Beside it, in the same run, the two legs
   every event has (``bench.baselines``: the journal's fdatasync and a broker round trip): an
   equity event waits for two syncs, its card's and its result's, plus the computation.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tty
from collections.abc import Iterator, Sequence
from math import comb
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from phevaluator import _pheval  # type: ignore[import-untyped]

from bench.baselines import Spread, broker_rtt_ms, fdatasync_ms, spread
from bench.latency import DEVICES, Feeder
from bench.service import stop
from bench.streams import BLIND, Stream, bench_chips, bench_deck, chip_of
from tablesvc.brokers.mosquitto import Mosquitto
from tablesvc.core.requests import EquityRequest
from tablesvc.equity import compute, warm_up

ROOT = Path(__file__).resolve().parents[1]
PREFIX = "tablesvc/v1/bench/t01"
PLAYERS = 4
TARGET_MS = 200.0
Key = tuple[int, str, int]  # hand, street, live seats

SPOTS: list[tuple[str, list[tuple[str, str]], list[str]]] = [
    ("pre-flop heads-up (AsKs v QdQh)", [("As", "Ks"), ("Qd", "Qh")], []),
    ("pre-flop three-handed", [("Ah", "Kh"), ("7c", "7d"), ("Js", "Ts")], []),
    ("pre-flop six-handed", [("Ah", "Kh"), ("7c", "7d"), ("Js", "Ts"), ("9d", "8d"),
                             ("Ac", "Qs"), ("5h", "5s")], []),
    ("flop ten-handed", [("Ah", "Kh"), ("7c", "7d"), ("Js", "Ts"), ("9d", "8d"), ("Ac", "Qs"),
                         ("5h", "5s"), ("Kc", "2d"), ("Jd", "Jc"), ("6s", "4s"), ("3c", "3d")],
     ["Th", "7h", "2c"]),
    ("turn ten-handed", [("Ah", "Kh"), ("7c", "7d"), ("Js", "Ts"), ("9d", "8d"), ("Ac", "Qs"),
                         ("5h", "5s"), ("Kc", "2d"), ("Jd", "Jc"), ("6s", "4s"), ("3c", "3d")],
     ["Th", "7h", "2c", "Qd"]),
]
IDS = {r + s: i * 4 + j for i, r in enumerate("23456789TJQKA") for j, s in enumerate("cdhs")}
OMAHA_HOLES = [("As", "Ad", "Ks", "Qd"), ("Jh", "Th", "9c", "8c"), ("Kh", "Kc", "7s", "6s"),
               ("Qh", "Jd", "Tc", "9d"), ("Ac", "5c", "4h", "3d"), ("8h", "8d", "7d", "2s")]
OMAHA_FLOP = ["Td", "9h", "4c"]


def plain_loop(holes: Sequence[tuple[str, str]], board: Sequence[str]) -> list[float]:
    """The baseline: every board, every hand, one call of the library evaluator each."""
    seen = {c for h in holes for c in h} | set(board)
    deck = [IDS[c] for c in IDS if c not in seen]
    hands = [(IDS[a], IDS[b]) for a, b in holes]
    known = [IDS[c] for c in board]
    evaluate = _pheval.evaluate_7cards
    shares = [0.0] * len(holes)
    for rest in itertools.combinations(deck, 5 - len(board)):
        cards = (*known, *rest)
        values = [evaluate(a, b, *cards) for a, b in hands]
        best = min(values)
        winners = [i for i, v in enumerate(values) if v == best]
        for i in winners:
            shares[i] += 1 / len(winners)
    return shares


def computation(runs: int, baseline_runs: int) -> list[dict[str, Any]]:
    warm_up()
    rows = []
    for name, holes, board in SPOTS:
        request = EquityRequest(1, 1, "holdem", "x", tuple(enumerate(holes, 1)), tuple(board))
        ours = []
        for _ in range(runs):
            t0 = time.perf_counter()
            figures = compute(request)
            ours.append((time.perf_counter() - t0) * 1000)
        plain = []
        for _ in range(baseline_runs):
            t0 = time.perf_counter()
            plain_loop(holes, board)
            plain.append((time.perf_counter() - t0) * 1000)
        hands = comb(52 - 2 * len(holes) - len(board), 5 - len(board)) * len(holes)
        row = {"spot": name, "hands": hands, "method": figures["method"], "ours_ms": ours,
               "plain_ms": plain}
        rows.append(row)
        print(f"{name}: {hands:,} hands ranked, {figures['method']}; tablesvc.equity "
              f"{_range(ours)} ms over {runs} runs; plain loop over phevaluator "
              f"{_range(plain)} ms over {baseline_runs} run(s); "
              f"{statistics.median(plain) / statistics.median(ours):,.0f}x", flush=True)
    return rows


def plain_omaha(holes: Sequence[Sequence[str]], board: Sequence[str],
                samples: int) -> list[float]:
    """The Omaha baseline: every board (or ``samples`` boards drawn at random when the board
    is empty, as many as the engine samples), every hand, one call of the library's Omaha
    evaluator each."""
    seen = {c for h in holes for c in h} | set(board)
    deck = [IDS[c] for c in IDS if c not in seen]
    hands = [[IDS[c] for c in h] for h in holes]
    known = [IDS[c] for c in board]
    evaluate = _pheval.evaluate_omaha_cards
    rng = random.Random(1)
    boards: Iterator[tuple[int, ...]] | list[tuple[int, ...]]
    if board:
        boards = itertools.combinations(deck, 5 - len(board))
    else:
        boards = [tuple(rng.sample(deck, 5)) for _ in range(samples)]
    shares = [0.0] * len(holes)
    for rest in boards:
        cards = (*known, *rest)
        values = [evaluate(*cards, *h) for h in hands]
        best = min(values)
        winners = [i for i, v in enumerate(values) if v == best]
        for i in winners:
            shares[i] += 1 / len(winners)
    return shares


def omaha_computation(runs: int) -> list[dict[str, Any]]:
    """Omaha, 2, 4 and 6 hands, pre-flop and on the flop: each run of ``compute`` followed by
    one run of the plain loop over as many boards."""
    warm_up()
    rows = []
    for players in (2, 4, 6):
        holes = OMAHA_HOLES[:players]
        for street, board in (("pre-flop", []), ("flop", OMAHA_FLOP)):
            request = EquityRequest(1, 1, "omaha", "x", tuple(enumerate(holes, 1)),
                                    tuple(board))
            ours, plain = [], []
            for _ in range(runs):
                t0 = time.perf_counter()
                figures = compute(request)
                ours.append((time.perf_counter() - t0) * 1000)
                t0 = time.perf_counter()
                plain_omaha(holes, board, figures["samples"])
                plain.append((time.perf_counter() - t0) * 1000)
            name = f"Omaha {street} {players}-handed"
            hands = figures["samples"] * players
            met = "met" if max(ours) <= TARGET_MS else "NOT met"
            rows.append({"spot": name, "hands": hands, "method": figures["method"],
                         "ours_ms": ours, "plain_ms": plain})
            error = f", error {figures['error']} points" if figures["error"] else ""
            print(f"{name}: {figures['samples']:,} boards x {players} hands, "
                  f"{figures['method']}{error}; tablesvc.equity {_range(ours)} ms; plain loop "
                  f"over phevaluator's Omaha evaluator {_range(plain)} ms; "
                  f"{_ratio(statistics.median(plain) / statistics.median(ours))}x; within "
                  f"{TARGET_MS:.0f} ms every run: {met}", flush=True)
    return rows


def _ratio(r: float) -> str:
    return f"{r:,.0f}" if r >= 10 else f"{r:.2g}"


def _range(ms: Sequence[float]) -> str:
    return f"{min(ms):,.1f}-{max(ms):,.1f} (median {statistics.median(ms):,.1f})"


# ------------------------------------------------------------------ through the service
def hands(stream: Stream) -> Iterator[tuple[str, bytes, Key | None]]:
    """Four-handed hands: the deal, the first to act folds (his cards into the muck), the rest
    check it down. Each frame that changes the odds carries the key of its equity event."""
    uids = list(stream.deck)
    seats = list(range(1, PLAYERS + 1))
    button = seats[0]
    rng = random.Random(5)
    for hand in itertools.count(1):
        rng.shuffle(uids)
        yield (*stream.line("console", "BTN", "NEWHAND"), None)
        later = [s for s in seats if s > button]
        order = later + [s for s in seats if s <= button]
        sb, bb, utg = order[0], order[1], order[2]
        yield (*stream.line("chips", "CHIPS", f"B{sb}", chip_of(sb)), None)
        yield (*stream.line("chips", "CHIPS", f"B{bb}", chip_of(bb)), None)
        cards = iter(uids)
        held: dict[int, list[str]] = {s: [] for s in order}
        deal = [f"S{s}" for s in order] * 2
        for n, dest in enumerate(deal, 1):
            uid = next(cards)
            held[int(dest[1:])].append(uid)
            yield (*stream.line("shoe", "DRAW", uid, "D"), None)
            key = (hand, "preflop", PLAYERS) if n == len(deal) else None
            yield (*stream.line("cards", "ARR", dest, uid), key)
        live = [s for s in order if s != utg]
        yield (*stream.line("cards", "ARR", "MUCK", held[utg][0]), (hand, "preflop", len(live)))
        yield (*stream.line("cards", "ARR", "MUCK", held[utg][1]), None)
        for s in order[3:]:
            yield (*stream.line("chips", "CHIPS", f"B{s}", chip_of(s)), None)
        yield (*stream.line("console", "BTN", "CHECK", str(sb)), None)
        yield (*stream.line("console", "BTN", "CHECK", str(bb)), None)
        for s in live:
            yield (*stream.line("chips", "CHIPS", f"B{s}", ""), None)
        yield (*stream.line("chips", "CHIPS", "POT", " ".join(chip_of(s) for s in live)), None)
        for street, size in (("flop", 3), ("turn", 1), ("river", 1)):
            uid = next(cards)
            yield (*stream.line("shoe", "DRAW", uid, "D"), None)
            yield (*stream.line("cards", "ARR", "BURN", uid), None)
            for k in range(size):
                uid = next(cards)
                yield (*stream.line("shoe", "DRAW", uid, "D"), None)
                key = (hand, street, len(live)) if k == size - 1 else None
                yield (*stream.line("cards", "ARR", "BOARD", uid), key)
            for s in live:
                yield (*stream.line("console", "BTN", "CHECK", str(s)), None)
        yield (*stream.line("chips", "CHIPS", "POT", ""), None)
        for uid in uids[: 2 * PLAYERS + 8]:
            yield (*stream.line("cards", "ARR", "MUCK", uid), None)
        button = order[0]


class Equities:
    """Arrival times of equity events at a subscriber of secure/events."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.arrived: dict[Key, float] = {}
        self.online = threading.Event()
        self.devices: set[str] = set()
        self.public: list[float] = []  # arrival of every public event

    def on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        now = time.time()
        try:
            e = json.loads(msg.payload)
        except ValueError:
            return
        if msg.topic.endswith("/status"):
            if e.get("state") == "online":
                self.online.set()
            return
        if e.get("type") == "device_status" and e.get("state") == "online":
            self.devices.add(e["device"])
        if msg.topic.endswith("/events") and "/secure/" not in msg.topic:
            with self.lock:
                self.public.append(now)
        if e.get("type") == "equity":
            with self.lock:
                self.arrived.setdefault((e["hand"], e["street"], len(e["seats"])), now)

    def first_public_after(self, t: float) -> float | None:
        with self.lock:
            return next((p for p in self.public if p >= t), None)

    def wait(self, key: Key, timeout: float) -> float | None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                if key in self.arrived:
                    return self.arrived[key]
            time.sleep(0.002)
        return None


def _config(d: Path, port: int) -> Path:
    players = "".join(f'[[players]]\nseat = {s}\nname = "P{s}"\nstack = 1000000000\n'
                      for s in range(1, PLAYERS + 1))
    (d / "chips.json").write_text(json.dumps({"chips": bench_chips(PLAYERS)}))
    devices = "".join(f'[devices.{n}]\nurl = "{d / n}"\n' for n in DEVICES)
    cfg = d / "table.toml"
    cfg.write_text(f'[table]\nvenue = "bench"\nid = "t01"\n'
                   f"[game]\nsmall_blind = {BLIND}\nbig_blind = {BLIND}\n{devices}{players}"
                   f'[mqtt]\nport = {port}\nprotocol = "5"\n[storage]\ndir = "{d / "store"}"\n'
                   f'[registry]\ndecks = "{d / "decks"}"\nchips = "{d / "chips.json"}"\n')
    return cfg


def through_service(n_hands: int) -> dict[str, Any]:
    """One run: ``n_hands`` hands, each odds-changing frame timed to its equity event."""
    result: dict[str, Any] = {"by_street": {}, "lost": 0, "problem": None}
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        broker = Mosquitto(d)
        broker.start()
        deck = bench_deck()
        (d / "decks").mkdir()
        (d / "decks" / "B-1.json").write_text(json.dumps({"deck_id": "B-1", "cards": deck}))
        masters = {}
        for name in DEVICES:
            m, s = os.openpty()
            tty.setraw(s)
            os.symlink(os.ttyname(s), d / name)
            masters[name] = m
        cfg = _config(d, broker.port)
        col = Equities()
        sub = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                          protocol=mqtt.MQTTv5)
        sub.on_message = col.on_message
        sub.on_connect = lambda c, *a: c.subscribe(
            [(f"{PREFIX}/secure/events", 1), (f"{PREFIX}/status", 1), (f"{PREFIX}/events", 1)])
        sub.connect("127.0.0.1", broker.port)
        sub.loop_start()
        stream = Stream(deck, players=PLAYERS)
        feeder = Feeder(masters, stream)
        log = open(d / "service.log", "wb")  # noqa: SIM115
        proc = subprocess.Popen([sys.executable, "-m", "tablesvc.commands.cli", "run",
                                 "--config", str(cfg), "--log", "json", "--log-level",
                                 os.environ.get("BENCH_LOG_LEVEL", "warning")], stdout=log,
                                stderr=subprocess.STDOUT, cwd=ROOT)
        latencies: dict[str, list[float]] = {}
        own: list[float] = []  # the same frames' own public event (card_dealt, action, board)
        try:
            if not col.online.wait(30):
                result["problem"] = "the service did not come online within 30 s"
                return result
            end = time.monotonic() + 10
            while len(col.devices) < len(DEVICES) and time.monotonic() < end:
                time.sleep(0.05)
            time.sleep(1.0)  # the worker builds its tables at start
            sync = fdatasync_ms(d / "store", 200)
            rtt = broker_rtt_ms(broker.port, 200)
            frames = hands(stream)
            done = 0
            for dev, raw, key in frames:
                if key is None:
                    feeder.write(dev, raw)
                    time.sleep(0.004)
                    continue
                sent = time.time()
                feeder.write(dev, raw)
                got = col.wait(key, 10.0)
                if got is None:
                    result["lost"] += 1
                    result.setdefault("lost_keys", []).append(key)
                else:
                    latencies.setdefault(f"{key[1]} ({key[2]} live)", []).append(
                        (got - sent) * 1000)
                    first = col.first_public_after(sent)
                    if first is not None and first <= got:
                        own.append((first - sent) * 1000)
                if key[1] == "river":
                    done += 1
                    if done >= n_hands:
                        break
            sync += fdatasync_ms(d / "store", 200)
            rtt += broker_rtt_ms(broker.port, 200)
            result["fdatasync"] = spread(sync)
            result["broker_rtt"] = spread(rtt)
            result["by_street"] = {k: spread(v) for k, v in latencies.items()}
            result["all"] = spread([x for v in latencies.values() for x in v])
            result["own"] = spread(own)
        except Exception as exc:  # report, never abort the benchmark run
            result["problem"] = f"{type(exc).__name__}: {exc}"
        finally:
            feeder.close()
            stop(proc)
            sub.loop_stop()
            broker.stop()
            for m in masters.values():
                os.close(m)
            log.close()
            if os.environ.get("BENCH_KEEP_LOG"):
                (Path(os.environ["BENCH_KEEP_LOG"])).write_bytes((d / "service.log").read_bytes())
            if result["problem"] or result["lost"]:
                tail = (d / "service.log").read_text(errors="replace")[-2000:]
                result["problem"] = f"{result['problem'] or 'events lost'}; log tail:\n{tail}"
    return result


def run(runs: int = 3, hands_per_run: int = 40, baseline_runs: int = 3,
        through: bool = True) -> None:
    print(f"-- equity: the computation alone ({max(runs, 5)} runs per spot)")
    computation(max(runs, 5), baseline_runs)
    print(f"-- equity: Omaha, the computation alone ({max(runs, 5)} runs per spot, each beside "
          f"a run of the plain loop)")
    omaha_computation(max(runs, 5))
    if not through:
        return
    print(f"-- equity: card or fold -> equity event at a subscriber ({runs} runs of "
          f"{hands_per_run} four-handed hands, {PLAYERS} then 3 live)")
    totals: list[Spread] = []
    for i in range(runs):
        r = through_service(hands_per_run)
        if r["problem"]:
            print(f"run {i + 1}: problem: {r['problem']}")
        if "all" not in r:
            continue
        totals.append(r["all"])
        over = "met" if r["all"].max <= TARGET_MS else "NOT met"
        print(f"run {i + 1}: all {r['all']}, {r['lost']} lost; target every event within "
              f"{TARGET_MS:.0f} ms: {over}")
        for street, s in sorted(r["by_street"].items()):
            print(f"  {street}: {s}")
        print(f"  baselines in the same run: the frame's own public event {r['own']}; "
              f"fdatasync {r['fdatasync']}; broker QoS 1 round trip {r['broker_rtt']}")
    if len(totals) > 1:
        print(f"-- over {len(totals)} runs: p50 {min(t.p50 for t in totals):.1f}-"
              f"{max(t.p50 for t in totals):.1f} ms, p99 {min(t.p99 for t in totals):.1f}-"
              f"{max(t.p99 for t in totals):.1f} ms, max {min(t.max for t in totals):.1f}-"
              f"{max(t.max for t in totals):.1f} ms")
