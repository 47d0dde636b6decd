"""Long random sessions of both games stored as the service stores them, for the checkpoint,
recovery and retention tests: a journal in many small segments, the checkpoints the service
took, its outbox."""

from __future__ import annotations

import json
from pathlib import Path

from tablesvc.config.table import Config, load_config
from tablesvc.core.inputs import Input
from tablesvc.pipeline.journal import JOURNAL_DIR, Journal, read_journal
from tablesvc.pipeline.service import Service, basis_of, core_of
from tests.golden.record import Pipeline, Registry, Wire, _hands, _seat_all, _table

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
SEGMENT_BYTES = 24 << 10
"""Small enough for a session of a few thousand inputs to span many segments."""


def golden_registry() -> Registry:
    deck = json.loads((GOLDEN / "registry" / "decks" / "RED-0001.json").read_text())["cards"]
    chips = json.loads((GOLDEN / "registry" / "chips.json").read_text())["chips"]
    return Registry(deck, chips)


def table_config(folder: Path, game: str, store: Path, storage: str = "") -> Path:
    devices = "".join(f'[devices.{n}]\nurl = "loop://"\n'
                      for n in ("shoe", "cards", "chips", "console"))
    cfg = folder / "table.toml"
    cfg.write_text(f'[table]\nvenue = "test"\nid = "t01"\n[game]\n{game}\n{devices}'
                   f'[registry]\ndecks = "{GOLDEN / "registry" / "decks"}"\n'
                   f'chips = "{GOLDEN / "registry" / "chips.json"}"\n'
                   f'[storage]\ndir = "{store}"\n{storage}')
    return cfg


SESSIONS = {
    "holdem": ('variant = "holdem"\nsmall_blind = 50\nbig_blind = 100',
               {1: 3000, 2: 10_000, 4: 2500, 5: 6000, 7: 10_000, 9: 1500},
               {"small_blind": 50, "big_blind": 100, "aggression": 0.3, "all_in_share": 0.25,
                "fold_probability": 0.25}, 30),
    "draw5": ('variant = "draw5"\nlimit = "pot-limit"\nante = 25',
              {2: 5000, 3: 5000, 6: 2000, 8: 3000},
              {"small_blind": 50, "big_blind": 100, "variant": "draw5", "ante": 25,
               "limit": "pot-limit", "aggression": 0.3, "all_in_share": 0.2,
               "fold_probability": 0.2}, 30),
}


def session_inputs(cfg_path: Path, game: str, seed: int, scratch: Path) -> list[Input]:
    """A long random session dealt by the virtual table on a virtual clock (heartbeats, ticks,
    commands), as the golden recorder makes one: all-ins and busts, and when fewer than two
    players are left the controller seats a fresh table; returns its inputs."""
    _, seats, options, hands = SESSIONS[game]
    core = core_of(load_config(cfg_path), basis_of(load_config(cfg_path), cfg_path))
    journal = Journal(scratch, segment_bytes=64 << 20)
    wire = Wire(Pipeline(core, journal))
    wire.start_service()
    wire.idle(800)
    played = 0
    while played < hands:
        _seat_all(wire, seats, min(seats))
        table = _table(wire, golden_registry(), seats, seed=seed + played, button=min(seats),
                       **options)
        played += len(_hands(wire, table, hands - played)) or 1
    journal.close()
    return list(read_journal(scratch))


def store_session(folder: Path, game: str, batch: int = 37) -> tuple[Path, Config]:
    """The session's inputs through the service's pipeline without ports or broker (journal
    in ``SEGMENT_BYTES`` segments, core, checkpoints, outbox) into ``folder / "store"``.
    Returns the config's path and the config."""
    cfg_path = table_config(folder, SESSIONS[game][0], folder / "store")
    inputs = session_inputs(cfg_path, game, seed=7, scratch=folder / "scratch")
    cfg = load_config(cfg_path)
    svc = Service(cfg, cfg_path)
    svc.journal = Journal(svc.storage / JOURNAL_DIR, segment_bytes=SEGMENT_BYTES)
    for lo in range(0, len(inputs), batch):
        svc.process(inputs[lo:lo + batch])
    svc.journal.close()
    svc.outbox.close()
    return cfg_path, cfg
