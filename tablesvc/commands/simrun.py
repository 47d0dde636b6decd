"""``tablesvc sim --config``: virtual devices for a configured table, for a separately run service.

The simulator package never imports the service's core; this module only translates the
config into the simulator's plain parameters and prints what to put in the service's config.
The table's own evidence comes from the same config the service reads: ``[table] stack_zones``
(the chip reader tells every stack in ``P1``..``P10``) and ``[registry.button] uid`` (the
dealer button carries that tag), so the two agree on what the table shows.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from simulators.scenario import Scenario
from simulators.script import ONLY_LIMIT
from simulators.table import default_limit
from simulators.virtual import VirtualTableRig
from tablesvc.config.table import Config, resolve

DEFAULT_SEATS = {s: 10_000 for s in range(1, 7)}


def _print_devices(rig: VirtualTableRig) -> None:
    print("# virtual devices are up; put these into the service's config:")
    for name, url in rig.device_urls().items():
        print(f'[devices.{name}]\nurl = "{url}"')


def run_sim(cfg: Config, cfg_path: Path, args: argparse.Namespace) -> int:
    script = None
    if getattr(args, "phh", None):
        from simulators.phh import load_phh
        from simulators.script import ScriptError

        try:
            script = load_phh(Path(args.phh))
        except (ScriptError, OSError, ValueError) as err:
            print(f"cannot deal {args.phh}: {err}", file=sys.stderr)
            return 2
    scenario = None
    if getattr(args, "scenario", None):
        from simulators.scenario import ScenarioError, load_scenario

        if script is not None:
            print("give --phh or --scenario, not both", file=sys.stderr)
            return 2
        try:
            scenario = load_scenario(Path(args.scenario))
        except ScenarioError as err:
            print(f"cannot play {err}", file=sys.stderr)
            return 2
    folder = (Path(args.dir) if args.dir else resolve(cfg_path, cfg.storage.dir) / "sim").resolve()
    seats = {p.seat: p.stack for p in cfg.players} or DEFAULT_SEATS
    if script is not None:
        seats = dict(script.stacks)
    if scenario is not None:
        seats = dict(scenario.setup.seats)
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    game = cfg.game
    if scenario is not None:
        return _run_scenario(scenario, folder, cfg, cfg_path, args, stop)
    variant = getattr(args, "variant", None) or game.variant
    ante = game.ante if getattr(args, "ante", None) is None else args.ante
    # the config's limit is its own game's: a game dealt in one structure only (pot-limit
    # Omaha) asked for on the command line is dealt in that one
    limit = default_limit(variant) if variant != game.variant and variant in ONLY_LIMIT \
        else game.limit
    if script is not None and variant != script.variant:
        print(f"{args.phh} is a hand of {script.variant}: give --variant {script.variant}",
              file=sys.stderr)
        return 2
    try:
        rig = VirtualTableRig(
            folder, tcp=args.tcp, decks=resolve(cfg_path, cfg.registry.decks),
            chips=resolve(cfg_path, cfg.registry.chips), seats=seats,
            small_blind=script.small_blind if script else game.small_blind,
            big_blind=script.big_blind if script else game.big_blind,
            ante=script.ante if script else ante,
            ante_mode=script.ante_mode if script else game.ante_mode,
            limit=script.limit.value if script else limit,
            button=script.button if script else None, seed=args.seed, pace=args.pace,
            variant=variant, stack_zones=cfg.table.stack_zones, button_uid=_button_uid(cfg),
        )
    except ValueError as err:
        print(f"cannot set up the virtual table: {err}", file=sys.stderr)
        return 2
    try:
        _print_devices(rig)
        table = rig.table
        if (table.variant, table.ante, table.limit.value) != (game.variant, game.ante,
                                                              game.limit):
            other_limit = table.limit.value != game.limit
            print(f"# the virtual table deals {table.variant} with ante {table.ante}"
                  f"{f', {table.limit.value}' if other_limit else ''}: put\n"
                  f'[game]\nvariant = "{table.variant}"\nante = {table.ante}'
                  + (f'\nlimit = "{table.limit.value}"' if other_limit else ""))
        if table.stack_zones:
            print("# stack zones: the chip reader tells every stack in P1..P10")
        if table.button_uid is not None:
            print(f"# the dealer button carries the tag {table.button_uid}, now in "
                  f"{table.felt.button_zone}")
        if script is not None:
            names = dict(zip(script.seats, script.players, strict=False))
            print(f"# the hand of {args.phh}: seat these players (button {script.button}) "
                  f"with limit {script.limit.value}, blinds {script.small_blind}/"
                  f"{script.big_blind}, ante {script.ante} ({script.ante_mode}):")
            for seat, stack in script.stacks.items():
                print(f'[[players]]\nseat = {seat}\nname = "{names.get(seat, f"P{seat}")}"\n'
                      f"stack = {stack}")
        elif not cfg.players:
            seated = ", ".join(f"{s}: {st}" for s, st in seats.items())
            print(f"# no [[players]] in the config: the virtual table seats {seated}; seat "
                  "them in the service too (cmd/seat)")
        sys.stdout.flush()
        if stop.wait(args.wait):
            return 0
        dealer = rig.start_script(script) if script is not None else rig.start(args.hands)
        while dealer.is_alive() and not stop.is_set():
            dealer.join(0.2)
        if (args.hands is None and script is None) or stop.is_set():
            return 0
        stop.wait(1.0)  # let the last frames drain before the ports close
        return 0
    finally:
        rig.close()


def _button_uid(cfg: Config) -> str | None:
    """The dealer button's tag, if the config's registry names one."""
    return cfg.registry.button.uid if cfg.registry.button is not None else None


def _run_scenario(scenario: Scenario, folder: Path, cfg: Config, cfg_path: Path,
                  args: argparse.Namespace, stop: threading.Event) -> int:
    """Play one test scenario (RULES.md §4) on the virtual devices, then exit."""
    from simulators.scenario import ScenarioError

    setup = scenario.setup
    if cfg.table.stack_zones != setup.stack_zones or cfg.registry.button is not None:
        zones = "with" if setup.stack_zones else "without"
        print(f"# scenario {scenario.id} is played {zones} stack zones and with an untagged "
              f"button, whatever the config says: set [table] stack_zones = "
              f"{str(setup.stack_zones).lower()} and no [registry.button] in the service's "
              "config")
    try:
        rig = VirtualTableRig(
            folder, tcp=args.tcp, decks=resolve(cfg_path, cfg.registry.decks),
            chips=resolve(cfg_path, cfg.registry.chips), seats=setup.seats,
            small_blind=setup.small_blind, big_blind=setup.big_blind, ante=setup.ante,
            ante_mode=setup.ante_mode, limit=setup.limit, button=setup.button,
            seed=args.seed, pace=args.pace, variant=setup.variant,
        )
    except ValueError as err:
        print(f"cannot set up the virtual table: {err}", file=sys.stderr)
        return 2
    try:
        _print_devices(rig)
        stakes = (f"ante {setup.ante} each" if setup.variant == "draw5" else
                  f"blinds {setup.small_blind}/{setup.big_blind}, ante {setup.ante} "
                  f"({setup.ante_mode})")
        print(f"# scenario {scenario.id} ({scenario.title}): seat these players, button "
              f"{setup.button} (cmd/button), variant {setup.variant}, limit {setup.limit}, "
              f"{stakes}:")
        for seat, stack in setup.seats.items():
            print(f'[[players]]\nseat = {seat}\nname = "P{seat}"\nstack = {stack}')
        sys.stdout.flush()
        if stop.wait(args.wait):
            return 0
        try:
            stacks = rig.play_scenario(scenario, pace=args.pace, stop=stop)
        except ScenarioError as err:
            print(f"scenario stopped: {err}", file=sys.stderr)
            return 1
        print(f"# scenario {scenario.id} played ({len(scenario.steps)} steps); stacks "
              + ", ".join(f"S{s} {v}" for s, v in stacks.items()))
        expected = ", ".join(f"{a.name} ({a.severity})" for a in scenario.expect.alerts)
        print(f"# expected alerts: {expected or 'none'}")
        sys.stdout.flush()
        stop.wait(1.0)  # let the last frames drain before the ports close
        return 0
    finally:
        rig.close()
