"""Write docs/RULES-COVERAGE.md: every rule of the catalogue, whether it is detected, and the proof.

    python docs/rules_coverage.py > docs/RULES-COVERAGE.md

The rules are those of the project's catalogue (tablesvc/rules/catalogue.toml). Nothing here
searches text for rule IDs; the table is built from declarations:

* the code: every ``RULES`` mapping of ``tablesvc.core`` (a module's, or a class's own) and
  of ``tablesvc.tournament`` (the controller's, for the rules that need the whole venue) says
  which alerts are raised there for which rule; tests/unit/test_rule_declarations.py checks
  that the core's declarations match the alert calls of the code, both ways;
* the tests: ``@pytest.mark.rules("BET-09", ...)`` on a test function, on its class or as the
  module's ``pytestmark`` declares the rules the test proves; it proves a rule when its code
  also names one of the rule's declared alerts (the test asserts it);
* the scenario files (simulators/scenarios, run through the core by
  tests/integration/test_scenarios.py): ``rules: [...]`` and ``expect.alerts``; an expected
  alert that names its ``rule`` proves that rule only. A scenario of a game a table's config
  cannot name yet proves nothing: that test skips it.

A rule is *detected* when the code declares an alert for it and a test or a scenario proves it;
a declared rule nobody proves is *unproven*, which tests/unit/test_rules_coverage.py refuses.
A rule the code does not declare is *not observable* (the catalogue says the sensors cannot see
it), *no alert* (the catalogue names none: a definition or an evaluator requirement) or *not
yet*.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tablesvc.rules import Rule, load  # noqa: E402  (the repository's own, run as a script)

TECHNICAL = "TABLE-00"  # the project's own rule ID for technical alerts; not in the catalogue
REGENERATE = "python docs/rules_coverage.py > docs/RULES-COVERAGE.md"
STATUSES = ("detected", "unproven", "not observable", "not yet", "no alert")
WHY = {
    "unproven": "declared in the code, but no test or scenario proves it",
    "not observable": "sensors cannot see it; needs dealer/floor input",
    "not yet": "observable, not implemented yet",
    "no alert": "the catalogue names no alert (a definition or an evaluator requirement)",
}


@dataclass
class Proof:
    """A test or a scenario file that declares the rules it proves."""

    label: str  # tests/unit/test_x.py::test_y, or simulators/scenarios/x.yaml
    rules: set[str]  # the rules it declares
    names: set[str]  # the strings of a test's code; the alerts a scenario expects
    rule_of: dict[str, str] = field(default_factory=dict)  # scenario: alert -> its rule
    own: set[str] = field(default_factory=set)  # a test's own marker's (not its class's)

    def proves(self, rule: str, alerts: tuple[str, ...], shared: set[str]) -> bool:
        """It declares ``rule`` and expects one of its alerts. An alert the code raises for
        several rules (``shared``) proves this one only when the rule is pinned: by the
        expected alert's ``rule`` in a scenario, by the rule ID in a test's code."""
        return rule in self.rules and any(
            n in self.names and self.rule_of.get(n, rule) == rule
            and (n not in shared or n in self.rule_of or rule in self.names) for n in alerts)


# ------------------------------------------------------------------ the code
PACKAGES = ("tablesvc.core", "tablesvc.tournament")
"""The packages whose ``RULES`` declarations count: the table's core, whose paths are shown
from inside it (``monitors/blinds.py``), and the tournament controller, which sees the whole
venue (``tournament/tournament.py``)."""


def _modules() -> Iterator[tuple[str, str]]:
    """(module name, its path as the table shows it) for every module of ``PACKAGES``."""
    for package in PACKAGES:
        root = importlib.import_module(package)
        prefix = "" if package == "tablesvc.core" else package.rsplit(".", 1)[1] + "/"
        for info in sorted(pkgutil.walk_packages(root.__path__, f"{package}."),
                           key=lambda i: i.name):
            yield info.name, prefix + info.name.removeprefix(f"{package}.").replace(
                ".", "/") + ".py"


def declarations() -> dict[str, dict[str, list[str]]]:
    """Rule ID -> alert name -> where it is declared: a module of ``tablesvc/core``, or a class
    of it (``monitors/blinds.py::Blinds``), or a module of ``tablesvc/tournament``
    (``tournament/tournament.py``)."""
    out: dict[str, dict[str, list[str]]] = {}
    for module_name, path in _modules():
        module = importlib.import_module(module_name)
        scopes: list[tuple[str, object]] = [(path, module)]
        scopes += [(f"{path}::{name}", obj) for name, obj in sorted(vars(module).items())
                   if isinstance(obj, type) and obj.__module__ == module_name]
        for where, scope in scopes:
            rules = vars(scope).get("RULES")
            if not isinstance(rules, Mapping):
                continue
            for rule, names in rules.items():
                for name in names:
                    out.setdefault(rule, {}).setdefault(name, []).append(where)
    return out


# ------------------------------------------------------------------ the tests
def _marked_rules(decorators: list[ast.expr]) -> set[str]:
    """The IDs of ``pytest.mark.rules(...)`` among decorators (or a ``pytestmark`` value)."""
    found: set[str] = set()
    for d in decorators:
        marks = d.elts if isinstance(d, (ast.List, ast.Tuple)) else [d]
        for m in marks:
            if isinstance(m, ast.Call) and isinstance(m.func, ast.Attribute) \
                    and m.func.attr == "rules" and ast.unparse(m.func.value) == "pytest.mark":
                found |= {a.value for a in m.args
                          if isinstance(a, ast.Constant) and isinstance(a.value, str)}
    return found


def _strings(fn: ast.FunctionDef) -> set[str]:
    """The string literals of a test's code (its decorators included, its docstring not)."""
    doc = fn.body[0] if fn.body and isinstance(fn.body[0], ast.Expr) else None
    return {n.value for part in (*fn.decorator_list, *fn.body) if part is not doc
            for n in ast.walk(part) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def _tests(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef, set[str], set[str]]]:
    """(name, function, rules marked on it, rules marked on its class or module)."""
    module: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets):
            module |= _marked_rules([stmt.value])
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name.startswith("test"):
            yield stmt.name, stmt, _marked_rules(stmt.decorator_list), module
        elif isinstance(stmt, ast.ClassDef) and stmt.name.startswith("Test"):
            inherited = module | _marked_rules(stmt.decorator_list)
            for fn in stmt.body:
                if isinstance(fn, ast.FunctionDef) and fn.name.startswith("test"):
                    yield f"{stmt.name}::{fn.name}", fn, _marked_rules(fn.decorator_list), \
                        inherited


