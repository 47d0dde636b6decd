"""Write tablesvc/core/rule_ids.py: every rule ID of the catalogue, for the core to check against.

    python docs/rule_ids.py > tablesvc/core/rule_ids.py

A command that names a rule (``cmd/declare {"ruling": "suspend_rule", "rule": ...}``) must name
one that exists. The core reads no files, so the IDs of the project's rules catalogue
(tablesvc/rules/catalogue.toml) are written as a Python module by this script, and
tests/unit/test_rule_ids.py refuses a committed module the catalogue has moved past.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tablesvc.rules import Rule, load  # noqa: E402  (the repository's own, run as a script)

OUTPUT = ROOT / "tablesvc" / "core" / "rule_ids.py"
REGENERATE = "python docs/rule_ids.py > tablesvc/core/rule_ids.py"


def render(rules: Iterable[Rule]) -> str:
    ids = sorted({r.id for r in rules})
    lines = [
        '"""The rule IDs of the rules catalogue, tablesvc/rules/catalogue.toml. '
        "Generated; do not edit.",
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


def main() -> int:
    sys.stdout.write(render(load()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
