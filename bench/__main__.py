"""``make bench``: throughput of the pipeline, end-to-end latency through mosquitto, memory,
win probabilities, restart time."""

from __future__ import annotations

import argparse
import os
import platform

from bench import throughput


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def main() -> None:
    p = argparse.ArgumentParser(prog="bench")
    p.add_argument("--frames", type=int, default=100_000)
    p.add_argument("--throughput-runs", type=int, default=3,
                   help="runs of the throughput bench (their spread is printed)")
    p.add_argument("--latency-seconds", type=float, default=10.0,
                   help="at least this long at each rate")
    p.add_argument("--rates", default="20,1000", help="frame rates of the latency bench")
    p.add_argument("--timed", type=int, default=400,
                   help="at least this many timed events at each rate")
    p.add_argument("--runs", type=int, default=1, help="latency runs (their spread is printed)")
    p.add_argument("--latency-equity", choices=["on", "off", "alternate"], default="on",
                   help="latency runs with the service's win probabilities on, off, or "
                        "alternating off and on (each printed apart)")
    p.add_argument("--alert-confirm", choices=["on", "off"], default="on",
                   help="the latency bench's service confirms rule alerts (the default "
                        "configuration: an alert waits until every device was heard after it)")
    p.add_argument("--hands", type=int, default=2000, help="hands of the memory bench")
    p.add_argument("--rss-equity", choices=["on", "off", "both"], default="on",
                   help="memory bench with the service's win probabilities on, off or both")
    p.add_argument("--equity-hands", type=int, default=40,
                   help="hands per run of the equity latency bench")
    p.add_argument("--equity-computation-only", action="store_true",
                   help="the equity bench's computation alone (hold'em and Omaha), without "
                        "its runs through the service")
    p.add_argument("--restart-inputs", type=int, default=1_000_000,
                   help="inputs in the journal of the restart bench")
    p.add_argument("--restart-runs", type=int, default=5, help="restart runs (spread printed)")
    p.add_argument("--full-replay", action="store_true",
                   help="also restart once without checkpoints (replays the whole journal)")
    p.add_argument("--tables", type=int, default=12, help="tables of the room bench")
    p.add_argument("--room-hands", type=int, default=20, help="hands per table, room bench")
    p.add_argument("--room-runs", type=int, default=3, help="runs of the room bench")
    p.add_argument("--only", choices=["throughput", "cold", "latency", "showdown", "draw", "rss",
                                      "equity", "restart", "room", "floor", "tournament"],
                   default=None,
                   help="one bench; the floor console's (issue 13) and the tournament "
                        "controller's (issue 29) run only when asked for: they take minutes")
    from bench import floor, tournament

    floor.add_arguments(p.add_argument_group("floor console (--only floor)"), "floor-")
    tournament.add_arguments(p.add_argument_group("tournament controller (--only tournament)"),
                             "tournament-")
    a = p.parse_args()
    print(f"machine: {machine()}")
    if a.only in (None, "throughput"):
        throughput.run(a.frames, a.throughput_runs)
    if a.only in (None, "cold"):
        from bench import cold

        cold.run()
    if a.only in (None, "showdown"):
        from bench import evaluators, settle

        settle.run()
        evaluators.run(100_000, 3)
    if a.only in (None, "draw"):
        from bench import draw

        draw.run()
    if a.only in (None, "latency"):
        from bench import latency

        rates = [int(r) for r in a.rates.split(",") if r.strip()]
        settings = {"on": (True,), "off": (False,), "alternate": (False, True)}[a.latency_equity]
        runs: dict[bool, list[latency.LatencyResult]] = {s: [] for s in settings}
        for i in range(a.runs):
            for with_equity in settings:
                if a.runs > 1 or len(settings) > 1:
                    print(f"-- latency run {i + 1} of {a.runs}, win probabilities "
                          f"{'on' if with_equity else 'off'}")
                runs[with_equity].append(latency.run(rates, a.latency_seconds, a.timed,
                                                         equity=with_equity,
                                                         confirm=a.alert_confirm == "on"))
        for with_equity, done in runs.items():
            if len(done) > 1:
                print(f"-- win probabilities {'on' if with_equity else 'off'}")
                latency.summary(done)
    if a.only in (None, "rss"):
        from bench import rss

        for setting in (("on", "off") if a.rss_equity == "both" else (a.rss_equity,)):
            rss.run(a.hands, equity=setting == "on")
    if a.only in (None, "equity"):
        from bench import equity

        equity.run(max(a.runs, 3), a.equity_hands, through=not a.equity_computation_only)
    if a.only in (None, "restart"):
        from bench import restart

        restart.run(a.restart_inputs, a.restart_runs, a.full_replay)
    if a.only in (None, "room"):
        from bench import room

        room.run(a.tables, a.room_hands, a.room_runs)
    if a.only == "floor":
        floor.run_from(a, "floor-")
    if a.only == "tournament":
        tournament.run_from(a, "tournament-")


if __name__ == "__main__":
    main()
