"""The ``tablesvc`` command line: run, sim, watch, overlay, floor, tournament, replay, schema,
check-config, deck and chips enroll."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

from tablesvc import __version__
from tablesvc.config.registry import RegistryError
from tablesvc.config.table import Config, ConfigError, load_config

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def _load(path: str) -> Config:
    try:
        return load_config(path)
    except ConfigError as err:
        print(err, file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None


def _stop_on_signals(stop: threading.Event) -> None:
    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)


def _preflight(path: Path) -> tuple[Config | None, list[str], list[str]]:
    from tablesvc.config.preflight import preflight

    found = preflight(path)
    return found.config, found.errors, found.warnings


def cmd_run(args: argparse.Namespace) -> int:
    """Exit 2 (systemd's RestartPreventExitStatus) for what a restart cannot mend: a config,
    registry or storage problem, each named on its own line; 1 for a failure while running,
    after which a restart recovers from the journal."""
    # The service's start is timed to its ports (docs/PERFORMANCE.md, restart): structlog
    # imports rich, when installed, only to offer pretty tracebacks in a terminal, and that is
    # a fifth of the imports before the ports open. The service logs JSON lines or plain
    # console lines; without rich, structlog prints tracebacks as Python does.
    sys.modules.setdefault("rich", None)  # type: ignore[arg-type]
    import sqlite3

    from tablesvc.commands.logs import configure
    from tablesvc.pipeline.ports import Ports, PortsError

    os.umask(0o077)  # journal, outbox, checkpoints, hand histories: the service's user only
    configure(args.log, args.log_level)
    path = Path(args.config)
    cfg, errors, warnings = _preflight(path)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    if errors or cfg is None:
        print(f"config {path} refused, {len(errors)} problem(s):", file=sys.stderr)
        for e in errors:
            print(f"  {e}", file=sys.stderr)
        return EXIT_USAGE
    # a stop asked for while the state is rebuilt (systemd's SIGTERM, Ctrl-C) is a clean stop
    # once it is rebuilt: not a death by the signal's default action half-way through the
    # start, nor a traceback
    stop = threading.Event()
    _stop_on_signals(stop)
    # the ports first, before the core and the publisher are even imported: what the devices
    # send while the state is rebuilt is journalled, not lost (tablesvc.pipeline.ports)
    ports = Ports(cfg, path)
    try:
        ports.open()
    except OSError as err:
        print(f"cannot start: storage {err}", file=sys.stderr)
        return EXIT_USAGE
    from tablesvc.pipeline.journal import JournalError
    from tablesvc.pipeline.recovery import RecoveryError
    from tablesvc.pipeline.service import Service, StartError, StorageError

    try:
        try:
            service = Service(cfg, path, ports)
            service.start()  # recovers from the newest checkpoint and the journal after it
        except BaseException:
            ports.close()  # what arrived meanwhile is in the journal
            raise
    except RegistryError as err:
        print(err, file=sys.stderr)
        return EXIT_USAGE
    except JournalError as err:
        print(f"cannot start: {err} (the journal is kept as it is; see docs/OPERATIONS.md)",
              file=sys.stderr)
        return EXIT_USAGE
    except (RecoveryError, PortsError) as err:
        print(f"cannot start: {err} (see docs/OPERATIONS.md, restarts)", file=sys.stderr)
        return EXIT_USAGE
    except StorageError as err:
        print(f"cannot start: storage {err}", file=sys.stderr)
        return EXIT_USAGE
    except StartError as err:
        print(f"cannot start: {err}", file=sys.stderr)
        return EXIT_USAGE
    except (OSError, sqlite3.Error) as err:
        where = getattr(err, "filename", None)
        text = str(err) if where else f"{cfg.storage.dir}: {err}"
        print(f"cannot start: storage {text}", file=sys.stderr)
        return EXIT_USAGE
    worker = threading.Thread(target=service.serve, name="pipeline")
    worker.start()
    while not stop.wait(0.5):
        if service.stopped.is_set():  # the pipeline gave up (it has logged why)
            break
    service.stop()
    worker.join()
    return EXIT_FAIL if service.failed else EXIT_OK


def cmd_replay(args: argparse.Namespace) -> int:
    from tablesvc.commands.logs import configure
    from tablesvc.pipeline.journal import JournalError
    from tablesvc.pipeline.replay import replay_stored
    from tablesvc.pipeline.service import basis_of, core_of

    configure("console" if sys.stderr.isatty() else "json", "warning")
    cfg = _load(args.config)
    try:
        basis = basis_of(cfg, Path(args.config))
        out = sys.stdout
        for event in replay_stored(Path(args.journal), basis, lambda: core_of(cfg, basis)):
            out.write(event.model_dump_json() + "\n")
    except (RegistryError, JournalError, OSError) as err:
        print(f"replay failed: {err}", file=sys.stderr)
        return EXIT_FAIL
    return EXIT_OK


def cmd_schema(args: argparse.Namespace) -> int:
    from tablesvc.commands.schema import full_schema

    json.dump(full_schema(), sys.stdout, indent=1)
    sys.stdout.write("\n")
    return EXIT_OK


def cmd_check_config(args: argparse.Namespace) -> int:
    """Everything ``run`` would refuse, in one pass (tablesvc.config.preflight); a floor
    console's config (it has a ``[floor]`` section) is checked as that."""
    from tablesvc.config.preflight import preflight
    from tablesvc.floor.config import is_floor_config, read_toml

    try:
        raw = read_toml(Path(args.file))
        if is_floor_config(raw):
            return cmd_floor_check(args.file)
        if "tournament" in raw and "table" not in raw:
            return cmd_tournament_check(args.file)
    except ConfigError as err:
        print(err, file=sys.stderr)
        return EXIT_USAGE

    path = Path(args.file)
    found = preflight(path)
    for w in found.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if found.errors or found.config is None:
        print(f"config {path} refused, {len(found.errors)} problem(s):", file=sys.stderr)
        for e in found.errors:
            print(f"  {e}", file=sys.stderr)
        return EXIT_USAGE
    cfg = found.config
    print(f"{path}: ok (table {cfg.table.venue}/{cfg.table.id}, {len(cfg.devices)} "
          f"devices, {found.decks} decks, {found.chips} chips"
          + (f", {len(found.warnings)} warning(s)" if found.warnings else "") + ")")
    return EXIT_OK


def cmd_deck_enroll(args: argparse.Namespace) -> int:
    from tablesvc.commands.enroll import EnrollError, enroll_deck

    url, baudrate, folder = args.url, 115200, Path(args.out) if args.out else None
    if args.config:
        cfg = _load(args.config)
        from tablesvc.config.table import resolve

        dev = cfg.devices.get(args.device)
        if url is None:
            if dev is None:
                print(f"no device {args.device!r} in {args.config}", file=sys.stderr)
                return EXIT_USAGE
            url, baudrate = dev.url, dev.baudrate
        folder = folder or resolve(Path(args.config), cfg.registry.decks)
    if url is None or folder is None:
        print("deck enroll needs --config, or --url and --out", file=sys.stderr)
        return EXIT_USAGE
    try:
        path = enroll_deck(url, baudrate, args.deck_id, folder, timeout_s=args.timeout,
                           progress=lambda n: print(f"\r{n}/52 cards read", end="",
                                                    file=sys.stderr, flush=True))
    except EnrollError as err:
        print(f"\nenrollment refused, nothing written: {err}", file=sys.stderr)
        return EXIT_FAIL
    except OSError as err:
        print(f"\nthe deck file could not be written: {err}", file=sys.stderr)
        return EXIT_FAIL
    except KeyboardInterrupt:
        print("\nenrollment cancelled, nothing written", file=sys.stderr)
        return EXIT_FAIL
    print(f"\ndeck {args.deck_id} enrolled: {path}")
    return EXIT_OK


def cmd_chips_enroll(args: argparse.Namespace) -> int:
    from tablesvc.commands.enroll import EnrollError, enroll_chips
    from tablesvc.config.table import resolve

    cfg = _load(args.config)
    dev = cfg.devices.get(args.device)
    url = args.url or (dev.url if dev else None)
    if url is None:
        print(f"no device {args.device!r} in {args.config}; give --url", file=sys.stderr)
        return EXIT_USAGE
    try:
        path, count = enroll_chips(url, dev.baudrate if dev else 115200, args.zone, args.value,
                                   resolve(Path(args.config), cfg.registry.chips),
                                   timeout_s=args.timeout)
    except EnrollError as err:
        print(f"chip enrollment refused, nothing written: {err}", file=sys.stderr)
        return EXIT_FAIL
    except OSError as err:
        print(f"the chip registry could not be written: {err}", file=sys.stderr)
        return EXIT_FAIL
    except KeyboardInterrupt:
        print("chip enrollment cancelled, nothing written", file=sys.stderr)
        return EXIT_FAIL
    print(f"{count} chips of value {args.value} enrolled in {path}")
    return EXIT_OK


def cmd_watch(args: argparse.Namespace) -> int:
    from tablesvc.commands.watch import run_watch

    return run_watch(_load(args.config), args, Path(args.config))


def cmd_overlay(args: argparse.Namespace) -> int:
    from tablesvc.commands.overlay import run_overlay

    return run_overlay(_load(args.config), Path(args.config), args)


def cmd_sim(args: argparse.Namespace) -> int:
    from tablesvc.commands.simrun import run_sim

    cfg = _load(args.config)
    return run_sim(cfg, Path(args.config), args)


def _console_warnings(path: str, mqtt: Any) -> str:
    """A console's warnings (a floor's, a tournament controller's) on stderr; the count for
    its "ok" line."""
    from tablesvc.config.preflight import in_clear

    clear = in_clear(mqtt.host, mqtt.ca_file, mqtt.username)
    if clear is None:
        return ""
    print(f"warning: {path}: {clear}", file=sys.stderr)
    return ", 1 warning(s)"


def cmd_floor_check(path: str) -> int:
    from tablesvc.floor.config import load_floor_config

    try:
        cfg = load_floor_config(path)
    except ConfigError as err:
        print(err, file=sys.stderr)
        return EXIT_USAGE
    warned = _console_warnings(path, cfg.mqtt)
    where = cfg.storage.url.split("@")[-1] if cfg.storage.url else cfg.storage.path
    print(f"{path}: ok (floor console of venue {cfg.floor.venue}, web {cfg.web.host}:"
          f"{cfg.web.port}, {'logins' if cfg.web.users_file else 'no login'}, storage {where}"
          f"{warned})")
    return EXIT_OK


def cmd_floor(args: argparse.Namespace) -> int:
    from tablesvc.commands.logs import configure
    from tablesvc.floor.config import load_floor_config
    from tablesvc.floor.server import run_floor

    configure(args.log, args.log_level)
    try:
        cfg = load_floor_config(args.config, args.host, args.port)
    except ConfigError as err:
        print(err, file=sys.stderr)
        return EXIT_USAGE
    return run_floor(cfg, Path(args.config))


def _load_tournament(path: str, host: str | None = None,
                     port: int | None = None) -> tuple[Any, Any] | None:
    from tablesvc.tournament.config import load_tournament_config
    from tablesvc.tournament.structure import StructureError

    try:
        return load_tournament_config(path, host, port)
    except (ConfigError, StructureError) as err:
        print(err, file=sys.stderr)
        return None


def cmd_tournament_check(path: str) -> int:
    loaded = _load_tournament(path)
    if loaded is None:
        return EXIT_USAGE
    cfg, structure = loaded
    warned = _console_warnings(path, cfg.mqtt)
    print(f"{path}: ok (tournament {cfg.tournament.name!r} of venue {cfg.tournament.venue}, "
          f"{len(cfg.tables)} tables, {len(structure.levels())} levels, web {cfg.web.host}:"
          f"{cfg.web.port}, {'logins' if cfg.web.users_file else 'no login'}{warned})")
    return EXIT_OK


def cmd_tournament(args: argparse.Namespace) -> int:
    from tablesvc.commands.logs import configure
    from tablesvc.tournament.server import run_tournament

    configure(args.log, args.log_level)
    loaded = _load_tournament(args.config, args.host, args.port)
    if loaded is None:
        return EXIT_USAGE
    cfg, structure = loaded
    return run_tournament(cfg, Path(args.config), structure)


def cmd_floor_user(args: argparse.Namespace) -> int:
    import getpass

    from tablesvc.floor.auth import UsersFileError, set_user

    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = getpass.getpass(f"password for {args.name}: ")
        if password != getpass.getpass("again: "):
            print("the passwords differ; nothing written", file=sys.stderr)
            return EXIT_USAGE
    if len(password) < 8:
        print("a password has at least 8 characters; nothing written", file=sys.stderr)
        return EXIT_USAGE
    try:
        new = set_user(Path(args.users), args.name, password)
    except (UsersFileError, OSError) as err:
        print(f"nothing written: {err}", file=sys.stderr)
        return EXIT_USAGE
    print(f"{'added' if new else 'changed the password of'} {args.name} in {args.users}")
    return EXIT_OK


LOG_FORMATS = ("auto", "json", "console")
LOG_LEVELS = ("debug", "info", "warning", "error")


def _log_options(p: argparse.ArgumentParser) -> None:
    """``--log`` and ``--log-level``, the same for every command that runs until stopped."""
    p.add_argument("--log", choices=LOG_FORMATS, default="auto",
                   help="log lines on stderr as JSON or as plain console lines; auto (the "
                   "default): console lines on a terminal, JSON otherwise")
    p.add_argument("--log-level", default="info", choices=LOG_LEVELS,
                   help="the least severe log lines written (default info)")


def port_number(text: str) -> int:
    """A TCP port for ``--port``: 0 (any free port) to 65535."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is no port (0-65535)")
    return port


def _web_options(p: argparse.ArgumentParser, section: str, port: int) -> None:
    """``--host`` and ``--port`` of the commands that serve web pages (overlay, floor,
    tournament): each overrides its config's and is held to the same rules (an address beyond
    this machine needs what the config would need for it: TLS, logins, host names)."""
    p.add_argument("--host", default=None,
                   help=f"address to serve the pages on, instead of the config's [{section}] "
                   "host (default 127.0.0.1); held to the same rules as the config's")
    p.add_argument("--port", type=port_number, default=None,
                   help=f"port to serve the pages on, instead of the config's [{section}] "
                   f"port (default {port})")


def build_parser() -> argparse.ArgumentParser:
    """Every option of every command has its help text (tests/unit/test_cli_help.py)."""
    p = argparse.ArgumentParser(prog="tablesvc", description=__doc__)
    p.add_argument("--version", action="version", version=f"tablesvc {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="run the edge service for one table")
    r.add_argument("--config", required=True,
                   help="the table's config (table.toml): devices, registries, broker, storage")
    _log_options(r)
    r.set_defaults(func=cmd_run)

    s = sub.add_parser("sim", help="run virtual devices for a table on ptys (or TCP)")
    s.add_argument("--config", required=True,
                   help="the table's config: its devices, players, game and registries")
    s.add_argument("--tcp", action="store_true", help="serve socket:// ports instead of ptys")
    s.add_argument("--dir", default=None, help="where to put the device links (default: "
                   "<storage dir>/sim)")
    s.add_argument("--hands", type=int, default=None, help="deal this many hands, then exit")
    s.add_argument("--seed", type=int, default=1,
                   help="seed of the random hands: the same seed deals the same hands "
                   "(default 1)")
    s.add_argument("--pace", type=float, default=0.3, help="seconds between dealer actions")
    s.add_argument("--variant", choices=["holdem", "draw5", "omaha"], default=None,
                   help="game to deal (default: the config's [game] variant; omaha is dealt "
                   "pot-limit)")
    s.add_argument("--ante", type=int, default=None,
                   help="ante per seat (default: the config's; draw5: 0 means one smallest "
                   "chip)")
    s.add_argument("--phh", help="deal this PHH hand history (one hand) instead of random hands")
    s.add_argument("--scenario", help="play this test scenario (a YAML file of "
                   "simulators/scenarios) instead of random hands")
    s.add_argument("--wait", type=float, default=2.0,
                   help="seconds to wait after start before dealing")
    s.set_defaults(func=cmd_sim)

    w = sub.add_parser("watch", help="print a table's live events (or only its alerts), one "
                       "line each")
    w.add_argument("--config", required=True, help="the table's config: broker and topics")
    w.add_argument("--alerts", action="store_true", help="only the alerts topic")
    w.add_argument("--secure", action="store_true",
                   help="also secure/events (hole cards): needs a user the broker lets read it")
    w.add_argument("--json", action="store_true",
                   help="print each event as one JSON line, and nothing else on stdout "
                   "(what watch says of itself goes to stderr)")
    w.add_argument("--username", default=None, help="broker user (default: the config's)")
    w.add_argument("--password-file", default=None,
                   help="a file holding that user's password (default: the config's "
                   "mqtt.password_file)")
    w.add_argument("--count", type=int, default=None,
                   help="exit after printing this many events (alerts with --alerts), "
                   "exactly; the table's retained status, read as a sign of life, is never "
                   "printed nor counted")
    w.add_argument("--timeout", type=float, default=None, help="exit after this many seconds")
    w.set_defaults(func=cmd_watch)

    ov = sub.add_parser("overlay", help="serve the broadcast overlay page of a table (OBS "
                        "browser source, 1920x1080), delayed by [broadcast] delay_s")
    ov.add_argument("--config", required=True, help="the table's config: broker, topics and "
                    "the [overlay] section")
    _web_options(ov, "overlay", 8765)
    _log_options(ov)
    ov.set_defaults(func=cmd_overlay)

    rp = sub.add_parser("replay", help="print the events a journal produces, as JSON lines")
    rp.add_argument("journal", help="the storage dir, its journal folder, one segment, or an "
                    "older install's journal.jsonl; a journal whose oldest segments were pruned "
                    "is replayed from the checkpoint kept at its first segment")
    rp.add_argument("--config", required=True,
                    help="the config of the table that wrote the journal (its game, players "
                    "and registries)")
    rp.set_defaults(func=cmd_replay)

    sc = sub.add_parser("schema", help="print the JSON Schema of every event and command")
    sc.set_defaults(func=cmd_schema)

    cc = sub.add_parser("check-config", help="validate a config file and its registries")
    cc.add_argument("file", help="a table's config, a floor console's ([floor]) or a "
                    "tournament controller's ([tournament]): every problem listed in one pass")
    cc.set_defaults(func=cmd_check_config)

    fl = sub.add_parser("floor", help="the floor console: every table of a venue in a web "
                        "page, alerts to acknowledge, the day's hands")
    fl.add_argument("--config", required=True, help="the floor console's config (floor.toml)")
    _web_options(fl, "web", 8080)
    _log_options(fl)
    fl.set_defaults(func=cmd_floor)

    tn = sub.add_parser("tournament", help="the tournament controller: clock, levels to every "
                        "table, seating, moves, balancing, counts and busts, its pages")
    tn.add_argument("--config", required=True,
                    help="the controller's config (tournament.toml)")
    _web_options(tn, "web", 8090)
    _log_options(tn)
    tn.set_defaults(func=cmd_tournament)

    fu = sub.add_parser("floor-user", help="add a floor console user (or change a password)")
    fu.add_argument("action", choices=["add"],
                    help="add: add the user, or give an existing one a new password")
    fu.add_argument("name", help="the user's login name")
    fu.add_argument("--users", required=True, help="the users file (web.users_file)")
    fu.add_argument("--password-stdin", action="store_true",
                    help="read the password from the first line of standard input")
    fu.set_defaults(func=cmd_floor_user)

    d = sub.add_parser("deck", help="deck registry")
    dsub = d.add_subparsers(dest="deck_command", required=True)
    de = dsub.add_parser("enroll", help="enroll a fresh deck from 52 shoe reads in new-deck "
                         "order (As..Ks, Ad..Kd, Kc..Ac, Kh..Ah)")
    de.add_argument("--deck-id", required=True,
                    help="the new deck's id (1-32 of letters, digits, - and _): its file's name")
    de.add_argument("--config", help="take the shoe's port and the deck folder from here")
    de.add_argument("--device", default="shoe",
                    help="the shoe's device name in the config (default shoe)")
    de.add_argument("--url", help="the shoe's port (overrides the config)")
    de.add_argument("--out", help="deck folder (overrides the config)")
    de.add_argument("--timeout", type=float, default=300.0,
                    help="seconds to wait for the 52 cards")
    de.set_defaults(func=cmd_deck_enroll)

    ch = sub.add_parser("chips", help="chip registry")
    chsub = ch.add_subparsers(dest="chips_command", required=True)
    ce = chsub.add_parser("enroll", help="give one value to every chip lying in a zone")
    ce.add_argument("--config", required=True,
                    help="the table's config: the chip reader's port and the chip registry")
    ce.add_argument("--zone", default="TRAY", help="chip zone to read (default TRAY)")
    ce.add_argument("--value", type=int, required=True, help="value of each chip")
    ce.add_argument("--device", default="chips",
                    help="the chip reader's device name in the config (default chips)")
    ce.add_argument("--url", help="the chip reader's port (overrides the config)")
    ce.add_argument("--timeout", type=float, default=30.0,
                    help="seconds to wait for the zone's inventory (default 30)")
    ce.set_defaults(func=cmd_chips_enroll)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except BrokenPipeError:
        # the reader went away (``tablesvc schema | head``): stop quietly, as cat would
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a closed pipe


if __name__ == "__main__":
    raise SystemExit(main())
