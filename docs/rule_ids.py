"""Write tablesvc/core/rule_ids.py: every rule ID of the catalogue, for the core to check against.

    python docs/rule_ids.py > tablesvc/core/rule_ids.py
    python docs/rule_ids.py path/to/RULES.md > tablesvc/core/rule_ids.py

A command that names a rule (``cmd/declare {"ruling": "suspend_rule", "rule": ...}``) must name
one that exists. The catalogue (``shared/RULES.md`` beside the repository unless a path is
given) is not shipped with the package, so its IDs are: this script writes them as a Python
module (the core reads no files), and tests/unit/test_rule_ids.py refuses a committed module
the catalogue has moved past.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = ROOT.parent / "shared" / "RULES.md"
OUTPUT = ROOT / "tablesvc" / "core" / "rule_ids.py"
RULE_RE = re.compile(r"^#### ([A-Z]+-\d+) ")
REGENERATE = "python docs/rule_ids.py > tablesvc/core/rule_ids.py"


def rule_ids(catalogue: str) -> list[str]:
    found = (m.group(1) for line in catalogue.splitlines() if (m := RULE_RE.match(line)))
    return sorted(set(found))


def render(catalogue: str) -> str:
    ids = rule_ids(catalogue)
    lines = [
        '"""The rule IDs of the rules catalogue (RULES.md). Generated; do not edit.',
        "",
        f"Regenerate with ``{REGENERATE}``;",
        "tests/unit/test_rule_ids.py fails when the catalogue has moved past this file.",
        '"""',
        "",
        "RULE_IDS: frozenset[str] = frozenset({",
    ]
    row: list[str] = []
    for rid in ids:
        item = f'"{rid}",'
        if row and len("    " + " ".join([*row, item])) > 99:
            lines.append("    " + " ".join(row))
            row = []
        row.append(item)
    if row:
        lines.append("    " + " ".join(row))
    lines.append("})")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else CATALOGUE
    sys.stdout.write(render(path.read_text(encoding="utf-8")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
