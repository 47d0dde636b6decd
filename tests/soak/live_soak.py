"""The room soak, end to end: accidents at random to a live table while its dealer deals on.

Real parts only: virtual devices on ptys, ``tablesvc run`` as its own process, mosquitto, a
subscriber reading the table's feeds as a consumer does (``tests.integration.live_room``). The
dealer deals at twenty times the demo's pace and never waits: while the service is killed,
stopped cleanly, frozen (SIGSTOP/SIGCONT), started on an empty storage, or a device's cable is
out, a device resets or its line loses frames, he deals on. Each accident's kind, length
(0-60 s), moment (how far into a hand) and device come from one seed, printed first, so that a
failing soak can be run again: ``make soak ARGS="--seed N"``.

After each accident the soak waits (for conditions, never a guessed time) until the service has
followed the hands after the one under way when it was back (two of them, ``--through``); where
stacks were left unverified the floor counts the chips between two hands, as a floor does. The
verdict on each accident (``tests.integration.outages.judge``) is printed as the next begins:
at most one hand untracked, at most one warning of the accident's kind and none in the hands
after the first one followed, never a critical, one ``button_found`` notice after a restart,
and every later button, board, hole card, pot and stack (those not unverified) the table's.
Each session ends with its feeds checked whole (no seq gap, nothing lost, exactly what its
journals replay to).
Sessions alternate hold'em and five-card draw; a session ends after ``--per-session``
accidents, or when players bust out (a draw game needs three).

``make test`` runs a short soak (``tests/soak/test_live_soak.py``): every kind once, short
lengths, a fixed seed. Test code only.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from simulators.virtual import VirtualTableRig
from tablesvc.brokers.mosquitto import Mosquitto
from tests.conftest import ServiceProcess, Subscriber
from tests.integration.live_room import (
    DEVICES,
    Dealing,
    LiveTable,
    assert_feed_whole,
    assert_floor_is_events,
    prefix_of,
    write_config,
)
from tests.integration.outages import KINDS, Accident, Room, Verdict, hold

PACE = 0.0125
"""Seconds between the dealer's actions: the demo's 0.25 s, twenty times faster."""
GAMES = ("holdem", "draw5")
LASTING = frozenset({"kill", "stop", "freeze", "empty_storage", "cable"})
"""Kinds that last a while; a device's reset and a burst of lost frames take no time."""
MOST_LOST = 12
"""The most frames of one device a burst of line noise loses."""
HAND_S = 0.7
"""About how long a hand takes at this pace: an accident begins this far into one, at most."""
SEATS = {
    "holdem": {s: 20_000 for s in (1, 2, 4, 5, 7, 9)},
    "draw5": {s: 20_000 for s in (1, 2, 4, 5, 7, 8, 9)},
}


@dataclass(frozen=True)
class Plan:
    """One accident as drawn from the seed."""

    kind: str
    length: float
    moment: float
    """Seconds after a hand ends that it begins."""
    device: str | None = None
    frames: int = 0
    instead: str = "kill"
    """The kind to do if this one cannot be done then (an empty storage once players have
    busted out: the config's ``[[players]]`` would seat them again)."""


def draw_plans(rng: random.Random, count: int, max_length: float, kinds: Sequence[str],
               every_kind_once: bool = False) -> list[Plan]:
    """``count`` accidents of random kind, length, moment and device; with
    ``every_kind_once`` the kinds are ``kinds`` in a random order (``count`` is then
    ``len(kinds)``)."""
    chosen = list(kinds) if every_kind_once else [rng.choice(kinds) for _ in range(count)]
    if every_kind_once:
        rng.shuffle(chosen)
    plans = []
    for kind in chosen:
        plans.append(Plan(
            kind=kind,
            length=round(rng.uniform(0, max_length), 1) if kind in LASTING else 0.0,
            moment=round(rng.uniform(0, HAND_S), 2),
            device=rng.choice(DEVICES) if kind in ("cable", "reset", "lost") else None,
            frames=rng.randint(1, MOST_LOST) if kind == "lost" else 0,
            instead=rng.choice([k for k in kinds if k != "empty_storage"] or ["kill"])))
    return plans


