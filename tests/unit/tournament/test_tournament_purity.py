"""The tournament's rule modules are pure: no I/O, no clock, no randomness of their own.

The controller replays them after a restart and tests pin their results, which only works if
``now`` and the ``rng`` are what the caller passes. Read from the source, not by importing it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[3] / "tablesvc" / "tournament"
PURE = ("clock", "seating", "balancing", "standings", "structure")
ALLOWED = {"__future__", "collections", "collections.abc", "dataclasses", "fractions", "math",
           "typing", "tablesvc.tournament.structure", "tablesvc.tournament.seating"}
EXTRA = {"seating": {"random"}, "structure": {"tomllib", "pathlib", "tablesvc.core.games"}}
"""``random`` only for the type of the rng the caller passes; the structure reads its file and
names a game of the registry of games (pure itself, tests/unit/test_import_graph.py)."""


def imports(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("module", PURE)
def test_a_rule_module_imports_nothing_that_does_io_or_reads_the_clock(module: str) -> None:
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    assert imports(tree) - ALLOWED - EXTRA.get(module, set()) == set()


def test_seating_draws_only_from_the_rng_it_is_given() -> None:
    tree = ast.parse((PACKAGE / "seating.py").read_text(encoding="utf-8"))
    used = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name) and node.value.id == "random"}
    assert used == {"Random"}
