"""The equity worker: win probabilities computed beside the pipeline, never in its way.

The core asks for the figures of a hand state on ``Output.work``; the service hands the
requests to this worker, which computes them on its own thread (numpy releases the
interpreter while it counts boards, so the pipeline thread runs on) and puts the result on
the service's input queue as an ``EquityResult``. From there it is journalled and applied like
every input, and the core publishes it only if the hand is still in that state.

Only the newest request is worth computing: each one supersedes the one before (a later card
or fold changed the state), and the core would drop the older result anyway.

The engine (``tablesvc.equity``: numpy and about 40 MB of lookup tables) is imported by the
worker's thread when it starts, so a service with ``[broadcast] equity = false`` never loads
it: on a small box that is a third of the service's memory.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from collections.abc import Callable
from typing import Any

import structlog

from tablesvc.core.inputs import EquityResult
from tablesvc.core.requests import EquityRequest
from tablesvc.pipeline.clock import stamp

log = structlog.get_logger("tablesvc.pipeline.equity")

NICE = 10


class EquityWorker:
    """One thread computing the latest request; ``deliver`` receives each result."""

    def __init__(self, deliver: Callable[[EquityResult], None], *,
                 exact_limit: int, samples: int) -> None:
        self.deliver = deliver
        self.options: dict[str, Any] = {"exact_limit": exact_limit, "samples": samples}
        self._cond = threading.Condition()
        self._latest: EquityRequest | None = None
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="equity", daemon=True)
        self.computed = 0

    def start(self) -> None:
        self._thread.start()

    def submit(self, requests: list[EquityRequest]) -> None:
        if not requests:
            return
        with self._cond:
            self._latest = requests[-1]
            self._cond.notify()

    def stop(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify()
        if self._thread.is_alive():
            self._thread.join(10)

    def _run(self) -> None:
        _lower_priority()
        try:
            from tablesvc.equity import compute, warm_up

            warm_up()  # the tables, before the first hand needs them
        except Exception:
            log.exception("equity tables could not be built; no win probabilities")
            return
        give_back = _trimmer()
        give_back()
        while True:
            with self._cond:
                while self._latest is None and not self._stop:
                    self._cond.wait()
                request, self._latest = self._latest, None
                if self._stop or request is None:
                    return
            try:
                figures = compute(request, **self.options)
            except Exception as exc:  # never the pipeline's problem; no card in the log
                log.error("equity not computed", hand=request.hand, street=request.street,
                          error=type(exc).__name__)
                continue
            ts, ms = stamp()
            self.computed += 1
            self.deliver(EquityResult(ts, ms, request.hand, request.version, figures))
            give_back()


def _trimmer() -> Callable[[], None]:
    """What gives the engine's scratch memory back to the system (glibc's ``malloc_trim``).

    Building the tables, and each exact pre-flop count, take tens of megabytes of numpy
    arrays for a moment; glibc keeps what they freed in the process's heap, so the service's
    resident memory would stay at its highest mark (about 10 MB above what it holds). Trimming
    after each figure costs well under a millisecond on this thread. Elsewhere than glibc,
    nothing."""
    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        trim = None
    if trim is None:
        return lambda: None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int

    def give_back() -> None:
        trim(0)

    return give_back


def _lower_priority() -> None:
    """Run this thread at a lower priority (nice +10, Linux): when the box is busy, the port
    readers and the pipeline, which track the cards, come first; the broadcast's figures wait.
    numpy releases the interpreter while it counts, so the thread rarely holds it when it
    waits for the processor."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)
    except (AttributeError, OSError) as exc:  # not Linux, or not allowed: run as we are
        log.info("equity worker keeps its priority", reason=str(exc))
