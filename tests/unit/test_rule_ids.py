"""The rule IDs the core checks commands against are the catalogue's, as it is today.

The core reads no files, so docs/rule_ids.py writes the IDs of the project's catalogue
(tablesvc/rules/catalogue.toml) into tablesvc/core/rule_ids.py. This fails when the catalogue has
moved past the committed module.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from tablesvc.core.rule_ids import RULE_IDS
from tablesvc.rules import load

ROOT = Path(__file__).resolve().parents[2]


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rule_ids_gen", ROOT / "docs" / "rule_ids.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


GEN = _generator()


def test_the_committed_rule_ids_are_what_the_generator_makes_of_the_catalogue() -> None:
    fresh = GEN.render(load())
    committed = (ROOT / "tablesvc" / "core" / "rule_ids.py").read_text(encoding="utf-8")
    assert fresh == committed, f"tablesvc/core/rule_ids.py is stale; run: {GEN.REGENERATE}"


def test_every_rule_the_core_raises_alerts_for_is_one_the_commands_accept() -> None:
    from docs.rules_coverage import declarations

    raised = {rule for rule in declarations() if rule != "TABLE-00"}
    assert raised - RULE_IDS == set()
