"""The community-card games (hold'em, Omaha): hole cards, blinds, a board of five dealt in three
streets with a burn before each, a misdeal while no one has acted.

What hold'em and Omaha share is here, once; what differs (how many hole cards, how a hand is
made of them and the board, the game's name in the hand history) is the game's own package
(``tablesvc.core.games.holdem``, ``tablesvc.core.games.omaha``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence, Set
from dataclasses import dataclass
from typing import Any, ClassVar

from tablesvc.core import events as ev
from tablesvc.core.betting import Structure
from tablesvc.core.betting_plan import BettingPlan
from tablesvc.core.card_flow import GameOutcome
from tablesvc.core.defects import DefectKind, DefectRuling
from tablesvc.core.emitter import Emitter
from tablesvc.core.equity import EquityState
from tablesvc.core.game import HandView, Variant
from tablesvc.core.games.community.deal_queue import BoardDealt, Burned
from tablesvc.core.games.community.tracker import CommunityHand
from tablesvc.core.history import HistoryBook
from tablesvc.core.ledger import Ledger
from tablesvc.core.monitors.blinds import Blinds, blinds_button, posted_blinds
from tablesvc.core.monitors.deal_completion import WORDS, DealCompletion
from tablesvc.core.settings import Player
from tablesvc.core.showdown import HandValue


@dataclass(frozen=True, slots=True)
class CommunityMonitors:
    """The monitors of one hand of a community-card game: its blinds and its deal."""

    blinds: Blinds
    deal: DealCompletion


Hand = HandView[CommunityHand, CommunityMonitors]
STREETS = {0: "preflop", 3: "flop", 4: "turn", 5: "river"}
"""The street of a board of this many cards."""


class CommunityGame(Variant[CommunityHand, CommunityMonitors]):
    """A game of hole cards and a shared board; a subclass names it and says how many hole
    cards a seat gets."""

    first_street: ClassVar[str] = "preflop"
    rounds: ClassVar[dict[str, tuple[str, str]]] = {
        "preflop": ("preflop", "the flop"), "flop": ("flop", "the turn"),
        "turn": ("turn", "the river"), "river": ("river", "the showdown")}
    misdeal_window: ClassVar[bool] = True
    folds_recoverable: ClassVar[bool] = True
    RULES: ClassVar[dict[str, tuple[str, ...]]] = {
        "MISDEAL-09": ("deck_defective_foreign_card",),
        "MISDEAL-10": ("deck_defective_duplicate",),
        "DECK-04": ("deck_defective_duplicate",),
        "DECK-05": ("deck_defective_foreign_card",),
        "SEAT-02": ("button_position_error",),
        "BET-08": ("fold_recorded",),
        "SHOW-01": ("showdown_order",),
    }

    def deal_in(self, seated: list[int], button: int, players: dict[int, Player], unit: int,
                carried: int, unverified: Set[int] = frozenset()
                ) -> tuple[CommunityHand, Ledger, HistoryBook | None]:
        del carried  # hold'em pots never carry over
        s = self.s
        hand = CommunityHand(tuple(seated), button, self.hole_cards)
        order = hand.order
        ledger = Ledger(
            order=order, button=button, stacks={seat: players[seat].stack for seat in order},
            small_blind=s.small_blind, big_blind=s.big_blind, ante=s.ante,
            ante_mode=s.ante_mode, structure=Structure(s.limit), unit=unit,
            settle_ms=s.bet_settle_ms, plan=BettingPlan(self.rank),
            unverified=frozenset(unverified) & frozenset(order))
        code = self.phh_variant.get(s.limit)
        return hand, ledger, HistoryBook(order, code) if code is not None else None

    def started(self, session: Hand) -> None:
        s, players = self.s, session.table.players
        sb, bb = session.ledger.blind_seats
        session.out.emit(ev.HandStarted, hand=session.number, variant=self.name, limit=s.limit,
                         button=session.ledger.button, small_blind_seat=sb, big_blind_seat=bb,
                         seats=[ev.SeatInfo.trusted(seat=seat, name=players[seat].name,
                                                    stack=players[seat].stack,
                                                    unverified=seat in session.ledger.unverified)
                                for seat in session.tracker.order],
                         small_blind=s.small_blind, big_blind=s.big_blind,
                         ante=s.ante, ante_mode=s.ante_mode)

    def monitors(self, session: Hand) -> CommunityMonitors:
        return CommunityMonitors(Blinds(session.out), DealCompletion(session.out,
                                                                     self.hole_cards))

    def forced_bets_out(self, session: Hand) -> bool:
        zones, ledger = session.table.zones, session.ledger
        return any(zones.get(f"B{seat}", 0) < amount
                   for seat, amount in posted_blinds(ledger).items())

    def first_card(self, session: Hand) -> int | None:
        """SEAT-02/03: the blinds in the bet zones. When they are exactly another button's
        blinds, the dealer dealt from that button: one alert says so, not a blind missing
        here and one in the wrong seat there."""
        ledger, zones = session.ledger, session.table.zones
        other = blinds_button(ledger, zones)
        if other is not None and other != ledger.button:
            sb, bb = ledger.blind_seats
            session.out.alert(
                "button_position_error", "SEAT-02", "warning",
                f"the blinds are in the bet zones of the seats after seat {other}: the hand is "
                f"dealt from a button at seat {other}, but the button is at seat "
                f"{ledger.button} (blinds {sb} and {bb})", seat=other,
                remedy="move the button before dealing on; the blinds go to the right seats; "
                "while no one has acted a misdeal is possible (MISDEAL-04)")
            return other
        session.monitors.blinds.first_card(ledger, zones)
        return None

    def forced_bets_shown(self, session: Hand, ledger: Ledger) -> tuple[bool, bool]:
        """The blinds in their bet zones, or in another button's (SEAT-02 says so then), and
        the antes in the pot."""
        zones = session.table.zones
        blinds = all(zones.get(f"B{seat}", 0) == amount
                     for seat, amount in posted_blinds(ledger).items()) \
            or blinds_button(ledger, zones) is not None
        return blinds, zones.get("POT", 0) == ledger.antes

    def rank(self, hole: Sequence[str], board: Sequence[str]) -> HandValue:
        """What a hand is worth at the showdown: the game's way of making it of the hole
        cards and the board."""
        raise NotImplementedError

    def equity_state(self, hand: CommunityHand) -> EquityState | None:
        """Due with the deal complete, at each street, at each fold; the cards the service saw
        leave play (burns, the muck, folded hands) are known dead."""
        if hand.ended or hand.voided is not None:
            return None
        live = [s for s in hand.active if s not in hand.dead]
        street = STREETS.get(len(hand.board))
        if len(live) < 2 or street is None or any(
                hand.hole_count(s) != self.hole_cards for s in live):
            return None  # the deal or a street is under way (the usual case: checked cheaply)
        holes = tuple((s, tuple(hand.cards_of(s))) for s in live)
        shown = [c for _, cards in holes for c in cards] + hand.board
        if len(set(shown)) != len(shown):
            return None  # a card in two places: the tracker is sorting out an irregularity
        dead = {rec.card for rec in hand.cards.values() if rec.zone in ("BURN", "MUCK")}
        for seat in hand.order:
            if seat not in live:
                dead.update(hand.cards_of(seat))
        return EquityState(street, holes, tuple(hand.board), tuple(sorted(dead - set(shown))))

    def outcome(self, session: Hand, o: GameOutcome) -> None:
        """A burn, or board cards: the next street's betting opens, the showdown may be due."""
        if isinstance(o, Burned):
            session.out.emit(ev.Burn, before=o.before, index=o.index)
        elif isinstance(o, BoardDealt):
            session.out.emit(ev.Board, street=o.street, cards=list(o.cards),
                             board=list(o.board))
            if session.book is not None:
                session.book.board(o.cards)
            session.ledger.next_street(o.street)
            self.showdown(session)

    def fold_recorded(self, session: Hand, seat: int) -> None:
        """BET-08: a fold is final."""
        session.out.alert("fold_recorded", "BET-08", "info",
                          f"seat {seat} folded; the cards may not be picked up again",
                          seat=seat)

    def showing_order(self, session: Hand, order: list[int]) -> None:
        """SHOW-01/02: the last aggressor shows first, else the first seat left of the
        button."""
        session.out.alert("showdown_order", "SHOW-01", "info",
                          "showing order: " + ", ".join(f"seat {s}" for s in order),
                          seat=order[0] if order else None)

    def dealt(self, session: Hand) -> None:
        session.monitors.deal.dealt(session.tracker)

    def first_card_misdirected(self, session: Hand, seat: int, expected: str,
                               cards: list[str], evidence: dict[str, Any]) -> None:
        """SEAT-02: the first card tells where the dealer thinks the button is. It is also a
        card dealt out of order (DEAL-02): one fault, one alert naming both."""
        session.out.alert("button_position_error", "SEAT-02", "warning",
                          f"the first card went to seat {seat}, but the button is at seat "
                          f"{session.table.button}: the deal should start at seat "
                          f"{expected.removeprefix('S')} (a card out of order, DEAL-02)",
                          seat=seat, remedy="move the button before dealing on; cards dealt "
                          "from the wrong button are redressed, or, while no one has acted, "
                          "a misdeal (MISDEAL-04)", cards=cards, evidence=evidence)

    def defect(self, session: Hand, kind: DefectKind, what: str,
               cards: list[str]) -> DefectRuling:
        """While no one has acted (the misdeal window) a defective deck is a misdeal
        (MISDEAL-09/10); after it the hand is cancelled and every bet goes back (DECK-04/05,
        R11, A-08). One alert says both the fault and what follows."""
        window = session.window_open or session.tracker.next_index == 1
        if window:
            remedy = ("declare the misdeal: collect every card, replace the deck, shuffle and "
                      "cut, deal again with the same button (MISDEAL-02)")
        else:
            remedy = ("the hand is cancelled and every bet goes back (A-08); collect the "
                      "cards and replace the deck before the next hand; the button stays")

        def raise_alert(out: Emitter, seat: int | None, where: str,
                        evidence: dict[str, Any]) -> None:
            if kind == "foreign":
                out.alert("deck_defective_foreign_card", "MISDEAL-09" if window else "DECK-05",
                          "critical", f"{what}: {where}", seat=seat, remedy=remedy,
                          cards=cards, evidence=evidence)
            else:
                out.alert("deck_defective_duplicate", "MISDEAL-10" if window else "DECK-04",
                          "critical", f"{what}: {where}", seat=seat, remedy=remedy,
                          cards=cards, evidence=evidence)

        return DefectRuling(raise_alert, cancel_now=not window)

    def first_round_action(self, session: Hand, seat: int, action: str) -> None:
        hand = session.tracker
        session.monitors.deal.first_action(hand, session.window_open)
        session.close_window(seat, action)

    def bet_zone_changed(self, session: Hand, seat: int, value: int,
                         before: int) -> None:
        session.monitors.blinds.zone_changed(seat, value, session.ledger)

    def showdown(self, session: Hand) -> None:
        hand, ledger = session.tracker, session.ledger
        if hand.ended or not ledger.showdown_due(hand.river_dealt):
            return
        zones = Counter(r.zone for r in hand.cards.values())  # the cards at each seat
        for seat in list(ledger.live):
            held = zones[f"S{seat}"]
            if held != self.hole_cards and session.foul(seat, held, WORDS[self.hole_cards]):
                return
        holes = {seat: hand.hole[seat] for seat in ledger.live}
        session.settled(ledger.showdown(holes, hand.board))
