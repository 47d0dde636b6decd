"""A table without win probabilities never loads their engine.

The engine (numpy and its lookup tables) is a third of the service's memory; a venue that
runs ``[broadcast] equity = false`` on a small box must not pay for it. The worker imports
it when it starts, which only a service with equity on does.
"""

from __future__ import annotations

import subprocess
import sys


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint(' '.join(sys.modules))"],
        capture_output=True, text=True, check=True, timeout=60)
    return set(out.stdout.split())


def test_service_and_its_commands_load_without_the_equity_engine() -> None:
    loaded = _modules_after("import tablesvc.pipeline.service, tablesvc.commands.cli")
    assert "tablesvc.pipeline.equity" in loaded  # the worker's class is there ...
    assert "tablesvc.equity" not in loaded  # ... but not the engine
    assert "numpy" not in loaded


def test_a_started_worker_loads_the_engine_and_answers() -> None:
    loaded = _modules_after(
        "import queue\n"
        "from tablesvc.core.requests import EquityRequest\n"
        "from tablesvc.pipeline.equity import EquityWorker\n"
        "results = queue.Queue()\n"
        "w = EquityWorker(results.put, exact_limit=6_000_000, samples=60_000)\n"
        "w.start()\n"
        "w.submit([EquityRequest(hand=1, version=1, variant='holdem', street='flop',"
        " holes=((1, ('As', 'Ad')), (2, ('Kc', 'Kd'))), board=('2c', '7h', '9s'))])\n"
        "r = results.get(timeout=30)\n"
        "assert [s['seat'] for s in r.figures['seats']] == [1, 2]\n"
        "assert r.figures['seats'][0]['win'] > 90  # aces against kings on a dry flop\n"
        "w.stop()")
    assert "numpy" in loaded
