"""The storage dir holds hole cards (journal, outbox, checkpoints, hand histories): private.

Everything the service writes there is readable by the service's user only: folders 0700,
files 0600. ``tablesvc run`` sets the process umask to 0077, so that every module's files
are created that way; this module tightens what an older version left readable (0644 files
in 0755 folders) and writes the files the service names itself.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import structlog

log = structlog.get_logger("tablesvc.pipeline.files")

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_storage(folder: Path) -> None:
    """Create the storage dir 0700, or tighten an existing one and everything in it."""
    folder.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    tightened = 0
    for path in [folder, *folder.rglob("*")]:
        try:
            st = path.lstat()
        except OSError:
            continue  # gone meanwhile
        if stat.S_ISLNK(st.st_mode):
            continue
        want = DIR_MODE if stat.S_ISDIR(st.st_mode) else FILE_MODE
        if st.st_mode & 0o077:
            os.chmod(path, stat.S_IMODE(st.st_mode) & want)
            tightened += 1
    if tightened:
        log.info("storage made private (readable by this user only)", folder=str(folder),
                 paths=tightened)


def write_private(path: Path, text: str) -> None:
    """Write a file readable by the service's user only, whatever the umask."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, FILE_MODE)  # an existing file keeps its mode on open
