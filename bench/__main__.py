"""``make bench``: throughput of the pipeline and end-to-end latency through mosquitto."""

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
    p.add_argument("--latency-seconds", type=float, default=10.0)
    p.add_argument("--rate", type=int, default=1000)
    p.add_argument("--only", choices=["throughput", "latency", "showdown", "draw"], default=None)
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

        latency.run(a.rate, a.latency_seconds)


if __name__ == "__main__":
    main()
