"""Does the project's catalogue still say what RULES.md says? CI's check (``make check-catalogue``).

    python -m tablesvc.rules.check ../shared/RULES.md

RULES.md, the rules catalogue written from the German source documents, is not part of the
repository; CI checks it out beside it. The project's catalogue (``catalogue.toml`` of this
package) carries what the code and the docs take from it: each rule's ID and title, whether
the sensors can see it, and the alert names its Detect field names. This compares the two
rule by rule and names every rule in one and not the other, and every field that differs.

Exit status: 0 when they agree ("149 rules agree"), 1 when they differ (the list), 2 when
there is no RULES.md to compare with (or no rule in it). ``make test`` needs nothing outside
the repository and never runs this.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from tablesvc.rules import FILE, CatalogueError, Rule, load, parse

HEADING_RE = re.compile(r"^#### ([A-Z]+-\d+) (.+)$")
NAME_RE = re.compile(r"`([a-z][a-z0-9_]+)`")
NOT_OBSERVABLE = "not observable"
"""What RULES.md's Observable field says of a rule the sensors cannot see (or see whole)."""
OURS = f"tablesvc/rules/{FILE}"


def from_markdown(text: str) -> list[Rule]:
    """The rules of RULES.md §1, as the project's catalogue carries them: the ``#### ID Title``
    headings, the Observable field (``observable`` unless it says "not observable") and the
    alert names of the Detect field (the backquoted names with an underscore, first mention
    first)."""
    found: list[tuple[str, str, str, str]] = []
    for line in text.splitlines():
        m = HEADING_RE.match(line)
        if m:
            found.append((m.group(1), m.group(2).strip(), "", ""))
        elif found and line.startswith("- **Observable:**"):
            rid, title, _, detect = found[-1]
            found[-1] = (rid, title, line.split(":**", 1)[1].strip(), detect)
        elif found and line.startswith("- **Detect:**"):
            rid, title, observable, _ = found[-1]
            found[-1] = (rid, title, observable, line.split(":**", 1)[1].strip())
        elif line.startswith("## 2."):
            break
    return [Rule(rid, title, NOT_OBSERVABLE not in observable.lower(),
                 tuple(dict.fromkeys(n for n in NAME_RE.findall(detect) if "_" in n)))
            for rid, title, observable, detect in found]


def differences(source: Sequence[Rule], ours: Sequence[Rule]) -> list[str]:
    """One line per rule that is in only one of them, and per field a rule of both differs in;
    empty when they agree."""
    theirs = {r.id: r for r in source}
    mine = {r.id: r for r in ours}
    out: list[str] = []
    for rid in sorted(theirs.keys() | mine.keys()):
        a, b = theirs.get(rid), mine.get(rid)
        if b is None:
            assert a is not None
            out.append(f"{rid}: in RULES.md (\"{a.title}\"), not in {OURS}")
        elif a is None:
            out.append(f"{rid}: in {OURS} (\"{b.title}\"), not in RULES.md")
        else:
            if a.title != b.title:
                out.append(f"{rid}: title: RULES.md \"{a.title}\", {OURS} \"{b.title}\"")
            if a.observable != b.observable:
                out.append(f"{rid}: observable: RULES.md {str(a.observable).lower()}, "
                           f"{OURS} {str(b.observable).lower()}")
            if a.alerts != b.alerts:
                out.append(f"{rid}: alerts: RULES.md {list(a.alerts)}, {OURS} {list(b.alerts)}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tablesvc.rules.check", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rules_md", type=Path, help="RULES.md (CI: ../shared/RULES.md)")
    ap.add_argument("--catalogue", type=Path, default=None,
                    help=f"the catalogue to check (default: {OURS})")
    args = ap.parse_args(argv)
    path: Path = args.rules_md
    if not path.is_file():
        print(f"no RULES.md at {path}: nothing to check {OURS} against (this is CI's check, "
              "where the rules catalogue is checked out beside the repository)", file=sys.stderr)
        return 2
    source = from_markdown(path.read_text(encoding="utf-8"))
    if not source:
        print(f"{path} holds no rules (no '#### AREA-NN Title' heading before §2)",
              file=sys.stderr)
        return 2
    try:
        ours = load() if args.catalogue is None else parse(
            args.catalogue.read_text(encoding="utf-8"))
    except CatalogueError as e:
        print(f"{args.catalogue or OURS} is not a catalogue:\n{e}", file=sys.stderr)
        return 1
    found = differences(source, ours)
    if found:
        print(f"{path} and {OURS} differ ({len(found)}):", *(f"  {d}" for d in found),
              f"Change {OURS} to say what RULES.md says (an ID is never given to another "
              "rule), then regenerate what is made from it (README, 'Where the rules come "
              "from').", sep="\n")
        return 1
    print(f"{len(source)} rules agree: {OURS} and {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
