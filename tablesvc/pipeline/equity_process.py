"""The equity process: the win-probability engine in a process of its own.

``python -m tablesvc.pipeline.equity_process EXACT_LIMIT SAMPLES``, started by the service's
equity worker (``tablesvc.pipeline.equity``), never by hand. It reads ``EquityRequest``s from
its standard input and answers each on its standard output, one pickled message each way
(``multiprocessing.connection``): first ``("ready",)`` once the tables are built (or
``("failed", reason)``), then per request ``("ok", figures)`` or ``("error", exception type)``.
Its standard output carries nothing else: anything printed goes to standard error, the
service's log.

Why a process: the figures take tens of milliseconds of the processor per card, and in the
service's own process the counting thread shared the interpreter lock with the pipeline. Run
at a lower priority (as it should be: the cards come first), that thread could be put aside by
the kernel while it held the lock, and the pipeline then waited for it: on a busy two-core box
the events of a table fell seconds behind. Here the kernel's priorities alone decide, and the
service's memory holds neither numpy nor the tables.

It ends when its input closes (the service stopped or died), not on a stop signal (systemd
sends one to every process of the unit; a Ctrl-C reaches the whole terminal's group, which it
has left), and holds no state between requests. Hole cards cross only the anonymous pipes
between the two processes.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

NICE = 10
"""How much lower than the service this process runs (``nice``), where the idle class below
is not available."""


def main(argv: list[str]) -> int:
    # the service ends it by closing its input, once the pipeline has stopped; a stop signal
    # for the whole unit (systemd signals every process of it) must not end it first
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exact_limit, samples = int(argv[0]), int(argv[1])
    requests = Connection(os.dup(0), writable=False)
    answers = Connection(os.dup(1), readable=False)
    os.dup2(2, 1)  # a stray print must not break the answers
    sys.stdout = sys.stderr
    _lower_priority()
    try:
        from tablesvc.equity import compute, warm_up

        warm_up()
    except Exception as exc:  # the service logs it; no win probabilities then
        with contextlib.suppress(OSError):
            answers.send(("failed", f"{type(exc).__name__}: {exc}"))
        return 1
    give_back = _trimmer()
    give_back()
    try:
        answers.send(("ready",))
    except OSError:  # the service ended while the tables were built
        return 0
    while True:
        try:
            request = requests.recv()
        except (EOFError, OSError):  # the service stopped or died
            return 0
        try:
            reply: tuple[Any, ...] = ("ok", compute(request, exact_limit=exact_limit,
                                                    samples=samples))
        except Exception as exc:  # no card in the reason: the type only
            reply = ("error", type(exc).__name__)
        try:
            answers.send(reply)
        except OSError:  # the service ended while it counted
            return 0
        give_back()


def _trimmer() -> Callable[[], None]:
    """What gives the engine's scratch memory back to the system (glibc's ``malloc_trim``).

    Building the tables, and each exact pre-flop count, take tens of megabytes of numpy
    arrays for a moment; glibc keeps what they freed in the process's heap, so the resident
    memory would stay at its highest mark (about 10 MB above what the tables need). Trimming
    after each figure costs well under a millisecond. Elsewhere than glibc, nothing."""
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
    """When the box is busy, the port readers and the pipeline, which track the cards, come
    first; the broadcast's figures wait.

    Linux's idle class (``SCHED_IDLE``) runs this process only on a processor that nothing
    else wants, and gives the processor up the moment the service, the broker or anything
    else wakes up: a figure costs tens of milliseconds of the processor, and at a lower
    ``nice`` alone the kernel still let it finish its time slice while the service's
    publisher waited. Starved on a box that is busy for a long time, the figures come late,
    never wrong (each answers the request it was sent)."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        return
    except (AttributeError, OSError):  # not Linux, or not allowed: a lower nice
        pass
    try:
        os.nice(NICE)
    except OSError as exc:  # not allowed: run as we are
        print(f"equity process keeps its priority: {exc}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
