"""The contract every game implements, so that the table and the hand never ask which it is.

A ``Variant`` is the deal plan of one game and the rules only that game has: how many hole
cards a seat gets, which street opens the betting, how a hand is dealt in (its tracker, its
ledger's forced bets, its hand history), what a defective deck means, when the showdown is
due and how it is evaluated, and the game's own console inputs. Every hook has a default that
does nothing, so a game writes only what is its own. Adding a game: a tracker (the card flow,
``tablesvc.core.tracker.Tracker``), a ``Variant`` subclass, and one line in
``tablesvc.core.games.VARIANTS``; the table, the session, the ledger and the monitors stay
as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from tablesvc.core.card_flow import CardOutcome, GameOutcome
from tablesvc.core.context import TableContext
from tablesvc.core.defects import DefectKind, DefectRuling
from tablesvc.core.emitter import Emitter
from tablesvc.core.equity import EquityState
from tablesvc.core.history import HistoryBook
from tablesvc.core.ledger import Ledger
from tablesvc.core.ledger_outcomes import CheckedOut, LedgerOutcome, Problem, Settled
from tablesvc.core.settings import Player, TableSettings
from tablesvc.core.tracker import Tracker

T = TypeVar("T", bound=Tracker)
"""A game's own tracker (its card flow): the game sees its hand's tracker as what it made."""
M = TypeVar("M")
"""A game's own monitors of one hand (``None`` for a game without any)."""
T_co = TypeVar("T_co", bound=Tracker, covariant=True)
M_co = TypeVar("M_co", covariant=True)


class HandView(Protocol[T_co, M_co]):
    """What a game sees of the hand it plays; ``tablesvc.core.session.HandSession`` is one.
    Typed by the game's own tracker and monitors, so that a game reads its own without asking
    what they are; ``AnyHand`` is what the rulings common to every game see."""

    number: int
    table: TableContext
    out: Emitter
    ledger: Ledger
    book: HistoryBook | None
    window_open: bool

    @property
    def tracker(self) -> T_co: ...
    @property
    def monitors(self) -> M_co: ...
    @property
    def live(self) -> bool: ...
    def close_window(self, seat: int, action: str) -> None: ...
    def outcomes(self, outcomes: Sequence[CardOutcome]) -> None: ...
    def money(self, outcomes: list[LedgerOutcome]) -> None: ...
    def place_chips_in_motion(self) -> None: ...
    def unverified_all_in(self, seat: int | None) -> None: ...
    def foul(self, seat: int, held: int, right: str) -> bool: ...
    def settled(self, st: Settled) -> None: ...
    def hand_ended(self, reason: str, stacks: Mapping[int, int], done: bool = True,
                   **extra: Any) -> None: ...
    def end(self) -> None: ...


AnyHand = HandView[Tracker, object]
"""A hand of any game, as the rulings every game shares see it."""