@dataclass
class Outcome:
    """What a soak found: every accident's verdict, and what else went wrong per session."""

    seed: int
    verdicts: list[Verdict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    sessions: int = 0
    hands: int = 0
    seconds: float = 0.0

    @property
    def failed(self) -> list[Verdict]:
        return [v for v in self.verdicts if not v.ok]

    @property
    def ok(self) -> bool:
        return not self.failed and not self.problems

    def summary(self) -> str:
        accidents = [v for v in self.verdicts if v.accident.kind != "start"]
        kinds = Counter(v.accident.kind for v in accidents)
        warnings = Counter(w.split(" ")[0] for v in accidents for w in v.warnings)
        lines = [
            f"room soak, seed {self.seed}: {len(accidents)} accidents "
            f"({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}) in {self.sessions} "
            f"sessions, {self.hands} hands dealt, {self.seconds:.0f} s",
            f"  untracked hands {sum(len(v.untracked) for v in accidents)}, floor warnings "
            f"{dict(warnings) or 'none'}",
            f"  verdicts (each session's start is one): {len(self.verdicts) - len(self.failed)} "
            f"ok, {len(self.failed)} failed; other problems: {len(self.problems)}",
        ]
        lines += [f"  {v.line()}" for v in self.failed]
        lines += [f"  problem: {p}" for p in self.problems]
        if not self.ok:
            lines.append(f"  run it again: make soak ARGS=\"--seed {self.seed}\"")
        return "\n".join(lines)


def soak(seed: int, accidents: int, work: Path, broker: Mosquitto, *,
         max_length: float = 60.0, kinds: Sequence[str] = KINDS,
         games: Sequence[str] = GAMES, per_session: int = 10, every_kind_once: bool = False,
         through: int = 1, say: Callable[[str], None] = print) -> Outcome:
    """Run the soak; ``say`` gets one line (or a few) per accident as it is judged.
    ``through``: the hands after the first one followed after an accident that the service
    is seen to follow before the next accident may begin (``Room``)."""
    rng = random.Random(seed)
    plans = draw_plans(rng, accidents, max_length, kinds, every_kind_once)
    outcome = Outcome(seed)
    began = time.monotonic()
    say(f"room soak: seed {seed}, {len(plans)} accidents, lengths up to {max_length:.0f} s, "
        f"games {', '.join(games)} (again: make soak ARGS=\"--seed {seed}\")")
    while plans:
        game = games[outcome.sessions % len(games)]
        outcome.sessions += 1
        done = run_session(outcome, game, rng.randrange(1 << 30), plans[:per_session], work,
                           broker, through, say)
        plans = plans[max(done, 1):]  # a session that could not deal at all costs a plan
    outcome.seconds = time.monotonic() - began
    return outcome


def run_session(outcome: Outcome, game: str, seed: int, plans: list[Plan], work: Path,
                broker: Mosquitto, through: int, say: Callable[[str], None]) -> int:
    """One table's session with ``plans`` done to it; returns how many were done."""
    n = outcome.sessions
    table = f"t{n:02d}"
    folder = work / f"session-{n:02d}"
    folder.mkdir(parents=True)
    seats = SEATS[game]
    say(f"session {n}: {game}, table seed {seed}, seats {sorted(seats)}")
    rig = VirtualTableRig(folder / "sim", seats=seats, seed=seed, pace=PACE,
                          chips=folder / "chips.json", limit="pot-limit", aggression=0.03,
                          all_in_share=0.0, variant=game, ante=25 if game == "draw5" else 0)
    sub = Subscriber(broker.port, f"{prefix_of(table)}/#")
    services: list[ServiceProcess] = []

    def service(cfg: Path) -> ServiceProcess:
        services.append(ServiceProcess(cfg))
        return services[-1]

    game_toml = 'limit = "pot-limit"\n' + (
        'variant = "draw5"\nante = 25\n' if game == "draw5" else "")
    cfg = write_config(folder, rig, broker.port, table, seats, game=game_toml)
    t = LiveTable(folder, rig, cfg, sub, service, table=table)
    room = Room(t, Dealing(rig, None, min_players=3), through=through)
    printed = 0

    def judge_closed() -> None:
        """Print the verdicts of the accidents whose part of the session is over."""
        nonlocal printed
        verdicts = room.verdicts()
        for v in verdicts[printed:len(room.accidents) - 1]:
            say(f"  {v.line()}")
        printed = len(room.accidents) - 1

    done = 0
    try:
        t.start()
        room.dealing.start()
        room.settle()
        for plan in plans:
            if not room.dealing.dealing:
                say("  the dealer stopped: players busted out")
                break
            kind = plan.kind
            if kind == "empty_storage" and set(rig.table.seated()) != set(seats):
                kind = plan.instead  # [[players]] would seat the busted players again
            room.dealing.wait_hands(len(room.records) + 1, "a hand to end")
            hold(plan.moment)
            room.accident(kind, length=plan.length, device=plan.device, frames=plan.frames,
                          on_begin=judge_closed)
            done += 1
            if room.needs_count():
                room.count_chips()
        room.finish()
    except Exception as exc:  # the harness or the service gave out: this session ends here
        outcome.problems.append(f"session {n} ({game}, table seed {seed}): "
                                f"{type(exc).__name__}: {exc}")
        say(f"  session {n} broke off: {traceback.format_exc(limit=3)}")
    finally:
        room.dealing.stop()
        t.thaw()
        for svc in services:
            if svc.proc is not None and svc.proc.poll() is None:
                svc.proc.kill()
                svc.proc.wait(10)
        rig.close()
    verdicts = room.verdicts()
    for v in verdicts[printed:]:
        say(f"  {v.line()}")
    outcome.verdicts += verdicts
    outcome.hands += len(room.records)
    try:
        assert_floor_is_events(t)
        assert_feed_whole(t)
    except AssertionError as exc:
        outcome.problems.append(f"session {n} ({game}): {exc}")
        say(f"  FAIL the feeds: {exc}")
    else:
        say(f"  ok   the feeds: whole, and what the journal{'s' if len(t.epochs) > 1 else ''} "
            "replay to")
    sub.close()
    return done


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="make soak ARGS=...", description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=None, help="the seed to run (default: new)")
    p.add_argument("--accidents", type=int, default=100)
    p.add_argument("--max-length", type=float, default=60.0,
                   help="the longest an accident lasts, seconds")
    p.add_argument("--kinds", default=",".join(KINDS), help=f"of {', '.join(KINDS)}")
    p.add_argument("--games", default=",".join(GAMES))
    p.add_argument("--per-session", type=int, default=10,
                   help="accidents per table session")
    p.add_argument("--through", type=int, default=1,
                   help="hands seen followed after the first one after an accident, before "
                   "the next accident (default 1)")
    p.add_argument("--keep", action="store_true",
                   help="keep the work folder (journals, service logs) even if all is well")
    args = p.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    games = [g for g in args.games.split(",") if g]
    if unknown := (set(kinds) - set(KINDS)) | (set(games) - set(GAMES)):
        p.error(f"unknown: {', '.join(sorted(unknown))}")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    work = Path(tempfile.mkdtemp(prefix="tablesvc-soak-"))
    broker = Mosquitto(work)
    broker.start()
    try:
        outcome = soak(seed, args.accidents, work, broker, max_length=args.max_length,
                       kinds=kinds, games=games, per_session=args.per_session,
                       through=args.through, say=lambda line: print(line, flush=True))
    finally:
        broker.stop()
    print(outcome.summary())
    if args.keep or not outcome.ok:
        print(f"work folder (journals, service logs): {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if outcome.ok else 1


__all__ = ["Accident", "Outcome", "Plan", "draw_plans", "main", "soak"]

if __name__ == "__main__":
    sys.exit(main())
