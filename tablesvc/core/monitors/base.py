"""What every rule monitor declares: the rule IDs it enforces and the alerts it raises.

A monitor is a small object with one job: one rule, or a few rules that share their state
(the chip motions of BET-10, the dealer's showdown inputs of SHOW-03..08). It lives as long as
the state it keeps: a hand's monitors are created with the hand's session and end with it.
``RULES`` maps each rule ID to the alert names the monitor may raise for it; the rules coverage
(docs/RULES-COVERAGE.md) is generated from these declarations, and a test checks that every
alert a module raises is declared there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar


class Monitor:
    """Base of the rule monitors: a declaration, nothing else."""

    RULES: ClassVar[Mapping[str, tuple[str, ...]]] = {}
