"""Who may see the overlay: its token, the wrong-token throttle and the headers of every answer.

The page carries hole cards. Every request must carry the overlay's token (in the URL, or in
the cookie the page gets in exchange for it when served beyond this machine); the token is at
least 128 bits, read from ``[overlay] token_file`` or made at first start in the storage dir,
and kept readable by its owner only. A client address that keeps presenting wrong tokens is
refused for a while (``Throttle``), and every answer tells the browser to run the page's own
files only (a strict Content-Security-Policy).
"""

from __future__ import annotations

import os
import re
import secrets
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_TOKEN_FILE = "overlay.token"
"""The token's file in ``[storage] dir`` when ``[overlay] token_file`` is not set."""

TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{22,512}")
"""22 URL-safe characters are 132 bits: what a token must have at least."""

COOKIE = "__Host-overlay-token"
"""The cookie a page served beyond this machine keeps its token in (``__Host-``: the browser
takes it over HTTPS only, for this host and port's origin, for every path)."""

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
       "frame-ancestors 'none'")
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-store",
}
HSTS = "max-age=31536000"


def token_problem(path: Path, text: str | None, mode: int | None) -> str | None:
    """What is wrong with a token file (None: nothing). Never quotes the token."""
    problems = []
    if mode is not None and mode & 0o077:
        problems.append(f"{path} may be read by others than its owner (mode "
                        f"{stat.S_IMODE(mode):04o}): chmod 600 it (the token is as secret as "
                        "the hole cards it shows)")
    if text is not None and not TOKEN_RE.fullmatch(text):
        problems.append(f"{path} does not hold a token of at least 22 of A-Z a-z 0-9 - _ (128 "
                        f"bits; it holds {len(text)} characters"
                        f"{'' if text.isascii() else ', not all ASCII'}): make one with "
                        "`python3 -c 'import secrets; print(secrets.token_urlsafe(32))'`")
    return "; ".join(problems) or None


def read_token(path: Path) -> tuple[str | None, str | None]:
    """(the token, None) or (None, the problem) of an existing token file."""
    try:
        with path.open(encoding="utf-8") as f:
            mode = os.fstat(f.fileno()).st_mode
            if not stat.S_ISREG(mode):
                return None, f"{path} is not a file"
            text = f.read(4096).strip()
    except FileNotFoundError:
        return None, f"no such file {path}"
    except OSError as exc:
        return None, f"cannot read {path}: {exc.strerror}"
    except UnicodeDecodeError:
        return None, f"{path} is not a text file"
    problem = token_problem(path, text, mode)
    return (None, problem) if problem else (text, None)


def make_token(path: Path) -> tuple[str | None, str | None]:
    """Create the token file at first start: 32 random bytes, readable by this user only.

    The file is created 0600 (``O_EXCL``: never one that appeared meanwhile, never through
    a link); when another start made it first, that one's token is read."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return read_token(path)
    except OSError as exc:
        return None, (f"{path} cannot be made ({exc.strerror}): set token_file, or "
                      "storage.dir to a folder this user may write")
    token = secrets.token_urlsafe(32)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(token + "\n")
    return token, None


@dataclass
class _Address:
    failures: list[float] = field(default_factory=list)
    locked_until: float = 0.0
    lockouts: int = 0
    last: float = 0.0


class Throttle:
    """Wrong tokens per client address: after ``limit`` in ``window_s`` the address is refused
    (everything it asks, the right token too: it learns nothing meanwhile) for ``backoff_s``,
    doubled at every further lockout up to ``max_backoff_s``. An address without a wrong
    token for ``forget_s`` starts afresh; a right token forgets the failures so far. The clock
    is injectable (the tests move it)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, limit: int = 5,
                 window_s: float = 60.0, backoff_s: float = 30.0,
                 max_backoff_s: float = 900.0, forget_s: float = 3600.0,
                 max_addresses: int = 4096) -> None:
        self.clock = clock
        self.limit, self.window_s = limit, window_s
        self.backoff_s, self.max_backoff_s = backoff_s, max_backoff_s
        self.forget_s, self.max_addresses = forget_s, max_addresses
        self._by: dict[str, _Address] = {}

    def locked(self, address: str) -> float:
        """Seconds the address is still refused (0: not refused)."""
        a = self._by.get(address)
        return max(0.0, a.locked_until - self.clock()) if a else 0.0

    def failed(self, address: str) -> float:
        """Count a wrong token; the lockout's length when this one starts a lockout, else 0."""
        now = self.clock()
        a = self._by.get(address)
        if a is None or now - a.last > self.forget_s:
            self._prune(now)
            a = self._by[address] = _Address()
        a.last = now
        a.failures = [t for t in a.failures if now - t < self.window_s] + [now]
        if len(a.failures) < self.limit:
            return 0.0
        a.failures.clear()
        a.lockouts += 1
        length: float = min(self.max_backoff_s, self.backoff_s * 2.0 ** (a.lockouts - 1))
        a.locked_until = now + length
        return length

    def succeeded(self, address: str) -> None:
        """A right token: its failures are forgotten, not its lockouts (on 127.0.0.1 every
        account of the machine shares one address, OBS's reconnects and a guesser's too)."""
        a = self._by.get(address)
        if a is not None:
            a.failures.clear()

    def _prune(self, now: float) -> None:
        if len(self._by) < self.max_addresses:
            return
        for key, a in list(self._by.items()):
            if now - a.last > self.forget_s and a.locked_until <= now:
                del self._by[key]
        while len(self._by) >= self.max_addresses:  # many addresses at once: oldest first
            del self._by[min(self._by, key=lambda k: self._by[k].last)]
