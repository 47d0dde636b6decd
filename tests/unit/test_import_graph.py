"""The layout keeps its promises (DESIGN §2, issue 9 requirement 4), read from the source itself.

Every module of ``tablesvc``, ``drivers`` and ``simulators`` is parsed with ``ast`` and every
import statement in it counts: top-level ones, those inside functions (a lazy import that
dodges a cycle at start-up still ties the two modules together) and those under
``TYPE_CHECKING`` (a type-only cycle is still two modules that cannot be understood, moved or
tested apart; none is needed today, so none is excused). From that graph:

- no module imports, directly or through others, a module that imports it back;
- the simulators never reach the game core (a simulator sharing the tracker's logic would
  hide the tracker's bugs), the drivers import neither the service nor the simulators, and
  the core reaches no I/O module and reads no clock;
- no simulators module touches another's private members.

Nothing here imports the code it checks, so a broken module fails here by name, not by crash.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("tablesvc", "drivers", "simulators")
CORE = "tablesvc.core"
"""The pure game core (DESIGN §2)."""

IO_MODULES = frozenset(
    {
        "asyncio", "io", "logging", "multiprocessing", "os", "paho", "pathlib", "select",
        "selectors", "serial", "shutil", "socket", "sqlite3", "ssl", "subprocess", "tempfile",
        "threading", "time",
    }
)
"""Top-level modules the core may not import: sockets, serial ports, MQTT, files, databases,
threads, processes and the clock (DESIGN §2: the core is a function of its inputs)."""

KNOWN_CORE_IO_IMPORTS = frozenset({("tablesvc.core.inputs", "time")})
"""(module, imported I/O module) pairs the core has today, to be removed by the core's rebuild.

