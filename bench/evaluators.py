"""Hand evaluators compared: how they install, 7-card evaluations per second, and agreement.

The figures behind the choice in docs/EVALUATOR.md. Each candidate is timed twice on the same
random 7-card hands: from its own card objects (the raw speed) and from card strings like
"As" (what the service has). A candidate that is not installed is reported and skipped; only
the chosen one is a dependency, the others come with ``pip install eval7`` and the like.

    python -m bench.evaluators [--hands 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata as md
import itertools
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

DECK = [r + s for r in "23456789TJQKA" for s in "shdc"]
Hand = list[str]
Score = Callable[[Any], int]  # higher is better


@dataclass
class Candidate:
    """One library: how to turn card strings into its own cards, and how to score them."""

    name: str  # distribution and module name
    prepare: Callable[[Hand], Any]  # card strings -> the library's own representation
    score: Score  # the library's representation -> an int, higher is better
    role: str = "candidate"
    strings: Callable[[Hand], int] | None = None  # the library's own path from strings

    def from_strings(self, hand: Hand) -> int:
        if self.strings is not None:
            return self.strings(hand)
        return self.score(self.prepare(hand))


def _phevaluator(mod: Any) -> Candidate:
    evaluator = importlib.import_module("phevaluator.evaluator")
    to_id = importlib.import_module("phevaluator.card").Card.to_id
    evaluate_7, evaluate_any = evaluator.evaluate_7cards, evaluator.evaluate_cards

    def prepare(hand: Hand) -> list[int]:
        return [int(to_id(c)) for c in hand]

    def score(ids: list[int]) -> int:
        return -int(evaluate_7(*ids))  # 1 is the best hand

    def strings(hand: Hand) -> int:
        return -int(evaluate_any(*hand))  # it parses "As" itself

    return Candidate("phevaluator", prepare, score, strings=strings)


def _eval7(mod: Any) -> Candidate:
    card, evaluate = mod.Card, mod.evaluate

    def prepare(hand: Hand) -> list[Any]:
        return [card(c) for c in hand]

    def score(cards: list[Any]) -> int:
        return int(evaluate(cards))

    return Candidate("eval7", prepare, score)


def _pokerkit(mod: Any) -> Candidate:
    high = mod.StandardHighHand

    def prepare(hand: Hand) -> Any:
        return high.from_game("".join(hand[:2]), "".join(hand[2:]))

    def score(value: Any) -> int:
        return 0  # its hands compare as objects; the unit tests check its order instead

    return Candidate("pokerkit", prepare, score, role="reference")


BUILDERS: dict[str, Callable[[Any], Candidate]] = {
    "phevaluator": _phevaluator, "eval7": _eval7, "pokerkit": _pokerkit}


@dataclass
class Loaded:
    cand: Candidate | None
    version: str
    import_ms: float
    note: str


def load(name: str) -> Loaded:
    """Import a candidate and describe its installation (version, wheel kind, size, needs)."""
    try:
        version = md.version(name)
    except md.PackageNotFoundError:
        return Loaded(None, "-", 0.0, f"not installed (pip install {name} to compare)")
    t = time.perf_counter()
    try:  # the builder imports the evaluating submodules, which some packages load lazily
        cand = BUILDERS[name](importlib.import_module(name))
    except ImportError as exc:
        return Loaded(None, version, 0.0, f"installed but does not import: {exc}")
    import_ms = (time.perf_counter() - t) * 1000
    files = md.files(name) or []
    compiled = any(str(f).endswith((".so", ".pyd")) for f in files)
    size = sum((f.size or 0) for f in files) / 1e6
    needs = [r.split(";")[0].strip() for r in (md.requires(name) or []) if "extra ==" not in r]
    note = (f"{'compiled' if compiled else 'pure Python'} wheel, {size:.1f} MB installed, "
            f"needs: {', '.join(needs) or 'nothing'}, first import {import_ms:.0f} ms")
    return Loaded(cand, version, import_ms, note)


def rate(fn: Callable[[Any], object], items: Sequence[Any], repeat: int) -> float:
    """Calls per second, best of ``repeat`` passes over ``items``."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for item in items:
            fn(item)
        best = min(best, time.perf_counter() - t)
    return len(items) / best


def agreement(a: Candidate, b: Candidate, hands: Sequence[Hand]) -> str:
    """Do two evaluators order the hands the same way? Checked over every pair at once.

    Two scores order all pairs alike exactly when sorting by one sorts by the other and equal
    values map one-to-one; random neighbouring pairs are counted too, as a plain-words figure.
    """
    sa = [a.from_strings(h) for h in hands]
    sb = [b.from_strings(h) for h in hands]
    pairs = sorted(set(zip(sa, sb, strict=True)))
    one_to_one = len({x for x, _ in pairs}) == len({y for _, y in pairs}) == len(pairs)
    monotone = all(p[1] < q[1] for p, q in itertools.pairwise(pairs))
    sign = [((x > y) - (x < y), (u > v) - (u < v))
            for x, y, u, v in zip(sa, sa[1:], sb, sb[1:], strict=False)]
    differ = sum(p != q for p, q in sign)
    verdict = "same order for every pair" if one_to_one and monotone else "ORDER DIFFERS"
    return (f"{a.name} vs {b.name} on {len(hands):,} random 7-card hands: {verdict} "
            f"({len(pairs):,} distinct values); {len(sign):,} neighbouring pairs, "
            f"{differ} disagree on winner or tie")


def run(hands: int = 100_000, repeat: int = 3, seed: int = 7) -> None:
    rng = random.Random(seed)
    deals = [rng.sample(DECK, 7) for _ in range(hands)]
    print(f"hand evaluators: 7-card evaluations per second, best of {repeat} over "
          f"{hands:,} random hands")
    loaded = {name: load(name) for name in BUILDERS}
    for name, got in loaded.items():
        print(f"  {name} {got.version}: {got.note}")
        cand = got.cand
        if cand is None:
            continue
        if cand.role == "reference":
            few = deals[: max(1, hands // 50)]  # pure Python: a smaller sample is enough
            print(f"      from strings        {rate(cand.prepare, few, 1):>12,.0f}/s  (reference)")
            continue
        native = [cand.prepare(h) for h in deals]
        print(f"      own card objects    {rate(cand.score, native, repeat):>12,.0f}/s")
        print(f"      from strings \"As\"   {rate(cand.from_strings, deals, repeat):>12,.0f}/s")
    from tablesvc.core.showdown import evaluate

    print(f"  tablesvc evaluate() (value, words, best five): "
          f"{rate(evaluate, deals[: max(1, hands // 5)], repeat):,.0f}/s")
    a, b = loaded["phevaluator"].cand, loaded["eval7"].cand
    if a is not None and b is not None:
        print(f"  agreement: {agreement(a, b, deals)}")


def main() -> None:
    p = argparse.ArgumentParser(prog="bench.evaluators", description=__doc__)
    p.add_argument("--hands", type=int, default=100_000)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    run(a.hands, a.repeat)


if __name__ == "__main__":
    main()
