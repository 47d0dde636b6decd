"""``make bench``: throughput of the pipeline, end-to-end latency through mosquitto, memory."""

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
    p.add_argument("--latency-seconds", type=float, default=10.0,
                   help="at least this long at each rate")
    p.add_argument("--rates", default="20,1000", help="frame rates of the latency bench")
    p.add_argument("--timed", type=int, default=400,
                   help="at least this many timed events at each rate")
    p.add_argument("--runs", type=int, default=1, help="latency runs (their spread is printed)")
    p.add_argument("--hands", type=int, default=2000, help="hands of the memory bench")
    p.add_argument("--only", choices=["throughput", "latency", "showdown", "draw", "rss",
                                      "floor"], default=None,
                   help="one bench; the floor console's (issue 13) runs only when asked for: "
                        "it needs Chromium and takes minutes")
    from bench import floor

    floor.add_arguments(p.add_argument_group("floor console (--only floor)"), "floor-")
    a = p.parse_args()
    print(f"machine: {machine()}")
    if a.only in (None, "throughput"):
        throughput.run(a.frames)
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
        runs = []
        for i in range(a.runs):
            if a.runs > 1:
                print(f"-- latency run {i + 1} of {a.runs}")
            runs.append(latency.run(rates, a.latency_seconds, a.timed))
        if a.runs > 1:
            latency.summary(runs)
    if a.only in (None, "rss"):
        from bench import rss

        rss.run(a.hands)
    if a.only == "floor":
        floor.run_from(a, "floor-")


if __name__ == "__main__":
    main()
