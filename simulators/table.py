"""The virtual table: a dealer running hold'em, pot-limit Omaha or five-card draw on the
virtual devices.

``VirtualTable`` is what a caller holds: it checks the set-up, keeps the game settings, deals
one hand at a time (at random, or as a PHH script says), and can be paused, resumed and run.
The games themselves are dealt elsewhere, each on the shared dealer (``simulators.dealer``:
the deck, chips, stacks, felt and push): Texas Hold'em by ``simulators.holdem``, pot-limit
Omaha (``variant="omaha"``) by ``simulators.omaha``, five-card draw (``variant="draw5"``) by
``simulators.draw``. This module picks the game and knows no procedure's insides; the records
a hand leaves are ``simulators.records``' (also importable from here).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence

from simulators.betting import Limit
from simulators.chips import smallest_unit
from simulators.dealer import ROOM_HABITS, Dealer, Habits, HandSettings
from simulators.decks import is_uid
from simulators.device import VirtualDevice
from simulators.draw import play_draw
from simulators.endpoints import Recorder
from simulators.felt import SEATS
from simulators.holdem import play_holdem
from simulators.omaha import play_omaha
from simulators.records import ActionRecord, Exchange, HandRecord, PotAward, StackChange
from simulators.script import (
    ANTE_MODES,
    HOLE_CARDS,
    ONLY_LIMIT,
    UNKNOWN,
    HandScript,
    ScriptError,
    clockwise_from,
)

__all__ = [
    "ActionRecord",
    "Exchange",
    "HandRecord",
    "PotAward",
    "ScriptError",
    "StackChange",
    "VirtualTable",
    "clockwise_from",
    "default_limit",
]

VARIANTS = ("holdem", "draw5", "omaha")
ALL_CHECK_RULES = ("carry_over", "showdown")
"""What a draw game does when the second round is checked around (A-23, BET-22)."""


def default_limit(variant: str) -> str:
    """The betting structure a game is dealt with when none is given: pot-limit for Omaha
    (the only one it is dealt with), no-limit for the others."""
    only = ONLY_LIMIT.get(variant)
    return only.value if only is not None else Limit.NO_LIMIT.value


class VirtualTable:
    """Deals hands on the ``shoe``, ``cards``, ``chips`` and ``console`` devices.

    Takes plain values so a test can set up any table without files: ``deck`` maps UID -> card,
    ``chips`` UID -> value (the whole chip set; what the seats do not get is the dealer's
    float for change), ``seats`` seat -> starting stack. ``rng`` (or ``seed``) drives the shuffle
    and the players' decisions, so a seed replays the same session. ``deck_order`` fixes the
    order in which cards leave the shoe in the next hand (the rest follows shuffled).

    ``limit`` is the betting structure (fixed-limit: small bet = big blind pre-flop and on the
    flop, big bet = two big blinds on the turn and river, at most four bets a round); without
    one, the game's own (``default_limit``). ``ante``
    is paid by every seat (``ante_mode="each"``) or once by the big blind (``"big_blind"``).
    Random players fold a bet with ``fold_probability``; with ``aggression`` > 0 they also bet
    and raise (less often the more raises the round has seen), going all-in with
    ``all_in_share`` of their bets and raises, otherwise raising the minimum or a random amount
    up to the limit. With ``aggression=0`` nobody bets or raises and the random draws are the
    same as they always were, so a seed deals the same hands.

    ``variant="omaha"`` deals pot-limit Omaha (``simulators.omaha``): hold'em's hand with four
    hole cards a seat and the Omaha showdown; it is dealt pot-limit only, so a random player's
    bets and raises never go beyond the pot after his call, and hit it exactly now and then.

    ``variant="draw5"`` deals five-card draw (``simulators.draw``): the button is the dealer,
    every seat antes ``ante`` (one smallest chip when 0 is given, SEAT-07's disputed amount),
    the blinds are not used, and the betting is no-limit or pot-limit. A game checked around
    leaves its pot in the pot zone for the next one; ``second_round_all_check`` says whether a
    second round checked around does the same (``carry_over``) or goes to a ``showdown``.

    ``habits`` are the dealer's ways with the chips where real dealers differ (``Habits``): by
    default a room's mix, handing back uncalled bets at some gatherings and pushing some
    uncontested pots straight from the bet zones; ``Habits()`` gathers everything, always.

    ``stack_zones``: every stack lies in its stack zone ``P<seat>`` and the chip reader tells
    it (DESIGN §3): on every change, in its refresh, and right after it boots; a bet leaves
    ``P<seat>`` before it reaches ``B<seat>`` (antes: the ``POT``), chips pushed or handed
    back reach ``P<seat>`` after they left the pot or the bet zone. ``button_uid``: the dealer
    button carries this tag (16 hex digits, no card's or chip's); the card antennas read it in
    ``S<button>`` when they boot, and the dealer moves it (``DEP`` then ``ARR``) after each
    hand's cards are collected, before the next shuffle. Neither changes a frame when not set.

    Things that happen to the stacks outside the rules (``stack_take``, ``stack_add``,
    ``stack_transfer``) are for the tests of a service that must notice them; they are done
    between hands or while the dealer stands still (``pause``), and the hand records say
    what really happened (``HandRecord.stack_changes``, ``stack_changes``).
    """

    def __init__(
        self,
        devices: Mapping[str, VirtualDevice],
        deck: Mapping[str, str],
        chips: Mapping[str, int],
        seats: Mapping[int, int],
        *,
        small_blind: int,
        big_blind: int,
        button: int | None = None,
        seed: int | None = None,
        pace: float = 0.0,
        handover: float = 0.0,
        rng: random.Random | None = None,
        deck_order: Sequence[str] | None = None,
        fold_probability: float = 0.15,
        limit: str | None = None,
        ante: int = 0,
        ante_mode: str = "each",
        aggression: float = 0.0,
        all_in_share: float = 0.3,
        variant: str = "holdem",
        second_round_all_check: str = "carry_over",
        habits: Habits = ROOM_HABITS,
        stack_zones: bool = False,
        button_uid: str | None = None,
    ) -> None:
        self.unit = smallest_unit(chips)
        self.variant = variant
        if limit is None:
            limit = default_limit(variant)
        if variant == "draw5" and ante == 0:
            ante = self.unit
        problems = self._setup_problems(seats, small_blind, big_blind, ante, ante_mode, limit)
        if second_round_all_check not in ALL_CHECK_RULES:
            problems.append(
                f"second_round_all_check {second_round_all_check!r} is not one of "
                f"{list(ALL_CHECK_RULES)}"
            )
        if len(deck) != 52 or len(set(deck.values())) != 52:
            problems.insert(0, "the deck must have 52 distinct cards")
        if button_uid is not None:
            if not is_uid(button_uid):
                problems.append(f"button_uid {button_uid!r} is not 16 uppercase hex digits")
            elif button_uid in deck or button_uid in chips:
                problems.append(f"button_uid {button_uid} is the tag of a card or a chip")
        for name, p in (
            ("fold_probability", fold_probability),
            ("aggression", aggression),
            ("all_in_share", all_in_share),
        ):
            if not 0 <= p <= 1:
                problems.append(f"{name} must be within 0..1")
        if problems:
            raise ValueError("; ".join(problems))
        self.small_blind = small_blind
        self.big_blind = big_blind
        self.limit = Limit(limit)
        self.ante = ante
        self.ante_mode = ante_mode
        self.fold_probability = fold_probability
        self.aggression = aggression
        self.all_in_share = all_in_share
        self.second_round_all_check = second_round_all_check
        self._dealer = Dealer(
            devices,
            deck,
            chips,
            seats,
            rng=rng if rng is not None else random.Random(seed),
            pace=pace,
            handover=handover,
            habits=habits,
            stack_zones=stack_zones,
            button_uid=button_uid,
        )
        """The deck, chips, stacks, felt and button both games deal with."""
        self.stack_zones = stack_zones
        self.button_uid = button_uid
        self.felt = self._dealer.felt
        self._pacer = self._dealer.pacer
        self._idle = self._pacer.stop  # what the pace waits on while no caller's stop is given
        self._lock = threading.Lock()  # one hand at a time
        self._level_lock = threading.Lock()  # a level is set whole (``set_level``)
        self._dealing = False
        if deck_order is not None:
            self.set_deck_order(deck_order)
        if button is not None:
            if button not in self._dealer.piles:
                raise ValueError(f"seat {button} is empty")
            self._dealer.button = button
            self.felt.place_button(button)  # it lay there before the antennas started
        self.hands_played = 0
        self.last_hand: HandRecord | None = None
        self._refresh_stop = threading.Event()
        self._refresher: threading.Thread | None = None

    def _setup_problems(
        self,
        seats: Mapping[int, int],
        sb: int,
        bb: int,
        ante: int,
        ante_mode: str,
        limit: str,
    ) -> list[str]:
        problems: list[str] = []
        if self.variant not in VARIANTS:
            problems.append(f"variant {self.variant!r} is not one of {list(VARIANTS)}")
        if len(seats) < 2:
            problems.append("at least two seats are needed")
        for seat, stack in seats.items():
            if seat not in SEATS:
                problems.append(f"seat {seat} is not 1..10")
            if stack <= 0 or stack % self.unit:
                problems.append(
                    f"stack {stack} of seat {seat} is not a positive multiple of "
                    f"the smallest chip ({self.unit})"
                )
        return problems + self._level_problems(sb, bb, ante, ante_mode, limit)

    def _level_problems(self, sb: int, bb: int, ante: int, ante_mode: str,
                        limit: str) -> list[str]:
        """What this table cannot deal of a level (at the start, or set between hands)."""
        problems: list[str] = []
        if self.variant == "draw5":
            if ante_mode != "each":
                problems.append("five-card draw: every seat antes (ante_mode 'each')")
        elif not 0 < sb <= bb or sb % self.unit or bb % self.unit:
            problems.append(f"blinds {sb}/{bb} must be 0 < SB <= BB, multiples of {self.unit}")
        if ante < 0 or ante % self.unit:
            problems.append(f"ante {ante} must be a non-negative multiple of {self.unit}")
        if ante_mode not in ANTE_MODES:
            problems.append(f"ante_mode {ante_mode!r} is not one of {list(ANTE_MODES)}")
        if limit not in {m.value for m in Limit}:
            problems.append(f"limit {limit!r} is not one of {[m.value for m in Limit]}")
        elif (only := ONLY_LIMIT.get(self.variant)) is not None and limit != only.value:
            problems.append(f"{self.variant} is dealt {only.value} only, not {limit}")
        return problems

    # state a caller may read or set between hands -------------------------------------------

    @property
    def stacks(self) -> dict[int, int]:
        return self._dealer.stacks

    @property
    def button(self) -> int:
        """The button of the next hand."""
        return self._dealer.button

    @property
    def deck(self) -> dict[str, str]:
        """The deck in play: UID -> card (what the service's deck registry must hold)."""
        return dict(self._dealer.deck)

    @property
    def chip_values(self) -> dict[str, int]:
        """The chip set: UID -> value (what the service's chip registry must hold)."""
        return dict(self._dealer.chip_values)

    def seated(self) -> list[int]:
        return self._dealer.seated()

    def set_button(self, seat: int) -> None:
        """The next hand's button (and dealer); the dealer deals from it whatever the
        rotation says, so a test can misplace the button. A tagged button is moved there at
        once (``DEP`` where it lay, ``ARR,S<seat>``): call it between hands or while the
        dealer stands still at the shuffle (``pause``)."""
        if seat not in self._dealer.piles:
            raise ValueError(f"seat {seat} is empty")
        self._dealer.place_button(seat, moved_by_dealer=False)

    @property
    def stack_changes(self) -> list[StackChange]:
        """Everything that happened to the stacks outside the rules, in order."""
        return list(self._dealer.seats.changes)

    # outside the rules ------------------------------------------------------------------------

    def stack_take(self, seat: int, amount: int) -> StackChange:
        """Chips worth ``amount`` leave the seat's stack and the table (TABLE-06): with stack
        zones, one ``CHIPS,P<seat>`` inventory, ``amount`` less.

        Between hands a stack keeps at least one chip; mid-hand the chips of a bet the dealer
        is moving cannot be taken. Raises ``ValueError`` for what cannot be done, and
        ``RuntimeError`` while the dealer is dealing and not standing still."""
        self._standing_still()
        return self._dealer.seats.take(seat, amount)

    def stack_add(self, seat: int, amount: int) -> StackChange:
        """Chips worth ``amount`` come to the seat's stack from outside the table, out of the
        chip set's spare chips: a purchase (TABLE-08; mid-hand BET-23, and they do not play in
        that hand). With stack zones, one ``CHIPS,P<seat>`` inventory, ``amount`` more."""
        self._standing_still()
        return self._dealer.seats.add(seat, amount)

    def sit(self, seat: int, stack: int) -> None:
        """A player sits down at an empty seat with ``stack`` (the tournament controller
        seated him there): dealt in from the next hand. Between hands, or while the dealer
        stands still."""
        self._standing_still()
        if not 1 <= seat <= 10:
            raise ValueError(f"seat {seat} does not exist")
        self._dealer.seats.sit(seat, stack)
        if self._dealer.button not in self._dealer.piles:
            # a button left at an empty seat goes to the first player after it
            self._dealer.place_button(clockwise_from(self._dealer.button, self.seated())[0],
                                      moved_by_dealer=True)

    def stand(self, seat: int) -> int:
        """The player of ``seat`` leaves with his chips (moved to another table); the value he
        took. Between hands, or while the dealer stands still."""
        self._standing_still()
        if seat not in self._dealer.piles:
            raise ValueError(f"seat {seat} is empty")
        value = self._dealer.seats.stand(seat)
        if seat == self._dealer.button and self._dealer.piles:
            # the button goes on to the next player, as it would have after the hand
            self._dealer.place_button(clockwise_from(seat, self.seated())[0],
                                      moved_by_dealer=True)
        return value

    def stack_transfer(self, giver: int, taker: int, amount: int) -> StackChange:
        """Chips worth ``amount`` pass from ``giver``'s stack to ``taker``'s (TABLE-08): with
        stack zones ``CHIPS,P<giver>`` then ``CHIPS,P<taker>``. Mid-hand they do not play
        for ``taker`` in that hand (BET-23)."""
        self._standing_still()
        return self._dealer.seats.transfer(giver, taker, amount)

    def _standing_still(self, timeout: float = 10.0) -> None:
        """Nothing at the table moves: no hand is being dealt, or the dealer stands still at a
        pause. A dealer paused on his way (``pause`` between hands returns before he reaches
        the shuffle) is waited for."""
        deadline = time.monotonic() + timeout
        while self._dealing and not self._pacer.waiting:
            if not self._pacer.held:
                raise RuntimeError("the dealer is dealing: pause him first")
            if time.monotonic() > deadline:
                raise RuntimeError("the dealer did not stand still")
            time.sleep(0.002)

    def pause(self, timeout: float = 10.0) -> None:
        """Make the dealer stand still before its next physical action.

        Returns once the dealer is standing still (or when no hand is being dealt, in which
        case the next hand waits before its shuffle), so that whatever the caller does next,
        unplugging a device for example, cannot cut a movement in half.
        """
        self._pacer.hold()
        deadline = time.monotonic() + timeout
        while self._dealing and not self._pacer.waiting and time.monotonic() < deadline:
            self._pacer.stop.wait(0.002)

    def resume(self, steps: int | None = None) -> None:
        """Let the dealer go on; with ``steps``, for that many physical actions only (a card
        dealt, a bet made, a button pressed...), after which he stands still again as if
        ``pause`` had been called, so that a test can stop him at a known point of a hand it
        cannot watch. ``waiting`` tells when he stands still."""
        self._pacer.release(steps)

    @property
    def waiting(self) -> bool:
        """The dealer is standing still because of ``pause``."""
        return self._pacer.waiting

    def set_level(self, *, small_blind: int | None = None, big_blind: int | None = None,
                  ante: int | None = None, ante_mode: str | None = None,
                  limit: str | None = None) -> None:
        """The level the dealer deals his next hand at, as the room's clock tells him: the
        values given replace the table's, the others stay. The hand under way (if any) is
        finished at the level it was dealt with; callable at any moment, from any thread.
        Raises ``ValueError`` for a level the table cannot deal (and changes nothing)."""
        with self._level_lock:
            sb = self.small_blind if small_blind is None else small_blind
            bb = self.big_blind if big_blind is None else big_blind
            an = self.ante if ante is None else ante
            mode = self.ante_mode if ante_mode is None else ante_mode
            lim = self.limit.value if limit is None else limit
            if self.variant == "draw5" and an == 0:
                an = self.unit  # as at the start: one smallest chip (SEAT-07)
            problems = self._level_problems(sb, bb, an, mode, lim)
            if problems:
                raise ValueError("; ".join(problems))
            self.small_blind, self.big_blind = sb, bb
            self.ante, self.ante_mode, self.limit = an, mode, Limit(lim)

    def set_deck_order(self, cards: Sequence[str]) -> None:
        """Script the next hand: these cards leave the shoe first, in this order."""
        self._dealer.set_deck_order(cards)

    # the hand -------------------------------------------------------------------------------

    def play_hand(self, stop: threading.Event | None = None) -> HandRecord:
        """Deal one complete hand. ``stop`` cuts the pace short; the hand still completes."""
        return self._play_locked(stop, None)

    def play_script(
        self,
        script: HandScript,
        stop: threading.Event | None = None,
        *,
        rehearsed: bool = False,
    ) -> HandRecord:
        """Deal exactly the hand ``script`` describes (``simulators.phh.load_phh`` reads one).

        The table takes the script's seats, stacks, button, blinds, ante and betting structure
        (and keeps them for the hands after it); the cards the script names come out of the
        shoe where the deal puts them, the rest (burns, unknown cards) as shuffled. Players act
        as the script says while it has actions; should it stop before the hand ends, they go
        on deciding as random players do. A script the rules do not allow (an action out of
        turn, a raise below the minimum, a board dealt while a player is still to act...) raises
        ``ScriptError`` before anything happens at the table (see ``rehearse``; pass
        ``rehearsed=True`` when that was done already). The script's game must be the table's:
        a hold'em script on a hold'em table, an Omaha script (PHH ``PO``) on an Omaha table.
        """
        self._same_game(script)
        if not rehearsed:
            self.rehearse(script)
        return self._play_locked(stop, script)

    def rehearse(self, script: HandScript) -> HandRecord:
        """Play ``script`` on a table of the same deck and chips whose devices send nowhere.

        Raises ``ScriptError`` (or ``ChipShortage``, for stacks the chip set cannot make) if
        the hand cannot be dealt as written; returns what would have happened.
        """
        self._same_game(script)
        try:
            rehearsal = VirtualTable(
                _silent_devices(),
                self._dealer.deck,
                self._dealer.chip_values,
                script.stacks,
                small_blind=script.small_blind,
                big_blind=script.big_blind,
                rng=random.Random(0),
                limit=script.limit,
                ante=script.ante,
                ante_mode=script.ante_mode,
                variant=script.variant,
            )
        except ValueError as e:
            raise ScriptError(str(e)) from e
        return rehearsal.play_script(script, rehearsed=True)

    def _same_game(self, script: HandScript) -> None:
        if self.variant not in HOLE_CARDS:
            raise ScriptError(f"scripts are hands of {list(HOLE_CARDS)}; this table deals "
                              f"{self.variant}")
        if script.variant != self.variant:
            raise ScriptError(f"the script is a {script.variant} hand; this table deals "
                              f"{self.variant}")

    def _play_locked(self, stop: threading.Event | None, script: HandScript | None) -> HandRecord:
        with self._lock:
            if script is not None:
                self._adopt(script)
            if len(self._dealer.piles) < 2:
                raise RuntimeError("fewer than two players are seated")
            self._pacer.stop = stop if stop is not None else self._idle
            self._dealing = True
            try:
                # the shuffle and cut: a dealer paused between hands stands still here, and
                # what is done to the table meanwhile (the button set, stacks changed) is
                # before this hand
                self._pacer.step()
                settings = self._settings()
                number = self.hands_played + 1
                if self.variant == "draw5":
                    record = play_draw(self._dealer, settings, number)
                elif self.variant == "omaha":
                    record = play_omaha(self._dealer, settings, number, script)
                else:
                    record = play_holdem(self._dealer, settings, number, script)
            finally:
                self._dealing = False
                self._pacer.stop = self._idle
            self.hands_played += 1
            self.last_hand = record
            return record

    def _settings(self) -> HandSettings:
        """The settings the hand about to be dealt is dealt with."""
        with self._level_lock:  # a level set meanwhile is the next hand's, whole
            return self._hand_settings()

    def _hand_settings(self) -> HandSettings:
        return HandSettings(
            limit=self.limit,
            small_blind=self.small_blind,
            big_blind=self.big_blind,
            ante=self.ante,
            ante_mode=self.ante_mode,
            fold_probability=self.fold_probability,
            aggression=self.aggression,
            all_in_share=self.all_in_share,
            second_round_all_check=self.second_round_all_check,
        )

    def _adopt(self, script: HandScript) -> None:
        """Seat the script's players with its stacks and take its game settings."""
        problems = self._setup_problems(
            script.stacks,
            script.small_blind,
            script.big_blind,
            script.ante,
            script.ante_mode,
            script.limit,
        )
        if problems:
            raise ScriptError("; ".join(problems))
        self._dealer.reseat(script.stacks)
        self.small_blind, self.big_blind = script.small_blind, script.big_blind
        self.ante, self.ante_mode = script.ante, script.ante_mode
        self.limit = Limit(script.limit)
        self._dealer.place_button(script.button, moved_by_dealer=True)
        named = [c for c in script.deal_order() if c != UNKNOWN]
        spare = [c for c in self._dealer.deck.values() if c not in set(named)]
        self._dealer.rng.shuffle(spare)
        fill = iter(spare)
        self.set_deck_order([next(fill) if c == UNKNOWN else c for c in script.deal_order()])

    # running --------------------------------------------------------------------------------

    def run(
        self,
        hands: int | None = None,
        stop: threading.Event | None = None,
        on_hand: Callable[[HandRecord], None] | None = None,
        *,
        last: threading.Event | None = None,
    ) -> int:
        """Deal hands until ``hands`` are done, ``stop`` or ``last`` is set or fewer than two
        players are left; returns how many were dealt. Between hands the dealer takes a few
        paces.

        ``stop`` cuts the pace short: the hand under way is dealt to its end at once, every
        action right after the other (the frames of different devices may then reach a
        reader in either order, which a service rightly judges). ``last`` makes the hand under
        way the last one, dealt to its end at the dealer's pace (``set_pace`` may quicken it),
        as a dealer finishes his hand when the room closes."""
        stop = stop if stop is not None else threading.Event()
        last = last if last is not None else threading.Event()
        played = 0
        while ((hands is None or played < hands) and not stop.is_set() and not last.is_set()
               and len(self.seated()) >= 2):
            record = self.play_hand(stop)
            played += 1
            if on_hand is not None:
                on_hand(record)
            between = time.monotonic() + self._pacer.pace * 3
            while not (stop.is_set() or last.is_set()) and time.monotonic() < between:
                stop.wait(min(between - time.monotonic(), 0.05))
        return played

    def set_pace(self, pace: float) -> None:
        """The time between the dealer's actions from his next one on (``Pacer.pace``)."""
        if pace < 0:
            raise ValueError("pace cannot be negative")
        self._pacer.pace = pace

    def start_chip_refresh(self, interval: float = 1.0) -> None:
        """Repeat every chip zone's inventory each ``interval`` seconds (at most 2 s)."""
        if not 0 < interval <= 2.0:
            raise ValueError("a chip reader repeats its inventories at least every 2 s")
        self.stop_chip_refresh()
        self._refresh_stop = threading.Event()
        stop = self._refresh_stop

        def loop() -> None:
            while not stop.wait(interval):
                self.felt.refresh_chips()

        self._refresher = threading.Thread(target=loop, name="chip refresh", daemon=True)
        self._refresher.start()

    def stop_chip_refresh(self) -> None:
        self._refresh_stop.set()
        if self._refresher is not None:
            self._refresher.join()
            self._refresher = None


def _silent_devices() -> dict[str, VirtualDevice]:
    """Devices whose frames go to a recorder nobody reads: for rehearsing a script."""
    recorder = Recorder()
    return {
        name: VirtualDevice(name, recorder.endpoint(name), "REHEARSAL", hello_on_connect=False)
        for name in ("shoe", "cards", "chips", "console")
    }
