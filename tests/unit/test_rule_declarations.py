"""Every alert the core raises is declared where it is raised, and every declaration is true.

A rule is found by its ID (issue 9): each monitor class, the hand session, the table, each
variant, and the modules of the card trackers, the betting engine, the ledger, the rulings and
the pot count carry a ``RULES`` mapping, rule ID -> the alert names raised there for that rule.
The rules coverage (docs/RULES-COVERAGE.md) is generated from these declarations, so they must
say exactly what the code does. This test reads the code with ``ast`` and finds every place that
raises an alert or builds one (``alert``, ``_alert``, ``irregularity``, ``Irregularity``,
``Violation``) with its name and rule, then checks both ways: each (rule, name) raised is
declared in the ``RULES`` of the class where the call is written (or of its module, for classes
without their own), and each declared pair is raised there. A call of a shape this test cannot
read fails it, so no alert slips past the declarations.

The shapes it reads: literal name and rule; a conditional expression on either (both branches,
paired when both test the same condition), or a local variable holding one; a rule passed in
as a parameter (resolved through the call sites, e.g. ``_misdeal(rec, seat, "MISDEAL-07", ...)``
or ``session.defect(what, "MISDEAL-09")``); a rule read from a class attribute (``fold_rule``).
An alert forwarded from an object (``o.name, o.rule`` of an ``Irregularity`` or a
``Violation``) is declared where that object is built. A violation's name forwarded under a
rule of the game's own (draw files the betting violations under BET-21) must be declared for
that rule with every name the betting engine and the ledger can build.

``TABLE-00`` is the project's own rule ID for technical alerts (a refused publish, a device
fault, a hand that cannot start); it is not in the catalogue (tablesvc/rules/catalogue.toml).
Every other declared ID is.
"""

from __future__ import annotations

import ast
import importlib
import itertools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tablesvc.rules import load

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "tablesvc" / "core"
RAISERS = frozenset({"alert", "_alert", "irregularity", "Irregularity", "Violation"})
RULE_ID = re.compile(r"^[A-Z]+-\d+$")
ALERT_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
TECHNICAL = "TABLE-00"  # the project's own ID for technical alerts; not a catalogue rule
# where a ``Problem``'s violation is built: the names draw re-files under BET-21
VIOLATION_SOURCES = ("betting.py", "ledger.py")

Owner = tuple[str, str | None]  # (module path relative to the core, class name or None)
Pair = tuple[str, str]  # (rule, name)


class Unreadable(Exception):
    """A call whose name or rule this test cannot work out."""


@dataclass
class Harvest:
    raised: dict[Owner, set[Pair]] = field(default_factory=dict)
    refiled: dict[Owner, dict[str, tuple[set[str], set[str] | None]]] = field(
        default_factory=dict)  # owner -> rule -> (names excluded, names allowed or None)
    forwarded: list[str] = field(default_factory=list)  # where: file:line
    unreadable: list[str] = field(default_factory=list)


@dataclass
class Source:
    path: str
    tree: ast.Module
    parents: dict[ast.AST, ast.AST]


def _source(path: str, text: str) -> Source:
    tree = ast.parse(text, filename=path)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    return Source(path, tree, parents)


def _sources() -> list[Source]:
    return [_source(p.relative_to(CORE).as_posix(), p.read_text(encoding="utf-8"))
            for p in sorted(CORE.rglob("*.py"))]


SOURCES = _sources()


def _callee(call: ast.Call) -> str | None:
    f = call.func
    if isinstance(f, ast.Attribute):
        return f.attr
    if isinstance(f, ast.Name):
        return f.id
    return None


def _ancestors(src: Source, node: ast.AST) -> Iterator[ast.AST]:
    while node in src.parents:
        node = src.parents[node]
        yield node


def _function(src: Source, node: ast.AST) -> ast.FunctionDef | None:
    return next((a for a in _ancestors(src, node) if isinstance(a, ast.FunctionDef)), None)


