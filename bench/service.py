"""Running ``tablesvc run`` as its own process for the benchmarks that time it."""

from __future__ import annotations

import subprocess


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, as systemd stops the service; SIGKILL if it has not exited within 20 s."""
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