def marked_tests(root: Path = ROOT) -> list[Proof]:
    """Every test that declares rules with the ``rules`` marker, and the names it names."""
    out = []
    for path in sorted((root / "tests").rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name, fn, own, inherited in _tests(tree):
            rules = own | inherited
            if rules:
                label = f"{path.relative_to(root).as_posix()}::{name}"
                out.append(Proof(label, rules, _strings(fn), own=own))
    return out


def scenario_proofs(root: Path = ROOT) -> list[Proof]:
    """Every scenario file of a game the service tracks: the rules it declares and the alerts
    it expects."""
    from simulators.scenario import load_scenario, scenario_files
    from tablesvc.core.games import VARIANTS as games
    out = []
    for path in scenario_files(root / "simulators" / "scenarios"):
        sc = load_scenario(path)
        if sc.setup.variant not in games:
            continue  # not run through the core yet (tests/integration/test_scenarios.py)
        rule_of = {a.name: a.rule for a in sc.expect.alerts if a.rule is not None}
        out.append(Proof(path.relative_to(root).as_posix(), set(sc.rules),
                         {a.name for a in sc.expect.alerts}, rule_of))
    return out


# ------------------------------------------------------------------ the table
@dataclass
class Row:
    rule: Rule
    status: str
    alerts: list[str]
    where: list[str]
    proofs: list[str]
    elsewhere: dict[str, list[str]] = field(default_factory=dict)  # alert -> rules it is raised
    # under, for a rule the code does not declare whose catalogue alert it raises for another

    @property
    def why(self) -> str:
        if self.proofs:
            return "<br>".join(self.proofs)
        if self.elsewhere:
            return "no alert carries this ID; raised under another rule: " + ", ".join(
                f"`{n}` ({', '.join(r)})" for n, r in self.elsewhere.items())
        return WHY.get(self.status, "—")


def rows(rules: Sequence[Rule], declared: Mapping[str, Mapping[str, list[str]]],
         proofs: list[Proof]) -> list[Row]:
    raised_for: dict[str, set[str]] = {}
    for rule, alerts in declared.items():
        for name in alerts:
            raised_for.setdefault(name, set()).add(rule)
    shared = {name for name, rules in raised_for.items() if len(rules) > 1}
    out = []
    for r in rules:
        names = tuple(declared.get(r.id, {}))
        proved = [p.label for p in proofs if p.proves(r.id, names, shared)]
        if names:
            status = "detected" if proved else "unproven"
            where = sorted({w for places in declared[r.id].values() for w in places})
            out.append(Row(r, status, list(names), where, proved))
            continue
        if not r.observable:
            status = "not observable"
        elif not r.alerts:
            status = "no alert"
        else:
            status = "not yet"
        elsewhere = {n: sorted(rule for rule, names in declared.items() if n in names)
                     for n in r.alerts}
        out.append(Row(r, status, list(r.alerts), [], [],
                       {n: rules for n, rules in elsewhere.items() if rules}))
    return out


def _cell(items: list[str]) -> str:
    return "<br>".join(f"`{i}`" for i in items) or "—"


def render(rules: Sequence[Rule], root: Path = ROOT) -> str:
    """The whole of docs/RULES-COVERAGE.md."""
    declared = declarations()
    known = {r.id for r in rules}
    unknown = sorted(set(declared) - known - {TECHNICAL})
    if unknown:
        raise SystemExit(f"rule IDs declared in the code but not in the catalogue: {unknown}")
    table = rows(rules, declared, marked_tests(root) + scenario_proofs(root))
    counts = {s: sum(1 for row in table if row.status == s) for s in STATUSES}
    lines = [
        "# Rules coverage",
        "",
        "Every rule of RULES.md: whether the service detects it, the alerts it raises for it, "
        "where in `tablesvc/core` (or, for the rules that need the whole venue, in the "
        "tournament controller, `tournament/...`) they are declared, and the tests and "
        "scenario files that "
        f"prove it. Generated by `{REGENERATE}` from the catalogue, the `RULES` declarations "
        "of the code, the tests' `@pytest.mark.rules(...)` markers and the scenario files' "
        "`rules:`; tests/unit/test_rules_coverage.py fails when this file is stale.",
        "",
        "A rule is *detected* when the code declares an alert for it and a test or scenario "
        "that declares the rule expects one of those alerts; an alert the code raises for "
        "several rules proves one of them only when it is pinned to it (the expected alert's "
        "`rule:` in a scenario, the rule ID asserted in a test).",
        "",
        " · ".join(f"{s}: {n}" for s, n in counts.items() if n or s != "unproven"),
        "",
        "| rule | title | status | alerts | declared in | proof (or why not) |",
        "|---|---|---|---|---|---|",
    ]
    for row in table:
        lines.append(f"| {row.rule.id} | {row.rule.title} | {row.status} | "
                     f"{_cell(row.alerts)} | {_cell(row.where)} | {row.why} |")
    technical = declared.get(TECHNICAL, {})
    if technical:
        lines += [
            "",
            f"## Technical alerts ({TECHNICAL})",
            "",
            f"`{TECHNICAL}` is the project's own rule ID for alerts that no rule of play "
            "covers (a refused publish, a device fault, a hand that cannot start for want of "
            "players, a command of the tournament controller a table refused); it is not in "
            "the catalogue.",
            "",
            "| alert | declared in |",
            "|---|---|",
        ]
        lines += [f"| `{n}` | {_cell(sorted(set(w)))} |" for n, w in technical.items()]
    return "\n".join(lines) + "\n"


def main() -> None:
    sys.stdout.write(render(load()))


if __name__ == "__main__":
    main()
