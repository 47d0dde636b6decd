"""The equity worker: win probabilities computed beside the pipeline, never in its way.

The core asks for the figures of a hand state on ``Output.work``; the service hands the
requests to this worker, whose thread passes them to the equity process
(``tablesvc.pipeline.equity_process``: the engine, numpy and its tables, in a process of its
own at a lower priority) and puts each answer on the service's input queue as an
``EquityResult``. From there it is journalled and applied like every input, and the core
publishes it only if the hand is still in that state.

Only the newest request is worth computing: each one supersedes the one before (a later card
or fold changed the state), and the core would drop the older result anyway.

The process is started when the worker starts, which only a service with
``[broadcast] equity = true`` does; should it end, it is started again (at most
``RESTARTS`` times, then the table goes on without win probabilities, said once in the log).
Nothing the process does can hold the pipeline: this thread waits on a pipe, the interpreter
lock is free meanwhile.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

import structlog

from tablesvc.core.inputs import EquityResult
from tablesvc.core.requests import EquityRequest
from tablesvc.pipeline.clock import stamp

log = structlog.get_logger("tablesvc.pipeline.equity")


class EquityWorker:
    """One thread passing the latest request to the equity process; ``deliver`` receives each
    result."""

    def __init__(self, deliver: Callable[[EquityResult], None], *,
                 exact_limit: int, samples: int) -> None:
        self.deliver = deliver
        self.options: dict[str, Any] = {"exact_limit": exact_limit, "samples": samples}
        self._cond = threading.Condition()
        self._latest: EquityRequest | None = None
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="equity", daemon=True)
        self._engine: _Engine | None = None
        self.computed = 0

    @property
    def process_id(self) -> int | None:
        """The equity process's pid while one runs (what an operator sees in ``ps``)."""
        engine = self._engine
        return engine.proc.pid if engine is not None and engine.proc.poll() is None else None

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
        restarts = 0
        while not self._stop:
            try:
                engine = self._engine = _Engine.start(self.options)
            except OSError as exc:
                log.error("equity process could not be started; no win probabilities",
                          error=str(exc))
                return
            try:
                if not engine.ready(lambda: self._stop):
                    return
                self._serve(engine)
                return
            except (EOFError, OSError):
                engine.close()
                restarts += 1
                if restarts > RESTARTS:
                    log.error("equity process keeps ending; no win probabilities until the "
                              "service restarts", exit=engine.exit_code())
                    return
                log.warning("equity process ended; starting it again", exit=engine.exit_code())
                time.sleep(min(5.0, 0.5 * restarts))
            finally:
                engine.close()

    def _serve(self, engine: _Engine) -> None:
        """Until stopped: the latest request to the process, its answer to the service."""
        while True:
            with self._cond:
                while self._latest is None and not self._stop:
                    self._cond.wait()
                request, self._latest = self._latest, None
                if self._stop or request is None:
                    return
            try:
                reply = engine.ask(request, lambda: self._stop)
            except (EOFError, OSError):
                with self._cond:  # the next process answers it, unless a newer one came
                    if self._latest is None:
                        self._latest = request
                raise
            if reply is None:  # stopped while it counted
                return
            if reply[0] != "ok":  # no card in the log: the hand, the street, the error type
                log.error("equity not computed", hand=request.hand, street=request.street,
                          error=reply[1])
                continue
            ts, ms = stamp()
            self.computed += 1
            self.deliver(EquityResult(ts, ms, request.hand, request.version, reply[1]))


RESTARTS = 3
"""How often an equity process that ended is started again before the table goes on without."""
POLL_S = 0.1
"""How often a wait for the process looks whether the service is stopping."""


class _Engine:
    """The equity process and the two pipes to it."""

    def __init__(self, proc: subprocess.Popen[bytes], to: Connection, back: Connection) -> None:
        self.proc, self._to, self._back = proc, to, back

    @classmethod
    def start(cls, options: dict[str, Any]) -> _Engine:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tablesvc.pipeline.equity_process",
             str(options["exact_limit"]), str(options["samples"])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True,
            start_new_session=True)  # a Ctrl-C in the terminal is the service's to handle
        assert proc.stdin is not None and proc.stdout is not None
        # the connections own copies of the pipes' ends: closing ``to`` is the process's EOF
        to = Connection(os.dup(proc.stdin.fileno()), readable=False)
        back = Connection(os.dup(proc.stdout.fileno()), writable=False)
        proc.stdin.close()
        proc.stdout.close()
        return cls(proc, to, back)

    def ready(self, stopping: Callable[[], bool]) -> bool:
        """Wait until the tables are built; False if stopping or they could not be."""
        reply = self._receive(stopping)
        if reply is None:
            return False
        if reply[0] != "ready":
            log.error("equity tables could not be built; no win probabilities",
                      error=str(reply[1:]))
            return False
        return True

    def ask(self, request: EquityRequest,
            stopping: Callable[[], bool]) -> tuple[Any, ...] | None:
        self._to.send(request)
        return self._receive(stopping)

    def _receive(self, stopping: Callable[[], bool]) -> tuple[Any, ...] | None:
        while not self._back.poll(POLL_S):
            if stopping():
                return None
            if self.proc.poll() is not None:
                raise EOFError("the equity process ended")
        reply: tuple[Any, ...] = self._back.recv()
        return reply

    def exit_code(self) -> int | None:
        return self.proc.poll()

    def close(self) -> None:
        """Close its input (it ends by itself), then make sure it did."""
        for conn in (self._to, self._back):
            conn.close()
        try:
            self.proc.wait(2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
