"""A mosquitto broker on a loopback port, started and stopped on demand (tests, benchmarks).

Kept in the package rather than in the tests so that the benchmarks measure against the very
same broker set-up the integration tests use.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(pred: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def mosquitto_binary() -> str:
    for cand in (shutil.which("mosquitto"), "/usr/sbin/mosquitto"):
        if cand and os.path.exists(cand):
            return cand
    raise RuntimeError("mosquitto is not installed; `make test` installs it")


class Mosquitto:
    """A mosquitto broker on a loopback port that can be stopped and started again.

    By default an open broker for tests (anonymous, no persistence) with ``extra_conf``
    appended; with ``conf`` the whole configuration is the caller's (the shipped
    deploy/mosquitto.conf with its paths and ports made local, say), and ``port`` must be
    the plain listener it opens on 127.0.0.1.
    """

    def __init__(self, workdir: Path, extra_conf: str = "", port: int | None = None, *,
                 conf: str | None = None) -> None:
        self.port = port or free_port()
        self.workdir = workdir
        self.conf = workdir / "mosquitto.conf"
        if conf is None:
            conf = (f"listener {self.port} 127.0.0.1\nallow_anonymous true\n"
                    f"persistence false\nmax_queued_messages 100000\n{extra_conf}")
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            # started as root, mosquitto switches to its own user, which could not read our
            # files or write a persistence file into our folder
            conf += "\nuser root\n"
        self.conf.write_text(conf)
        self.log = workdir / "mosquitto.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = open(self.log, "ab")  # noqa: SIM115 - owned by the child
        # the working directory is the workdir: a relative persistence file lands there
        self.proc = subprocess.Popen([mosquitto_binary(), "-c", str(self.conf)], stdout=log,
                                     stderr=subprocess.STDOUT, cwd=self.workdir)
        try:
            wait_until(self.accepting, 10, "mosquitto to accept connections")
        except AssertionError:
            raise AssertionError(f"mosquitto did not start; its log ({self.log}):\n"
                                 + self.log.read_text(errors="replace")[-2000:]) from None

    def accepting(self) -> bool:
        if self.proc is not None and self.proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None
