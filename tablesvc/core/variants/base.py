"""The contract every game implements, so that the table and the hand never ask which it is.

A ``Variant`` is the deal plan of one game and the rules only that game has: how many hole
cards a seat gets, which street opens the betting, how a hand is dealt in (its tracker, its
ledger's forced bets, its hand history), what a defective deck means, when the showdown is
due and how it is evaluated, and the game's own console inputs. Every hook has a default that
does nothing, so a game writes only what is its own. Adding a game: a tracker (the card flow,
``tablesvc.core.tracker.Tracker``), a ``Variant`` subclass, and one line in
``tablesvc.core.variants.VARIANTS``; the table, the session, the ledger and the monitors stay
as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from typing import Any, ClassVar, Protocol

from tablesvc.core.context import TableContext
from tablesvc.core.defects import DefectKind, DefectRuling
from tablesvc.core.emitter import Emitter
from tablesvc.core.history import HistoryBook
from tablesvc.core.ledger import Ledger
from tablesvc.core.ledger_outcomes import CheckedOut, LedgerOutcome, Problem, Settled
from tablesvc.core.settings import Player, TableSettings
from tablesvc.core.tracker import Tracker


class HandView(Protocol):
    """What a game sees of the hand it plays; ``tablesvc.core.session.HandSession`` is one."""

    number: int
    table: TableContext
    out: Emitter
    tracker: Tracker
    ledger: Ledger
    monitors: dict[str, Any]
    window_open: bool

    @property
    def live(self) -> bool: ...
    def close_window(self, seat: int, action: str) -> None: ...
    def outcomes(self, outcomes: Sequence[Any]) -> None: ...
    def money(self, outcomes: list[LedgerOutcome]) -> None: ...
    def place_chips_in_motion(self) -> None: ...
    def foul(self, seat: int, held: int, right: str) -> bool: ...
    def settled(self, st: Settled) -> None: ...
    def hand_ended(self, reason: str, stacks: Mapping[int, int], done: bool = True,
                   **extra: Any) -> None: ...
    def end(self) -> None: ...


class Variant:
    """One game's deal plan and its own rules. Stateless: per-hand state is the session's."""

    name: ClassVar[str]
    hole_cards: ClassVar[int]  # cards each seat is dealt
    first_street: ClassVar[str]  # the betting round whose first action closes the deal
    # the betting rounds in order: street -> (how the floor names it, what may follow it)
    rounds: ClassVar[dict[str, tuple[str, str]]]
    fold_rule: ClassVar[str]  # the rule under which a fold is recorded
    show_rule: ClassVar[str]  # the rule that orders the showdown
    misdeal_window: ClassVar[bool]  # the first voluntary action ends the misdeal window
    folds_recoverable: ClassVar[bool]  # a folded hand never mucked may come back (SHOW-07)
    carries_pot: ClassVar[bool] = False  # a game without a winner leaves its pot (POT-10)
    removal_severity: ClassVar[str] = "critical"  # chips taken from the table (TABLE-06)
    buys_between_games: ClassVar[bool] = False  # chips may be bought after a game (TABLE-08)
    RULES: ClassVar[dict[str, tuple[str, ...]]] = {}
    BUTTONS: ClassVar[frozenset[str]] = frozenset()  # console buttons of this game

    def __init__(self, settings: TableSettings) -> None:
        self.s = settings

    # --- dealing in -----------------------------------------------------------------
    def deal_in(self, seated: list[int], button: int, players: dict[int, Player], unit: int,
                carried: int, unverified: Set[int] = frozenset()
                ) -> tuple[Tracker, Ledger, HistoryBook | None]:
        """The tracker, the ledger and the book of a new hand; no event yet. ``unverified``:
        seats whose stacks no chip count has confirmed since an untracked hand."""
        raise NotImplementedError

    def started(self, session: HandView) -> None:
        """Announce the hand (``hand_started``) and what the game says at its start."""
        raise NotImplementedError

    def monitors(self, session: HandView) -> dict[str, Any]:
        """The game's own monitors for this hand, by name."""
        del session
        return {}

    # --- the deal -------------------------------------------------------------------
    def first_card(self, session: HandView) -> int | None:
        """The first card left the shoe: check the forced bets. Returns the seat of the
        button they show when that is not the hand's (one alert said so), else None."""
        del session
        return None

    def forced_bets_shown(self, session: HandView, ledger: Ledger) -> tuple[bool, bool]:
        """At the first card: whether the table shows exactly ``ledger``'s forced bets, as
        (the blinds, the antes); compared between the levels a hand may be dealt at around a
        level change, the blinds first. By default neither: the hand keeps its level."""
        del session, ledger
        return False, False

    def dealt(self, session: HandView) -> None:
        """A card reached a seat."""

    def too_early(self, session: HandView, t: str, f: tuple[str, ...],
                  value: int) -> bool | None:
        """A frame of the game's own steps that would come before something another device
        saw first (``tablesvc.core.physical_order``): True or False when the game decides,
        None to leave it to the hand's common checks. ``value``: a chip inventory's worth."""
        del session, t, f, value
        return None

    def forced_bets_out(self, session: HandView) -> bool:
        """Before the first card: forced bets not in their zones yet (their chips may be on
        their way from a slower port)."""
        del session
        return False

    def first_card_misdirected(self, session: HandView, seat: int, expected: str,
                               cards: list[str], evidence: dict[str, Any]) -> None:
        """The first card went to the wrong seat: the dealer misplaced the button. One alert
        says both (the card is the evidence, on the secure feed)."""

    def defect(self, session: HandView, kind: DefectKind, what: str,
               cards: list[str]) -> DefectRuling:
        """A defective deck turned up while the hand runs: ``kind`` of fault, ``what`` in
        words, the ``cards`` concerned (for the secure detail)."""
        raise NotImplementedError

    def pack_scanned(self, session: HandView, uids: list[str]) -> bool:
        """The shoe scanned a pack mid-hand; True when the game took it as its own."""
        del session, uids
        return False

    def button(self, session: HandView, name: str, args: list[str]) -> None:
        """One of the game's own console buttons (``BUTTONS``)."""

    # --- betting --------------------------------------------------------------------
    def first_round_action(self, session: HandView, seat: int, action: str) -> None:
        """An action of the first betting round: the deal is over."""
        session.close_window(seat, action)

    def bet_zone_changed(self, session: HandView, seat: int, value: int,
                         before: int) -> None:
        """A seat's bet zone changed, before the ledger reads it."""

    def betting_resumes(self, session: HandView) -> None:
        """A check: betting goes on."""

    def pot_shrank(self, session: HandView, before: int, value: int) -> None:
        """The POT zone holds less than before."""

    def problem(self, session: HandView, o: Problem, outcomes: list[LedgerOutcome]) -> bool:
        """A betting violation; True when the game raised its own alert for it."""
        del session, o, outcomes
        return False

    def after_betting(self, session: HandView) -> None:
        """The ledger booked something: the game may move to its next phase."""

    def checked_out(self, session: HandView, o: CheckedOut) -> None:
        """Everyone checked, and the game's rules end it without a winner."""
        raise NotImplementedError(f"{self.name} has no checked-out games")

    # --- the showdown ---------------------------------------------------------------
    def showdown(self, session: HandView) -> None:
        """Settle the hand if its showdown is due."""
        raise NotImplementedError
