"""Run a virtual table until interrupted: ``python -m simulators [FOLDER] [options]``.

Prints the device URLs and registry paths to put in the service's configuration, then deals:
random hands, or with ``--phh FILE`` exactly the hand that PHH file records (then stops).
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import threading
from pathlib import Path

from simulators.phh import load_phh
from simulators.records import HandRecord
from simulators.script import ScriptError
from simulators.table import VARIANTS
from simulators.virtual import VirtualTableRig


def _parse_seats(text: str) -> dict[int, int]:
    """``1=10000,3=5000`` -> {1: 10000, 3: 5000}."""
    seats: dict[int, int] = {}
    for part in text.split(","):
        seat, _, stack = part.partition("=")
        seats[int(seat)] = int(stack)
    return seats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m simulators", description=__doc__)
    ap.add_argument("folder", nargs="?", type=Path, help="work folder (default: a new temp dir)")
    ap.add_argument("--tcp", action="store_true", help="serve devices over TCP, not ptys")
    ap.add_argument("--decks", type=Path, help="deck registry folder to deal from")
    ap.add_argument("--seats", type=_parse_seats, default=None, help="e.g. 1=10000,2=10000")
    ap.add_argument("--blinds", default="50/100", help="small/big blind")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--pace", type=float, default=0.5, help="seconds between dealer actions")
    ap.add_argument("--handover", type=float, default=0.0,
                    help="at least this many seconds where a person's action hands over to "
                         "another device (four times before a NEWHAND)")  # fmt: skip
    ap.add_argument("--hands", type=int, help="stop after this many hands")
    ap.add_argument("--limit", default=None,
                    choices=["no-limit", "pot-limit", "fixed-limit"],
                    help="default: the game's (omaha: pot-limit, the others: no-limit)")
    ap.add_argument("--variant", default=None, choices=list(VARIANTS),
                    help="holdem (the default), omaha (pot-limit Omaha, four hole cards), or "
                         "draw5 (five-card draw: antes, no blinds); with --phh, the file's "
                         "game")  # fmt: skip
    ap.add_argument("--ante", type=int, default=0,
                    help="draw5: 0 means one smallest chip")  # fmt: skip
    ap.add_argument("--ante-mode", default="each", choices=["each", "big_blind"])
    ap.add_argument("--aggression", type=float, default=0.0,
                    help="0..1: how often random players bet and raise")  # fmt: skip
    ap.add_argument("--stack-zones", action="store_true",
                    help="the chip reader tells every stack in P1..P10")  # fmt: skip
    ap.add_argument("--button-uid", default=None,
                    help="the dealer button carries this tag (16 uppercase hex digits)")
    ap.add_argument("--phh", type=Path, help="deal this PHH hand history instead")
    args = ap.parse_args(argv)
    script = None
    if args.phh is not None:
        try:
            script = load_phh(args.phh)
        except (OSError, ScriptError) as e:
            print(f"cannot deal {args.phh}: {e}", file=sys.stderr)
            return 2
    sb, _, bb = args.blinds.partition("/")
    folder = args.folder or Path(tempfile.mkdtemp(prefix="virtual-table-"))

    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    extra = {"seats": args.seats} if args.seats else {}
    with VirtualTableRig(
        folder,
        tcp=args.tcp,
        decks=args.decks,
        small_blind=int(sb),
        big_blind=int(bb),
        seed=args.seed,
        pace=args.pace,
        handover=args.handover,
        limit=args.limit,
        ante=args.ante,
        ante_mode=args.ante_mode,
        aggression=args.aggression,
        variant=args.variant or (script.variant if script is not None else "holdem"),
        stack_zones=args.stack_zones,
        button_uid=args.button_uid,
        **extra,
    ) as rig:
        for name, url in rig.device_urls().items():
            print(f"[devices.{name}]\nurl = {url!r}")
        print(f"[registry]\ndecks = {str(rig.decks_dir)!r}\nchips = {str(rig.chips_path)!r}")
        sys.stdout.flush()

        def report(hand: HandRecord) -> None:
            won = ", ".join(f"S{s} +{a}" for s, a in hand.winners.items())
            if hand.variant == "draw5":
                drew = " ".join(f"S{s}:{k}" for s, k in hand.draws.items())
                kept = f"carried over {hand.carried_over}" if hand.carried_over else won
                print(
                    f"game {hand.number}: dealer S{hand.button}, draws {drew or '-'}"
                    f"{', reshuffled' if hand.reshuffled else ''}, {hand.outcome}: {kept}",
                    flush=True,
                )
                return
            print(
                f"hand {hand.number}: button S{hand.button}, board {' '.join(hand.board)}, "
                f"pot {hand.pot} -> {won}",
                flush=True,
            )

        if script is None:
            rig.table.run(args.hands, stop, on_hand=report)
            return 0
        try:
            rig.table.play_script(script, stop)
        except ScriptError as e:
            print(f"cannot deal {args.phh}: {e}", file=sys.stderr)
            return 2
        assert rig.table.last_hand is not None
        report(rig.table.last_hand)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
