"""Floor staff logins: password hashes in a file, sessions behind an unguessable cookie.

The users file has one line per person, ``name:scrypt$n$r$p$salt$hash`` (base64), written by
``tablesvc floor-user add``; passwords are hashed with scrypt (stdlib ``hashlib``) and compared
in constant time. A session is 32 random bytes held in memory (a console restart asks everyone
to log in again); its cookie is HttpOnly, SameSite=Strict and, over HTTPS, Secure.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
NAME_RE = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")
COOKIE = "floor_session"


class UsersFileError(Exception):
    """The users file cannot be read or a line of it is wrong (the message says which)."""


def hash_password(password: str, *, salt: bytes | None = None) -> str:
    salt = salt or os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P,
                            dklen=32)
    b64 = base64.b64encode
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"


def verify_password(password: str, stored: str) -> bool:
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        want = base64.b64decode(digest)
        got = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt), n=int(n),
                             r=int(r), p=int(p), dklen=len(want), maxmem=2**27)
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, want)


def load_users(path: Path) -> dict[str, str]:
    """name -> stored hash; every bad line is named in one error."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsersFileError(f"{path}: cannot read: {exc}") from None
    users: dict[str, str] = {}
    problems = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, stored = line.partition(":")
        if not sep or not NAME_RE.fullmatch(name) or not stored.startswith("scrypt$"):
            problems.append(f"{path}: line {n}: expected name:scrypt$... (made by "
                            "`tablesvc floor-user add`)")
            continue
        users[name] = stored
    if problems:
        raise UsersFileError("\n".join(problems))
    return users


def set_user(path: Path, name: str, password: str) -> bool:
    """Add a user or change one's password; True when the user is new. The file is
    readable by its owner only."""
    if not NAME_RE.fullmatch(name):
        raise UsersFileError(f"user name {name!r}: 1-64 of letters, digits and _.@-")
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    entry = f"{name}:{hash_password(password)}"
    new = True
    for i, line in enumerate(lines):
        if line.partition(":")[0] == name:
            lines[i] = entry
            new = False
    if new:
        lines.append(entry)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)
    return new


@dataclass
class Session:
    user: str
    expires: float


class Sessions:
    """Sessions in memory, by token; expired ones are forgotten as they are met."""

    def __init__(self, hours: float) -> None:
        self.ttl = hours * 3600
        self._by_token: dict[str, Session] = {}

    def create(self, user: str) -> str:
        token = secrets.token_urlsafe(32)
        self._by_token[token] = Session(user, time.monotonic() + self.ttl)
        if len(self._by_token) > 1000:
            self.prune()
        return token

    def user(self, token: str | None) -> str | None:
        if not token:
            return None
        s = self._by_token.get(token)
        if s is None:
            return None
        if s.expires < time.monotonic():
            del self._by_token[token]
            return None
        return s.user

    def end(self, token: str | None) -> None:
        if token:
            self._by_token.pop(token, None)

    def prune(self) -> None:
        now = time.monotonic()
        for t in [t for t, s in self._by_token.items() if s.expires < now]:
            del self._by_token[t]