def _declares_rules(cls: ast.ClassDef) -> bool:
    for stmt in cls.body:
        target = stmt.target if isinstance(stmt, ast.AnnAssign) else (
            stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None)
        if isinstance(target, ast.Name) and target.id == "RULES":
            return True
    return False


def _owner(src: Source, node: ast.AST) -> Owner:
    """The class whose RULES declare this call, or the module (class None)."""
    cls = next((a for a in _ancestors(src, node) if isinstance(a, ast.ClassDef)), None)
    if cls is not None and _declares_rules(cls):
        return src.path, cls.name
    return src.path, None


def _params(fn: ast.FunctionDef) -> list[str]:
    """Positional parameters, without the ``self`` of a method."""
    names = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    return names[1:] if names and names[0] == "self" else names


def _arg(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    if index < len(call.args):
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _local(fn: ast.FunctionDef | None, name: str) -> ast.expr | None:
    """The value of a local variable assigned exactly once in ``fn``."""
    if fn is None:
        return None
    values = [n.value for n in ast.walk(fn) if isinstance(n, ast.Assign)
              and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
              and n.targets[0].id == name]
    return values[0] if len(values) == 1 else None


# ------------------------------------------------------------------ resolving a rule passed in
def _defs(name: str) -> list[tuple[Source, ast.FunctionDef]]:
    return [(s, n) for s in SOURCES for n in ast.walk(s.tree)
            if isinstance(n, ast.FunctionDef) and n.name == name]


def _fits(call: ast.Call, fn: ast.FunctionDef) -> bool:
    """The call's positional arguments fit the function's positional parameters."""
    params = _params(fn)
    required = len(params) - len(fn.args.defaults)
    given = len(call.args) + sum(1 for k in call.keywords if k.arg in params)
    return required <= given <= len(params)


def _param_values(fn: ast.FunctionDef, param: str, seen: frozenset[str]) -> set[str]:
    """Every rule ID passed as ``param`` of ``fn`` at its call sites in the core."""
    key = f"{fn.name}.{param}.{fn.lineno}"
    if key in seen:
        return set()
    seen = seen | {key}
    index = _params(fn).index(param)
    values: set[str] = set()
    for src in SOURCES:
        for call in ast.walk(src.tree):
            if not isinstance(call, ast.Call) or _callee(call) != fn.name or not _fits(call, fn):
                continue
            expr = _arg(call, index, param)
            if expr is None:
                continue
            if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
                if not RULE_ID.match(expr.value):
                    raise Unreadable(f"{src.path}:{call.lineno}: {expr.value!r} is no rule ID")
                values.add(expr.value)
                continue
            outer = _function(src, call)
            if isinstance(expr, ast.Name) and outer is not None and expr.id in _params(outer):
                values |= _param_values(outer, expr.id, seen)
                continue
            raise Unreadable(f"{src.path}:{call.lineno}: the rule passed to {fn.name} is "
                             f"{ast.unparse(expr)}")
    return values


def _class_attribute(attr: str) -> set[str]:
    """Every literal a class body assigns to ``attr`` (``fold_rule: ClassVar[str] = "BET-08"``)."""
    values = set()
    for src in SOURCES:
        for cls in ast.walk(src.tree):
            if not isinstance(cls, ast.ClassDef):
                continue
            for stmt in cls.body:
                target = stmt.target if isinstance(stmt, ast.AnnAssign) else (
                    stmt.targets[0] if isinstance(stmt, ast.Assign) else None)
                value = stmt.value if isinstance(stmt, (ast.AnnAssign, ast.Assign)) else None
                if isinstance(target, ast.Name) and target.id == attr and \
                        isinstance(value, ast.Constant) and isinstance(value.value, str):
                    values.add(value.value)
    return values


# ------------------------------------------------------------------ names and rules as literals
class Values:
    """The values an expression can take, one condition outcome at a time."""

    def __init__(self, src: Source, fn: ast.FunctionDef | None) -> None:
        self.src, self.fn = src, fn

    def tests(self, expr: ast.expr) -> dict[str, ast.expr]:
        """The conditions of the conditional expressions in ``expr`` (locals expanded)."""
        found: dict[str, ast.expr] = {}
        for node in ast.walk(expr):
            if isinstance(node, ast.IfExp):
                found[ast.dump(node.test)] = node.test
            elif isinstance(node, ast.Name) and (value := _local(self.fn, node.id)) is not None:
                found |= self.tests(value)
        return found

    def value(self, expr: ast.expr, world: Mapping[str, bool]) -> set[str] | None:
        """The string(s) ``expr`` is in ``world``; None if it is not made of literals."""
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return {expr.value}
        if isinstance(expr, ast.IfExp):
            return self.value(expr.body if self.truth(expr.test, world) else expr.orelse, world)
        if isinstance(expr, ast.Name):
            local = _local(self.fn, expr.id)
            if local is not None:
                return self.value(local, world)
            if self.fn is not None and expr.id in _params(self.fn):
                return _param_values(self.fn, expr.id, frozenset())
        return None

    def truth(self, test: ast.expr, world: Mapping[str, bool]) -> bool:
        """A comparison of a known value with a literal is decided; any other test is free."""
        if isinstance(test, ast.Compare) and len(test.ops) == 1 \
                and isinstance(test.ops[0], (ast.Eq, ast.NotEq)):
            left = self.value(test.left, world)
            right = self.value(test.comparators[0], world)
            if left is not None and right is not None and len(left) == len(right) == 1:
                return (left == right) == isinstance(test.ops[0], ast.Eq)
        return world[ast.dump(test)]

    def pairs(self, name: ast.expr, rule: ast.expr) -> set[Pair] | None:
        """Every (rule, name) the call can raise; None if either is not made of literals."""
        tests = self.tests(name) | self.tests(rule)
        out: set[Pair] = set()
        for outcome in itertools.product((True, False), repeat=len(tests)):
            world = dict(zip(tests, outcome, strict=True))
            names = self.value(name, world)
            # a rule read from an attribute: what the classes set it to (``game.fold_rule``)
            rules = (_class_attribute(rule.attr) or None) if isinstance(rule, ast.Attribute) \
                else self.value(rule, world)
            if names is None or rules is None:
                return None
            out |= {(r, n) for r in rules for n in names}
        return out


def _guards(src: Source, call: ast.Call, name: ast.expr) -> tuple[set[str], set[str] | None]:
    """Names excluded (``if v.name != "x":``) or allowed by the ifs around a call."""
    excluded: set[str] = set()
    allowed: set[str] | None = None
    child: ast.AST = call
    for a in _ancestors(src, call):
        if isinstance(a, ast.If) and isinstance(a.test, ast.Compare) and len(a.test.ops) == 1 \
                and ast.dump(a.test.left) == ast.dump(name) \
                and isinstance(a.test.comparators[0], ast.Constant):
            literal = str(a.test.comparators[0].value)
            equal = isinstance(a.test.ops[0], ast.Eq) == (child in a.body)
            if equal:
                allowed = {literal}
            else:
                excluded.add(literal)
        child = a
    return excluded, allowed


def _harvest(sources: list[Source]) -> Harvest:
    h = Harvest()
    for src in sources:
        for call in ast.walk(src.tree):
            if not isinstance(call, ast.Call) or _callee(call) not in RAISERS:
                continue
            fn = _function(src, call)
            where = f"{src.path}:{call.lineno}"
            name, rule = _arg(call, 0, "name"), _arg(call, 1, "rule")
            if name is None or rule is None:
                h.unreadable.append(f"{where}: no name and rule")
                continue
            if fn is not None and fn.name in RAISERS and isinstance(name, ast.Name) \
                    and name.id in _params(fn):
                continue  # the body of a builder such as _irr: its call sites are the raises
            owner = _owner(src, call)
            if isinstance(name, ast.Attribute) and name.attr == "name":
                if isinstance(rule, ast.Attribute) and rule.attr == "rule" \
                        and ast.dump(rule.value) == ast.dump(name.value):
                    h.forwarded.append(where)  # declared where the object is built
                    continue
                if isinstance(rule, ast.Constant) and isinstance(rule.value, str):
                    h.refiled.setdefault(owner, {})[rule.value] = _guards(src, call, name)
                    continue
            try:
                pairs = Values(src, fn).pairs(name, rule)
            except Unreadable as err:
                h.unreadable.append(str(err))
                continue
            if pairs is None:
                h.unreadable.append(f"{where}: {ast.unparse(name)}, {ast.unparse(rule)}")
                continue
            h.raised.setdefault(owner, set()).update(pairs)
    return h


HARVEST = _harvest(SOURCES)


def _module(path: str) -> str:
    return "tablesvc.core." + path.removesuffix(".py").replace("/", ".")


def _declared(owner: Owner) -> Mapping[str, tuple[str, ...]] | None:
    module = importlib.import_module(_module(owner[0]))
    scope = module if owner[1] is None else getattr(module, owner[1])
    rules = vars(scope).get("RULES")
    return rules if isinstance(rules, Mapping) else None


def _declarations() -> dict[Owner, Mapping[str, tuple[str, ...]]]:
    """Every non-empty RULES of the core: module-level, or a class's own."""
    out: dict[Owner, Mapping[str, tuple[str, ...]]] = {}
    for src in SOURCES:
        owners: list[Owner] = [(src.path, None)]
        owners += [(src.path, n.name) for n in src.tree.body
                   if isinstance(n, ast.ClassDef) and _declares_rules(n)]
        for owner in owners:
            rules = _declared(owner)
            if rules:
                out[owner] = rules
    return out


DECLARED = _declarations()


def _pairs(rules: Mapping[str, tuple[str, ...]]) -> set[Pair]:
    return {(rule, name) for rule, names in rules.items() for name in names}


def _label(owner: Owner) -> str:
    return owner[0] + (f" {owner[1]}" if owner[1] else "")


def _violation_names() -> set[str]:
    return {name for owner, pairs in HARVEST.raised.items() if owner[0] in VIOLATION_SOURCES
            for _, name in pairs}


def _refiled_pairs(owner: Owner) -> set[Pair]:
    out = set()
    for rule, (excluded, allowed) in HARVEST.refiled.get(owner, {}).items():
        names = _violation_names() - excluded
        out |= {(rule, n) for n in (names if allowed is None else names & allowed)}
    return out


def test_every_alert_call_of_the_core_is_read() -> None:
    """No alert is raised in a shape the declaration check cannot see."""
    assert not HARVEST.unreadable, "\n".join(HARVEST.unreadable)
    assert sum(len(p) for p in HARVEST.raised.values()) >= 100  # the harvest itself works
    assert HARVEST.forwarded  # the session forwards the trackers' and the ledger's alerts


def test_the_reader_follows_conditions_parameters_and_class_attributes() -> None:
    """The shapes of the core's alert calls are read as the code means them."""
    holdem, draw = HARVEST.raised[("games/community/tracker.py", None)], \
        HARVEST.raised[("games/draw5/exchanges.py", None)]
    # "burn_wrong_zone" if burn else "deal_order_error", "BURN-02" if burn else "DEAL-02"
    assert {("BURN-02", "burn_wrong_zone"), ("DEAL-02", "deal_order_error")} <= holdem
    assert ("BURN-02", "deal_order_error") not in holdem
    # name = "draw_count_mismatch" if ... else ...; "DRAW-07" if name == "draw_count_mismatch"
    assert {("DRAW-07", "draw_count_mismatch"), ("DRAW-02", "draw_declaration_mismatch")} <= draw
    assert ("DRAW-02", "draw_count_mismatch") not in draw
    assert ("DRAW-07", "draw_declaration_mismatch") not in draw
    # a rule passed to require_misdeal(rec, seat, rule, message), also from another module
    assert ("MISDEAL-07", "misdeal_required") in holdem
    # a conditional rule inside the function a game hands back for a defective deck
    assert {("MISDEAL-10", "deck_defective_duplicate"), ("DECK-04", "deck_defective_duplicate")
            } <= HARVEST.raised[("games/community/variant.py", "CommunityGame")]
    # fold_recorded and showdown_order: each game's, under its own rule; none the session's
    community = HARVEST.raised[("games/community/variant.py", "CommunityGame")]
    draw5 = ("games/draw5/variant.py", "Draw5")
    assert {("BET-08", "fold_recorded"), ("SHOW-01", "showdown_order")} <= community
    assert {("BET-26", "fold_recorded"), ("SHOW-14", "showdown_order")} <= HARVEST.raised[draw5]
    assert not {name for _, name in HARVEST.raised[("session.py", "HandSession")]} & {
        "fold_recorded", "showdown_order"}
    # draw's violations re-filed under BET-21, except the out-of-turn ones it rules itself
    assert ("BET-21", "call_short") in _refiled_pairs(draw5)
    assert ("BET-21", "action_out_of_turn") not in _refiled_pairs(draw5)


def test_an_alert_of_an_unknown_shape_is_reported() -> None:
    code = ("def f(out, kind):\n"
            "    out.alert(kind.upper(), 'BET-01', 'warning', 'x')\n"
            "    out.alert('a_name', RULE_OF[kind], 'warning', 'x')\n")
    h = _harvest([_source("example.py", code)])
    assert len(h.unreadable) == 2 and not h.raised, h


def test_every_alert_raised_is_declared_where_it_is_raised() -> None:
    missing = []
    for owner in sorted(set(HARVEST.raised) | set(HARVEST.refiled), key=str):
        rules = _declared(owner)
        declared = _pairs(rules or {})
        for rule, name in sorted(HARVEST.raised.get(owner, set()) | _refiled_pairs(owner)):
            if (rule, name) not in declared:
                missing.append(f"{_label(owner)}: {rule!r}: ({name!r},)")
    assert not missing, "raised but not declared in RULES:\n" + "\n".join(missing)


def test_every_declared_alert_is_raised_there() -> None:
    stale = []
    for owner, rules in sorted(DECLARED.items(), key=str):
        raised = HARVEST.raised.get(owner, set()) | _refiled_pairs(owner)
        stale += [f"{_label(owner)}: {rule} {name}"
                  for rule, name in sorted(_pairs(rules) - raised)]
    assert not stale, "declared in RULES but raised nowhere there:\n" + "\n".join(stale)


def test_declarations_are_well_formed() -> None:
    for owner, rules in DECLARED.items():
        for rule, names in rules.items():
            assert RULE_ID.match(rule), (owner, rule)
            assert isinstance(names, tuple) and names, (owner, rule)
            assert len(set(names)) == len(names), (owner, rule, names)
            assert all(ALERT_NAME.match(n) for n in names), (owner, rule, names)


def test_every_declared_rule_is_in_the_catalogue() -> None:
    """Each rule ID names a rule of the catalogue (tablesvc/rules/catalogue.toml); TABLE-00 is
    the technical alerts'."""
    known = {r.id for r in load()}
    assert TECHNICAL not in known
    unknown = sorted({f"{_label(o)}: {r}" for o, rules in DECLARED.items() for r in rules
                      if r not in known and r != TECHNICAL})
    assert not unknown, "rule IDs not in the catalogue:\n" + "\n".join(unknown)
