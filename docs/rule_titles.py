"""Write tablesvc/floor/rule_titles.json: every rule ID of the catalogue with its title.

    python docs/rule_titles.py > tablesvc/floor/rule_titles.json
    python docs/rule_titles.py path/to/RULES.md > tablesvc/floor/rule_titles.json

The floor console shows an alert's rule with the rule's title, and the catalogue is not
shipped with the package, so the titles are: this script builds them from the catalogue
(``shared/RULES.md`` beside the repository unless a path is given), and
tests/unit/test_floor_rule_titles.py refuses a committed file the catalogue has moved past.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = ROOT.parent / "shared" / "RULES.md"
OUTPUT = ROOT / "tablesvc" / "floor" / "rule_titles.json"
RULE_RE = re.compile(r"^#### ([A-Z]+-\d+) (.+)$")
TECHNICAL = {"TABLE-00": "Technical fault of the table's equipment or its connection"}
"""The project's own rule ID for technical alerts; not in the catalogue."""
REGENERATE = "python docs/rule_titles.py > tablesvc/floor/rule_titles.json"


def titles(catalogue: str) -> dict[str, str]:
    found = {m.group(1): m.group(2).strip() for line in catalogue.splitlines()
             if (m := RULE_RE.match(line))}
    return dict(sorted({**found, **TECHNICAL}.items()))


def render(catalogue: str) -> str:
    return json.dumps(titles(catalogue), indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else CATALOGUE
    sys.stdout.write(render(path.read_text(encoding="utf-8")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
