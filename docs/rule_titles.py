"""Write tablesvc/floor/rule_titles.json: every rule ID of the catalogue with its title.

    python docs/rule_titles.py > tablesvc/floor/rule_titles.json

The floor console shows an alert's rule with the rule's title: this script writes the titles
of the project's rules catalogue (tablesvc/rules/catalogue.toml) beside the console's page, and
tests/unit/test_floor.py refuses a committed file the catalogue has moved past.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tablesvc.rules import Rule, load  # noqa: E402  (the repository's own, run as a script)

OUTPUT = ROOT / "tablesvc" / "floor" / "rule_titles.json"
TECHNICAL = {"TABLE-00": "Technical fault of the table's equipment or its connection"}
"""The project's own rule ID for technical alerts; not in the catalogue."""
REGENERATE = "python docs/rule_titles.py > tablesvc/floor/rule_titles.json"


def titles(rules: Iterable[Rule]) -> dict[str, str]:
    return dict(sorted({**{r.id: r.title for r in rules}, **TECHNICAL}.items()))


def render(rules: Iterable[Rule]) -> str:
    return json.dumps(titles(rules), indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    sys.stdout.write(render(load()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
