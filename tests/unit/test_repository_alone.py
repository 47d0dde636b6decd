"""A clone of the repository alone, in an empty folder with nothing beside it, has what the rules'
tests and generators need (issue 32): they once read RULES.md from beside the repository, and
six tests failed in a clone without it.

The clone is of HEAD, the commit the working tree stands on: uncommitted changes are not in it,
so with work in progress this tests the last commit. In the clone, with this interpreter, it
runs the tests that needed the file beside the repository, the catalogue's own, and the three
generators, whose output must be the committed files. The virtual environment's editable install
points at the working tree this test runs from, so first the run makes sure it imports the
clone's own packages.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = (
    "tests/unit/test_rules_coverage.py",
    "tests/unit/test_rule_ids.py",
    "tests/unit/test_rule_declarations.py::test_every_declared_rule_is_in_the_catalogue",
    "tests/unit/test_floor.py::test_the_shipped_rule_titles_are_what_the_catalogue_says",
    "tests/unit/test_rules_catalogue.py",
)
"""The six tests that failed in a clone alone (all of their files where it costs little), and the
catalogue's."""
GENERATED = {
    "docs/rule_ids.py": "tablesvc/core/rule_ids.py",
    "docs/rule_titles.py": "tablesvc/floor/rule_titles.json",
    "docs/rules_coverage.py": "docs/RULES-COVERAGE.md",
}
"""Generator -> the committed file it writes."""
PYTEST = """\
import sys
from pathlib import Path

import drivers, simulators, tablesvc
clone = Path.cwd()
for package in (drivers, simulators, tablesvc):
    assert clone in Path(package.__file__).parents, f"{package.__name__} from {package.__file__}"

import pytest
sys.exit(pytest.main(sys.argv[1:]))
"""
"""Import the clone's packages, say so, then run pytest in this same process."""


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


def test_a_clone_of_the_repository_alone_passes_the_rules_tests_and_makes_the_generated_files(
        tmp_path: Path) -> None:
    alone = tmp_path / "alone"
    alone.mkdir()
    clone = alone / "tablesvc"
    head = _git("rev-parse", "HEAD", cwd=ROOT).strip()
    _git("clone", "--quiet", "--no-hardlinks", "--no-checkout", str(ROOT), str(clone), cwd=alone)
    _git("checkout", "--quiet", "--detach", head, cwd=clone)
    assert [p.name for p in alone.iterdir()] == ["tablesvc"]  # nothing beside it, no shared/

    # the clone's packages first (-P: not the current folder's by accident); no outer
    # pytest-xdist worker's settings
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = str(clone)
    run = subprocess.run(
        [sys.executable, "-P", "-c", PYTEST, "-q", "-n", "0", "-p", "no:cacheprovider", "-rs",
         *TESTS], cwd=clone, env=env, capture_output=True, text=True, timeout=600)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    summary = out.strip().splitlines()[-1]
    assert re.fullmatch(r"\d+ passed(, \d+ warnings?)? in .*", summary), out  # none skipped

    for generator, committed in GENERATED.items():
        made = subprocess.run([sys.executable, "-P", generator], cwd=clone, env=env,
                              capture_output=True, text=True, timeout=120)
        assert made.returncode == 0, made.stderr
        assert made.stdout == (clone / committed).read_text(encoding="utf-8"), (
            f"{generator} in the clone does not make {committed}")
