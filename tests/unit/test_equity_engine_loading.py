"""The win-probability engine lives in a process of its own, started only when it is used.

The engine (numpy and its lookup tables) is half the memory of a service that computes win
probabilities and tens of milliseconds of the processor per card; in the service's process it
shared the interpreter with the pipeline. A venue that runs ``[broadcast] equity = false`` on a
small box must not pay for it at all; one that runs it must get its figures from the process.
"""

from __future__ import annotations

import subprocess
import sys

WORKER = (
    "import os, queue, signal, time\n"
    "from tablesvc.core.requests import EquityRequest\n"
    "from tablesvc.pipeline.equity import EquityWorker\n"
    "results = queue.Queue()\n"
    "w = EquityWorker(results.put, exact_limit=6_000_000, samples=60_000)\n"
    "w.start()\n"
    "def ask(hand):\n"
    "    w.submit([EquityRequest(hand=hand, version=1, variant='holdem', street='turn',"
    " holes=((1, ('As', 'Ad')), (2, ('Kc', 'Kd'))), board=('2c', '7h', '9s', 'Qd'))])\n"
    "    return results.get(timeout=60)\n"
)
"""A script's start: an equity worker of its own, and ``ask(hand)`` for its figures."""


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint(' '.join(sys.modules))"],
        capture_output=True, text=True, check=True, timeout=120)
    return set(out.stdout.split())


def test_service_and_its_commands_load_without_the_equity_engine() -> None:
    loaded = _modules_after("import tablesvc.pipeline.service, tablesvc.commands.cli")
    assert "tablesvc.pipeline.equity" in loaded  # the worker's class is there ...
    assert "tablesvc.equity" not in loaded  # ... but not the engine
    assert "numpy" not in loaded


def test_a_started_worker_answers_from_its_process_without_loading_the_engine_itself() -> None:
    loaded = _modules_after(
        WORKER +
        "r = ask(1)\n"
        "assert [s['seat'] for s in r.figures['seats']] == [1, 2]\n"
        "assert r.figures['seats'][0]['win'] > 90  # aces against kings, the turn a queen\n"
        "pid = w.process_id\n"
        "assert pid is not None and pid != os.getpid()\n"
        "# it yields the processor to the pipeline, the broker and anything else that wakes\n"
        "assert os.sched_getscheduler(pid) == os.SCHED_IDLE\n"
        "assert os.sched_getscheduler(0) != os.SCHED_IDLE\n"
        "w.stop()\n"
        "try:\n"
        "    os.kill(pid, 0)\n"
        "    raise AssertionError('the equity process outlived the worker')\n"
        "except ProcessLookupError:\n"
        "    pass")
    assert "numpy" not in loaded


def test_an_equity_process_that_dies_is_started_again_and_answers() -> None:
    _modules_after(
        WORKER +
                "assert ask(1).hand == 1\n"
        "first = w.process_id\n"
        "os.kill(first, signal.SIGKILL)  # the kernel's OOM killer, say\n"
        "assert ask(2).hand == 2  # answered by a new process\n"
        "assert w.process_id not in (None, first)\n"
        "w.stop()")


def test_a_stop_signal_for_the_whole_unit_leaves_the_equity_process_to_the_service() -> None:
    # systemd sends SIGTERM to every process of the unit: the equity process must go on
    # answering until the service, stopping in order, closes its input
    _modules_after(
        WORKER +
                "assert ask(1).hand == 1\n"
        "pid = w.process_id\n"
        "os.kill(pid, signal.SIGTERM)\n"
        "os.kill(pid, signal.SIGINT)\n"
        "time.sleep(0.5)\n"
        "assert ask(2).hand == 2\n"
        "assert w.process_id == pid  # the same process answered\n"
        "w.stop()")
