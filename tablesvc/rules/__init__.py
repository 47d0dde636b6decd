"""The project's rules catalogue: every rule of play the service knows, by its stable rule ID.

The catalogue is ``catalogue.toml`` beside this module, one table per rule:

    [BET-09]
    title = "Call; a call that is too small"
    observable = true
    alerts = ["call_short"]

``title`` is the rule's title as the rules catalogue RULES.md gives it; ``observable`` is
false when the sensors cannot see the rule (or part of it) and the dealer or the floor must
say what happened; ``alerts`` are the alert names the rule's detection names, its own and
those of other rules it refers to. The project owns this file: the rule IDs, titles, the
rule IDs the core accepts (``tablesvc/core/rule_ids.py``), the floor console's titles
(``tablesvc/floor/rule_titles.json``) and docs/RULES-COVERAGE.md are all made from it, and
nothing in the repository reads RULES.md but ``make check-catalogue`` (``tablesvc.rules.check``),
which tells whether the two still agree.

Pure apart from ``load``, which reads the package's own file.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from importlib import resources

RULE_ID_RE = re.compile(r"^[A-Z]+-\d{2}$")
ALERT_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
FIELDS = frozenset({"title", "observable", "alerts"})
FILE = "catalogue.toml"


@dataclass(frozen=True)
class Rule:
    id: str  # SEAT-01: an area and a number, never reused for another rule
    title: str
    observable: bool  # false: not (wholly) seen by the sensors; the console or floor says it
    alerts: tuple[str, ...]  # the alert names the rule's detection names, in its order


class CatalogueError(ValueError):
    """The catalogue's text is not a catalogue: every problem found, one a line."""


def parse(text: str) -> list[Rule]:
    """The rules of a catalogue's text, in its order; ``CatalogueError`` names every entry
    that is not a rule ID with a title, an ``observable`` flag and a list of alert names."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise CatalogueError(f"not TOML: {e}") from None
    rules: list[Rule] = []
    problems: list[str] = []
    for rid, entry in doc.items():
        if not RULE_ID_RE.match(rid):
            problems.append(f"{rid}: not a rule ID (AREA-NN)")
            continue
        if not isinstance(entry, dict):
            problems.append(f"{rid}: not a table")
            continue
        if set(entry) != FIELDS:
            missing, extra = sorted(FIELDS - set(entry)), sorted(set(entry) - FIELDS)
            problems.append(f"{rid}: fields missing {missing}, unknown {extra}")
            continue
        title, observable, alerts = entry["title"], entry["observable"], entry["alerts"]
        if not isinstance(title, str) or not title.strip():
            problems.append(f"{rid}: the title is not a text")
        elif not isinstance(observable, bool):
            problems.append(f"{rid}: observable is not true or false")
        elif not isinstance(alerts, list) or not all(
                isinstance(a, str) and ALERT_NAME_RE.match(a) for a in alerts):
            problems.append(f"{rid}: alerts is not a list of alert names (lower_case)")
        elif len(set(alerts)) != len(alerts):
            problems.append(f"{rid}: an alert is named twice")
        else:
            rules.append(Rule(rid, title, observable, tuple(alerts)))
    if problems:
        raise CatalogueError("\n".join(problems))
    return rules


def load() -> list[Rule]:
    """The committed catalogue's rules, in its order."""
    return parse((resources.files("tablesvc.rules") / FILE).read_text(encoding="utf-8"))
