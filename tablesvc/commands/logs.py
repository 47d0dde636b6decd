"""Logging: JSON lines in service mode, readable lines in a terminal.

Log lines are public: they may end up in a venue's log collector. Nothing logs a hole card;
the core's notes and alerts carry no card identities, and the publisher logs seq numbers only.
Tracebacks are logged without the frames' local variables: a local of the core may well be a
hand's hole cards (structlog shows locals by default, in both renderers).
"""

from __future__ import annotations

import logging
import sys
from typing import Literal, TextIO

import structlog
import structlog.tracebacks
from structlog.typing import Processor

Mode = Literal["auto", "json", "console"]


def configure(mode: Mode = "auto", level: str = "info", file: TextIO | None = None) -> None:
    out = file or sys.stderr
    if mode == "auto":
        mode = "console" if out.isatty() else "json"
    processors: list[Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    if mode == "json":
        tracebacks = structlog.processors.ExceptionRenderer(
            structlog.tracebacks.ExceptionDictTransformer(show_locals=False))
        processors += [tracebacks, structlog.processors.JSONRenderer()]
    else:
        processors.append(structlog.dev.ConsoleRenderer(
            colors=out.isatty(), exception_formatter=structlog.dev.plain_traceback))
    # the drivers log through the standard library; render their records the same way
    handler = logging.StreamHandler(out)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, processors[-1]],
        foreign_pre_chain=[structlog.stdlib.add_logger_name, *processors[:-1]],
    ))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.getLevelNamesMapping()[level.upper()])
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=structlog.PrintLoggerFactory(out),
        cache_logger_on_first_use=False,
    )