class Variant(Generic[T, M]):
    """One game's deal plan and its own rules. Stateless: per-hand state is the session's."""

    name: ClassVar[str]
    hole_cards: ClassVar[int]  # cards each seat is dealt
    first_street: ClassVar[str]  # the betting round whose first action closes the deal
    # the betting rounds in order: street -> (how the floor names it, what may follow it)
    rounds: ClassVar[dict[str, tuple[str, str]]]
    misdeal_window: ClassVar[bool]  # the first voluntary action ends the misdeal window
    folds_recoverable: ClassVar[bool]  # a folded hand never mucked may come back (SHOW-07)
    carries_pot: ClassVar[bool] = False  # a game without a winner leaves its pot (POT-10)
    removal_severity: ClassVar[str] = "critical"  # chips taken from the table (TABLE-06)
    buys_between_games: ClassVar[bool] = False  # chips may be bought after a game (TABLE-08)
    limits: ClassVar[frozenset[str]] = frozenset({"no-limit", "pot-limit", "fixed-limit"})
    """The betting limits the game is played with (``[game] limit``)."""
    default_limit: ClassVar[str] = "no-limit"
    phh_variant: ClassVar[dict[str, str]] = {}
    """The PHH variant code of the game at each limit it has one for (no hand history else)."""
    RULES: ClassVar[dict[str, tuple[str, ...]]] = {}
    BUTTONS: ClassVar[frozenset[str]] = frozenset()  # console buttons of this game

    def __init__(self, settings: TableSettings) -> None:
        self.s = settings

    # --- dealing in -----------------------------------------------------------------
    def deal_in(self, seated: list[int], button: int, players: dict[int, Player], unit: int,
                carried: int, unverified: Set[int] = frozenset()
                ) -> tuple[T, Ledger, HistoryBook | None]:
        """The tracker, the ledger and the book of a new hand; no event yet. ``unverified``:
        seats whose stacks no chip count has confirmed since an untracked hand."""
        raise NotImplementedError

    def started(self, session: HandView[T, M]) -> None:
        """Announce the hand (``hand_started``) and what the game says at its start."""
        raise NotImplementedError

    def monitors(self, session: HandView[T, M]) -> M:
        """The game's own monitors for this hand."""
        raise NotImplementedError

    # --- the deal -------------------------------------------------------------------
    def first_card(self, session: HandView[T, M]) -> int | None:
        """The first card left the shoe: check the forced bets. Returns the seat of the
        button they show when that is not the hand's (one alert said so), else None."""
        del session
        return None

    def forced_bets_shown(self, session: HandView[T, M], ledger: Ledger) -> tuple[bool, bool]:
        """At the first card: whether the table shows exactly ``ledger``'s forced bets, as
        (the blinds, the antes); compared between the levels a hand may be dealt at around a
        level change, the blinds first. By default neither: the hand keeps its level."""
        del session, ledger
        return False, False

    def dealt(self, session: HandView[T, M]) -> None:
        """A card reached a seat."""

    def equity_state(self, hand: T) -> EquityState | None:
        """The state win probabilities are due for (the live seats' cards, the board, the
        street), read from the game's own tracker; None while none are due (the deal or a
        street under way, an irregularity being sorted out, the hand over)."""
        del hand
        return None

    def outcome(self, session: HandView[T, M], o: GameOutcome) -> None:
        """An answer of the game's own card flow (a burn, a board card, a draw)."""
        raise NotImplementedError(f"{self.name} answers nothing of its own: {o!r}")

    def fold_recorded(self, session: HandView[T, M], seat: int) -> None:
        """A player folded (info): the floor's record, under the game's own rule."""
        raise NotImplementedError

    def showing_order(self, session: HandView[T, M], order: list[int]) -> None:
        """The order in which the hands are shown at the showdown (info), under the game's
        own rule."""
        raise NotImplementedError

    def too_early(self, session: HandView[T, M], t: str, f: tuple[str, ...],
                  value: int) -> bool | None:
        """A frame of the game's own steps that would come before something another device
        saw first (``tablesvc.core.physical_order``): True or False when the game decides,
        None to leave it to the hand's common checks. ``value``: a chip inventory's worth."""
        del session, t, f, value
        return None

    def forced_bets_out(self, session: HandView[T, M]) -> bool:
        """Before the first card: forced bets not in their zones yet (their chips may be on
        their way from a slower port)."""
        del session
        return False

    def first_card_misdirected(self, session: HandView[T, M], seat: int, expected: str,
                               cards: list[str], evidence: dict[str, Any]) -> None:
        """The first card went to the wrong seat: the dealer misplaced the button. One alert
        says both (the card is the evidence, on the secure feed)."""

    def defect(self, session: HandView[T, M], kind: DefectKind, what: str,
               cards: list[str]) -> DefectRuling:
        """A defective deck turned up while the hand runs: ``kind`` of fault, ``what`` in
        words, the ``cards`` concerned (for the secure detail)."""
        raise NotImplementedError

    def pack_scanned(self, session: HandView[T, M], uids: list[str]) -> bool:
        """The shoe scanned a pack mid-hand; True when the game took it as its own."""
        del session, uids
        return False

    def button(self, session: HandView[T, M], name: str, args: list[str]) -> None:
        """One of the game's own console buttons (``BUTTONS``)."""

    # --- betting --------------------------------------------------------------------
    def first_round_action(self, session: HandView[T, M], seat: int, action: str) -> None:
        """An action of the first betting round: the deal is over."""
        session.close_window(seat, action)

    def bet_zone_changed(self, session: HandView[T, M], seat: int, value: int,
                         before: int) -> None:
        """A seat's bet zone changed, before the ledger reads it."""

    def betting_resumes(self, session: HandView[T, M]) -> None:
        """A check: betting goes on."""

    def pot_shrank(self, session: HandView[T, M], before: int, value: int) -> None:
        """The POT zone holds less than before."""

    def problem(self, session: HandView[T, M], o: Problem, outcomes: list[LedgerOutcome]) -> bool:
        """A betting violation; True when the game raised its own alert for it."""
        del session, o, outcomes
        return False

    def after_betting(self, session: HandView[T, M]) -> None:
        """The ledger booked something: the game may move to its next phase."""

    def checked_out(self, session: HandView[T, M], o: CheckedOut) -> None:
        """Everyone checked, and the game's rules end it without a winner."""
        raise NotImplementedError(f"{self.name} has no checked-out games")

    # --- the showdown ---------------------------------------------------------------
    def showdown(self, session: HandView[T, M]) -> None:
        """Settle the hand if its showdown is due."""
        raise NotImplementedError