``tablesvc.core.inputs`` formats timestamps with ``time.gmtime(secs)``/``time.strftime``: no
clock is read (``test_the_core_reads_no_clock_and_opens_no_file`` pins that), but the import
of the clock's module is one call away from a clock read. The test fails when a pair is added,
and when a listed pair is gone (so the list shrinks with the code)."""

CLOCK_CALLS = frozenset(
    {
        "time.time", "time.time_ns", "time.monotonic", "time.monotonic_ns", "time.perf_counter",
        "time.perf_counter_ns", "time.process_time", "time.sleep", "time.ctime",
        "datetime.now", "datetime.utcnow", "datetime.today", "date.today",
        "datetime.datetime.now", "datetime.datetime.utcnow", "datetime.date.today",
    }
)
CLOCK_CALLS_WITHOUT_ARGUMENTS = frozenset({"time.gmtime", "time.localtime", "time.asctime"})
"""These read the clock only when called without the time to convert."""

PRIVATE_CHECKED = ("simulators",)
"""Packages whose modules may use one another only through public names."""


# the graph --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    path: Path
    line: int

    def where(self) -> str:
        return f"{self.source} -> {self.target} ({self.path.relative_to(ROOT)}:{self.line})"


@dataclass
class ImportGraph:
    """Project modules, the imports between them, and each module's imports of others."""

    files: dict[str, Path]
    edges: dict[str, dict[str, Edge]] = field(default_factory=dict)
    """source -> target -> the first import statement that makes the edge."""
    external: dict[str, dict[str, int]] = field(default_factory=dict)
    """module -> top-level name of a module outside the project -> line of its first import."""

    @classmethod
    def of(cls, root: Path, packages: tuple[str, ...]) -> ImportGraph:
        files: dict[str, Path] = {}
        for package in packages:
            for path in sorted((root / package).rglob("*.py")):
                parts = list(path.relative_to(root).with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts.pop()
                files[".".join(parts)] = path
        graph = cls(files)
        for module, path in files.items():
            graph._read(module, path)
        return graph

    def _read(self, module: str, path: Path) -> None:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self._add(module, path, node.lineno, alias.name)
            elif isinstance(node, ast.ImportFrom):
                base = self._absolute(module, is_package, node)
                self._add(module, path, node.lineno, base)
                for alias in node.names:
                    if f"{base}.{alias.name}" in self.files:  # a submodule, imported by name
                        self._add(module, path, node.lineno, f"{base}.{alias.name}")

    @staticmethod
    def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        package = module.split(".") if is_package else module.split(".")[:-1]
        base = package[: len(package) - (node.level - 1)]
        return ".".join([*base, node.module] if node.module else base)

    def _add(self, module: str, path: Path, line: int, name: str) -> None:
        target = self._project_module(name)
        if target is None:
            self.external.setdefault(module, {}).setdefault(name.split(".")[0], line)
        elif target != module:
            self.edges.setdefault(module, {}).setdefault(
                target, Edge(module, target, path, line)
            )

    def _project_module(self, name: str) -> str | None:
        """The project module ``name`` imports (its longest prefix that is one), if any."""
        parts = name.split(".")
        for end in range(len(parts), 0, -1):
            candidate = ".".join(parts[:end])
            if candidate in self.files:
                return candidate
        return None

    def reach(self, start: str) -> dict[str, list[Edge]]:
        """Every module ``start`` imports directly or through others, with one way there."""
        ways: dict[str, list[Edge]] = {start: []}
        todo = [start]
        while todo:
            here = todo.pop()
            for target, edge in sorted(self.edges.get(here, {}).items()):
                if target not in ways:
                    ways[target] = [*ways[here], edge]
                    todo.append(target)
        return ways

    def cycles(self) -> list[list[Edge]]:
        """One cycle through each group of modules that import each other (Tarjan's SCCs)."""
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        groups: list[set[str]] = []

        def visit(node: str) -> None:
            index[node] = low[node] = len(index)
            stack.append(node)
            for target in sorted(self.edges.get(node, {})):
                if target not in index:
                    visit(target)
                    low[node] = min(low[node], low[target])
                elif target in stack:
                    low[node] = min(low[node], index[target])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(group)

        for module in sorted(self.files):
            if module not in index:
                visit(module)
        return [self._cycle_in(group) for group in groups]

    def _cycle_in(self, group: set[str]) -> list[Edge]:
        """The shortest way from the group's first module back to itself, inside the group."""
        start = min(group)
        ways: dict[str, list[Edge]] = {start: []}
        frontier = [start]
        while frontier:
            following: list[str] = []
            for here in frontier:
                for target, edge in sorted(self.edges.get(here, {}).items()):
                    if target == start:
                        return [*ways[here], edge]
                    if target in group and target not in ways:
                        ways[target] = [*ways[here], edge]
                        following.append(target)
            frontier = following
        raise AssertionError(f"{sorted(group)} is no cycle")  # Tarjan said it was one


def describe(cycle: list[Edge]) -> str:
    return "\n    ".join(edge.where() for edge in cycle)


def in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


@pytest.fixture(scope="module")
def graph() -> ImportGraph:
    return ImportGraph.of(ROOT, PACKAGES)


# the checks -------------------------------------------------------------------------------


def test_the_graph_holds_every_module_of_the_three_packages(graph: ImportGraph) -> None:
    """A check that reads nothing passes everything: the graph must see the code it guards."""
    for package in PACKAGES:
        assert package in graph.files
        assert sum(in_package(m, package) for m in graph.files) > 2, package
    assert CORE in graph.files
    assert graph.edges, "no import between project modules was found"


def test_no_module_imports_a_module_that_imports_it_back(graph: ImportGraph) -> None:
    cycles = graph.cycles()
    assert not cycles, "import cycles:\n  " + "\n  ".join(
        f"cycle:\n    {describe(c)}" for c in cycles
    )


def test_the_simulators_never_reach_the_game_core(graph: ImportGraph) -> None:
    """Not even through another module: the simulators speak only the wire protocol."""
    problems = [
        " then ".join(e.where() for e in way)
        for module in graph.files
        if in_package(module, "simulators")
        for target, way in graph.reach(module).items()
        if in_package(target, CORE)
    ]
    assert not problems, "\n".join(problems)


GAMES = "tablesvc.core.games"
"""The registry of games; each game is a package below it (issue 31)."""
SHARED_GAME_PACKAGES = frozenset({f"{GAMES}.community"})
"""What several games share (hold'em and Omaha: the card flow of a board): a game package may
use it; it uses no game."""


def game_package(module: str) -> str | None:
    """The game package ``module`` belongs to (``tablesvc.core.games.holdem``), if any."""
    if not module.startswith(GAMES + "."):
        return None
    return ".".join(module.split(".")[:4])


def test_only_the_registry_and_the_games_themselves_reach_into_a_game(
        graph: ImportGraph) -> None:
    """The table, the session, the ledger, equity, the pipeline... ask a game's contract
    (``tablesvc.core.game``) and never import a game's own modules; a game uses no other game
    but what the games share."""
    problems = []
    for module, targets in graph.edges.items():
        own = game_package(module)
        for target, edge in targets.items():
            theirs = game_package(target)
            if theirs is None or theirs == own:
                continue
            if module == GAMES:
                continue  # the registry names every game
            if own is not None and theirs in SHARED_GAME_PACKAGES \
                    and own not in SHARED_GAME_PACKAGES:
                continue  # a game uses what the games share
            problems.append(edge.where())
    assert not problems, "\n".join(sorted(problems))
    packages = {p for m in graph.files if (p := game_package(m)) is not None}
    assert {f"{GAMES}.holdem", f"{GAMES}.draw5"} <= packages  # the check sees the games


def test_the_drivers_import_neither_the_service_nor_the_simulators(graph: ImportGraph) -> None:
    problems = [
        edge.where()
        for module, targets in graph.edges.items()
        if in_package(module, "drivers")
        for target, edge in targets.items()
        if in_package(target, "tablesvc") or in_package(target, "simulators")
    ]
    assert not problems, "\n".join(problems)


def core_io_imports(graph: ImportGraph) -> dict[tuple[str, str], str]:
    """(module, I/O module) -> how the core reaches it, for every module the core reaches."""
    found: dict[tuple[str, str], str] = {}
    for start in (m for m in graph.files if in_package(m, CORE)):
        for module, way in graph.reach(start).items():
            for name, line in graph.external.get(module, {}).items():
                if name in IO_MODULES and (module, name) not in found:
                    via = "".join(f"{e.where()} then " for e in way)
                    found[(module, name)] = (
                        f"{via}{module} imports {name} "
                        f"({graph.files[module].relative_to(ROOT)}:{line})"
                    )
    return found


def test_the_core_reaches_no_io_module(graph: ImportGraph) -> None:
    """Neither in itself nor through what it imports (``drivers.tsp``, ``core.phh``, ...)."""
    found = core_io_imports(graph)
    new = [why for pair, why in sorted(found.items()) if pair not in KNOWN_CORE_IO_IMPORTS]
    assert not new, "the core reaches I/O:\n" + "\n".join(new)


def test_the_known_core_io_imports_are_still_there(graph: ImportGraph) -> None:
    """A listed exception that the code no longer needs is taken off the list."""
    gone = sorted(KNOWN_CORE_IO_IMPORTS - set(core_io_imports(graph)))
    assert not gone, f"remove these from KNOWN_CORE_IO_IMPORTS, the core no longer has them: {gone}"


def dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


def test_the_core_reads_no_clock_and_opens_no_file(graph: ImportGraph) -> None:
    """Calls by their spelling (``time.time()``, ``datetime.now()``, ``open()``...): an alias
    (``from time import time as t``) escapes this, the import check above does not."""
    problems = []
    for module, path in graph.files.items():
        if not in_package(module, CORE):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = dotted(node.func)
            bare = not node.args and not node.keywords
            if name in CLOCK_CALLS or name == "open" or (
                name in CLOCK_CALLS_WITHOUT_ARGUMENTS and bare
            ):
                problems.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}()")
    assert not problems, "\n".join(problems)


