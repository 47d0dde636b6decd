"""docs/RULES-COVERAGE.md is what its generator makes of today's code, tests and scenarios, and
every rule it calls detected is proven by a test or a scenario that expects the rule's alert.

The generator (docs/rules_coverage.py) builds the table from declarations only: the ``RULES`` of
the code (checked against the code's alert calls by test_rule_declarations.py), the tests'
``@pytest.mark.rules(...)`` markers and the scenario files' ``rules:``. These tests keep the
committed file in step, refuse a rule the code raises that nothing proves, and refuse markers
that claim a rule the test does not prove.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tablesvc.rules import Rule, load

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "RULES-COVERAGE.md"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rules_coverage",
                                                  ROOT / "docs" / "rules_coverage.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


GEN = _generator()


@pytest.fixture(scope="module")
def rules() -> list[Rule]:
    return load()


@pytest.fixture(scope="module")
def table(rules: list[Rule]) -> list[Any]:
    proofs = GEN.marked_tests(ROOT) + GEN.scenario_proofs(ROOT)
    rows: list[Any] = GEN.rows(rules, GEN.declarations(), proofs)
    return rows


def test_the_committed_coverage_is_what_the_generator_makes_of_the_repository(
        rules: list[Rule]) -> None:
    fresh = GEN.render(rules, ROOT)
    committed = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    if fresh != committed:
        changed = [line for line in fresh.splitlines() if line not in committed.splitlines()]
        pytest.fail("docs/RULES-COVERAGE.md is stale; regenerate it with\n"
                    f"    {GEN.REGENERATE}\nfirst changed lines:\n" + "\n".join(changed[:10]))


def test_every_rule_the_code_raises_is_proven_by_a_test_or_scenario(table: list[Any]) -> None:
    unproven = [f"{row.rule.id} ({', '.join(row.alerts)}): declared in {', '.join(row.where)}"
                for row in table if row.status == "unproven"]
    assert not unproven, (
        "rules declared in the code that no test or scenario proves; mark a test that expects "
        "one of the alerts with @pytest.mark.rules(...) (naming the rule ID too when the alert "
        "is shared by several rules), or write one:\n" + "\n".join(unproven))
    assert sum(1 for row in table if row.status == "detected") >= 100


def test_a_tests_own_rules_marker_claims_only_rules_it_proves() -> None:
    """A marker on a test names rules whose alert the test expects; a rule the code raises
    no alert for (a definition, an evaluator requirement) may be marked as it stands."""
    declared = GEN.declarations()
    shared = {n for n in {n for names in declared.values() for n in names}
              if sum(1 for names in declared.values() if n in names) > 1}
    false = [f"{p.label}: {rule}" for p in GEN.marked_tests(ROOT)
             for rule in sorted(p.own) if rule in declared
             and not p.proves(rule, tuple(declared[rule]), shared)]
    assert not false, ("tests marked with a rule whose alerts they do not name (with the rule "
                       "ID, for an alert several rules share):\n" + "\n".join(false))


def test_tests_and_scenarios_declare_rules_of_the_catalogue(rules: list[Rule]) -> None:
    known = {r.id for r in rules} | {GEN.TECHNICAL}
    unknown = [f"{p.label}: {rule}" for p in GEN.marked_tests(ROOT) + GEN.scenario_proofs(ROOT)
               for rule in sorted(p.rules) if rule not in known]
    assert not unknown, "rule IDs that are not in the catalogue:\n" + "\n".join(unknown)


def test_a_proof_must_expect_the_rules_alert_not_merely_mention_a_rule() -> None:
    """The old coverage counted DEAL-01 as tested because MISDEAL-01 appeared in a file."""
    proof = GEN.Proof("t.py::test_x", {"DEAL-01", "MISDEAL-01"}, {"misdeal_window_closed"})
    assert proof.proves("MISDEAL-01", ("misdeal_window_closed",), set())
    assert not proof.proves("DEAL-01", ("deal_without_shuffle",), set())
    # an alert several rules raise proves a rule only when the rule is pinned as well
    shared = GEN.Proof("t.py::test_y", {"MISDEAL-05"}, {"misdeal_required"})
    assert not shared.proves("MISDEAL-05", ("misdeal_required",), {"misdeal_required"})
    shared.names.add("MISDEAL-05")
    assert shared.proves("MISDEAL-05", ("misdeal_required",), {"misdeal_required"})
    scenario = GEN.Proof("s.yaml", {"EXPOSE-02", "MISDEAL-12"}, {"card_exposed"},
                         {"card_exposed": "MISDEAL-12"})
    assert scenario.proves("MISDEAL-12", ("card_exposed",), {"card_exposed"})
    assert not scenario.proves("EXPOSE-02", ("card_exposed",), {"card_exposed"})
