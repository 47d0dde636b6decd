"""The input journal (DESIGN §7): every input, appended before it is processed.

Group commit: the service appends a batch of inputs, calls ``commit()`` once (one fsync), and
only then processes them. A crash can therefore lose only inputs that were never processed,
never one whose events a subscriber has seen.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

from tablesvc.core.inputs import FrameIn, Input, input_from_record, record_of

JOURNAL_NAME = "journal.jsonl"


class Journal:
    """Append-only JSON-lines file of inputs."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        _truncate_torn_tail(path)
        self._f = open(path, "a", encoding="utf-8")  # noqa: SIM115 - lives as long as we do
        self.appended = 0

    def append(self, inp: Input) -> None:
        if isinstance(inp, FrameIn):
            # the common case, written without building a dict: the same line json.dumps
            # would write (ts and src never need escaping: they are our own ASCII names)
            line = (f'{{"ts": "{inp.ts}", "src": "{inp.src}", "frame": '
                    f"{json.dumps(inp.frame, ensure_ascii=False)}}}\n")
        else:
            line = json.dumps(record_of(inp), ensure_ascii=False) + "\n"
        self._f.write(line)
        self.appended += 1

    def commit(self) -> None:
        """Make everything appended so far durable."""
        self._f.flush()
        os.fsync(self._f.fileno())

    def close(self) -> None:
        if not self._f.closed:
            self.commit()
            self._f.close()


def _truncate_torn_tail(path: Path) -> None:
    """Drop a last line cut short by a crash: its input was never processed."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with open(path, "rb+") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - 1))
        if f.read(1) == b"\n":
            return
        block = 4096
        pos = size
        while pos > 0:
            start = max(0, pos - block)
            f.seek(start)
            chunk = f.read(pos - start)
            nl = chunk.rfind(b"\n")
            if nl >= 0:
                f.truncate(start + nl + 1)
                return
            pos = start
        f.truncate(0)


class JournalError(ValueError):
    pass


def read_journal(path: Path) -> Iterator[Input]:
    """The inputs of a journal in order. A torn last line is skipped; other damage raises."""
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    for n, line in enumerate(lines, 1):
        if not line.endswith("\n") and n == len(lines):
            return  # torn by a crash: never processed
        try:
            yield input_from_record(json.loads(line))
        except ValueError as exc:
            raise JournalError(f"{path}:{n}: {exc}") from None