# private members ----------------------------------------------------------------------------


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_reaches(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Where a module reaches a private name of something other than itself.

    A syntactic approximation, since the checker knows no types: ``x._y`` counts unless ``x``
    is ``self`` or ``cls`` (whatever they hold is the module's own class), and so do
    ``getattr``/``setattr``/``hasattr``/``delattr`` with a literal private name and
    ``from m import _y``. It therefore also flags a class reaching the private members of
    another instance of itself (write a public method instead), and it misses what a
    literal-free spelling hides: ``getattr(x, name)``, ``vars(x)``, ``x.__dict__``, and
    ``self._y`` when ``self._y`` was set to another module's object (``self._other._z``
    is caught: its value is not a bare name).
    """
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                yield node.lineno, ast.unparse(node)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and is_private(node.args[1].value)
            and not (isinstance(node.args[0], ast.Name) and node.args[0].id in ("self", "cls"))
        ):
            yield node.lineno, ast.unparse(node)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if is_private(alias.name):
                    yield node.lineno, f"from {node.module} import {alias.name}"


def test_no_simulators_module_touches_another_modules_private_members(
    graph: ImportGraph,
) -> None:
    problems = [
        f"{path.relative_to(ROOT)}:{line}: {text}"
        for module, path in sorted(graph.files.items())
        if any(in_package(module, p) for p in PRIVATE_CHECKED)
        for line, text in sorted(private_reaches(ast.parse(path.read_text(encoding="utf-8"))))
    ]
    assert not problems, "private members used from outside their module:\n" + "\n".join(
        problems
    )


# the checker itself -------------------------------------------------------------------------


def write_tree(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_checker_sees_cycles_closed_in_functions_relative_and_type_only(
    tmp_path: Path,
) -> None:
    """The imports the project's own history hid cycles in are the ones the checker reads."""
    write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg.b import thing\n",
            "pkg/b.py": "def late():\n    from . import a\n",
            "pkg/c.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.sub.d import X\n"
            ),
            "pkg/sub/__init__.py": "",
            "pkg/sub/d.py": "from ..c import Y\nimport os.path\n",
            "pkg/e.py": "import pkg.a\n",
        },
    )
    graph = ImportGraph.of(tmp_path, ("pkg",))
    cycles = sorted(sorted((e.source, e.target) for e in c) for c in graph.cycles())
    assert cycles == [
        [("pkg.a", "pkg.b"), ("pkg.b", "pkg.a")],
        [("pkg.c", "pkg.sub.d"), ("pkg.sub.d", "pkg.c")],
    ]
    assert graph.external["pkg.sub.d"] == {"os": 2}
    # ``from . import a`` runs the package's __init__ too
    assert set(graph.reach("pkg.e")) == {"pkg.e", "pkg.a", "pkg.b", "pkg"}


def test_the_private_check_flags_reaching_in_and_lets_a_class_use_its_own(
    tmp_path: Path,
) -> None:
    source = (
        "from m import _hidden\n"
        "class A:\n"
        "    def f(self, other):\n"
        "        self._mine = other._theirs\n"
        "        self._box._lid = getattr(other, '_x', None)\n"
        "        return self._mine, cls_ok(self), self.__class__\n"
    )
    found = sorted(text for _, text in private_reaches(ast.parse(source)))
    assert found == [
        "from m import _hidden",
        "getattr(other, '_x', None)",
        "other._theirs",
        "self._box._lid",
    ]
