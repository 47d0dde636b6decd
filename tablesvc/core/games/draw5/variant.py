"""Five-card draw (the Draw Poker seeds): antes, five cards each, the draw, no board.

What is the game's own: the ante check at the deal, the redeal for a defective deck (DECK-06,
A-08) instead of a misdeal, the exchange of cards between the betting rounds, the reshuffled
pack, the out-of-turn rules of draw (BET-24/25), a game checked out with the pot carried over
(POT-10), and the showdown of five-card hands (SHOW-14).
"""

from __future__ import annotations

from collections.abc import Set
from typing import Any, ClassVar

from tablesvc.core import events as ev
from tablesvc.core.betting import Structure
from tablesvc.core.card_flow import GameOutcome
from tablesvc.core.defects import DefectKind, DefectRuling
from tablesvc.core.emitter import Emitter
from tablesvc.core.equity import EquityState
from tablesvc.core.game import HandView, Variant
from tablesvc.core.games.draw5.plan import DrawBetting
from tablesvc.core.games.draw5.tracker import CARDS, DrawComplete, DrawHand, Drew
from tablesvc.core.history import HistoryBook
from tablesvc.core.ledger import Ledger
from tablesvc.core.ledger_outcomes import Acted, CheckedOut, LedgerOutcome, Problem
from tablesvc.core.remedies import REMEDIES
from tablesvc.core.settings import Player

Hand = HandView[DrawHand, None]
"""A hand of five-card draw as the game sees it: its own tracker, no monitors of its own."""


class Draw5(Variant[DrawHand, None]):
    name: ClassVar[str] = "draw5"
    hole_cards: ClassVar[int] = CARDS
    first_street: ClassVar[str] = "predraw"
    rounds: ClassVar[dict[str, tuple[str, str]]] = {
        "predraw": ("first", "the draw"), "postdraw": ("second", "the showdown")}
    misdeal_window: ClassVar[bool] = False
    folds_recoverable: ClassVar[bool] = False
    carries_pot: ClassVar[bool] = True
    removal_severity: ClassVar[str] = "warning"  # TABLE-10: a warning in draw
    buys_between_games: ClassVar[bool] = True  # TABLE-08: from the banker, after a game
    BUTTONS: ClassVar[frozenset[str]] = frozenset({"DRAW", "CARDS_VIEWED", "SHUFFLE_ERROR"})
    RULES: ClassVar[dict[str, tuple[str, ...]]] = {
        "SEAT-07": ("ante_missing",),
        "SEAT-09": ("dealer_rotation_error",),
        "SEAT-10": ("player_count_out_of_range",),
        "DECK-06": ("deck_defective_foreign_card", "deck_defective_duplicate"),
        "MISDEAL-15": ("redeal_may_be_demanded",),
        "POT-09": ("pot_chips_removed",),
        "POT-10": ("pot_carryover",),
        "BET-20": ("game_checked_out",),
        # every betting violation but the out-of-turn ones is filed under draw's round rule
        "BET-21": ("raise_below_minimum", "call_short", "reraise_not_allowed",
                   "reraise_after_incomplete_allin", "incomplete_allin_raise",
                   "bet_exceeds_limit", "illegal_check", "bet_withdrawn", "clock_running",
                   "clock_expired", "absent_player_auto_action", "chips_added_mid_hand"),
        "BET-22": ("game_checked_out",),
        "BET-24": ("out_of_turn_bet_provisional",),
        "BET-25": ("fold_out_of_turn",),
        "BET-26": ("fold_recorded",),
        "SHOW-14": ("showdown_order",),
    }

    def deal_in(self, seated: list[int], button: int, players: dict[int, Player], unit: int,
                carried: int, unverified: Set[int] = frozenset()
                ) -> tuple[DrawHand, Ledger, HistoryBook | None]:
        s = self.s
        hand = DrawHand(tuple(seated), button)
        order = hand.order
        ledger = Ledger(
            order=order, button=button, stacks={seat: players[seat].stack for seat in order},
            small_blind=0, big_blind=s.big_blind, ante=s.ante, ante_mode="each",
            structure=Structure(s.limit), unit=unit, settle_ms=s.bet_settle_ms,
            plan=DrawBetting(s.all_check), carried=carried,
            unverified=frozenset(unverified) & frozenset(order))
        return hand, ledger, None  # PHH has no five-card-draw-high variant

    def started(self, session: Hand) -> None:
        """Antes, no blinds; the dealer is the button seat (SEAT-09)."""
        s, players, out = self.s, session.table.players, session.out
        order = session.tracker.order
        if not 3 <= len(order) <= 8:
            out.alert("player_count_out_of_range", "SEAT-10", "warning",
                      f"a draw game needs 3 to 8 players; {len(order)} are dealt in",
                      remedy="add or remove players, or the floor confirms the exception "
                      "(all players agree, DRAW-10); the game is tracked either way",
                      hand=session.number)
        carry = session.ledger.carried
        out.emit(ev.HandStarted, hand=session.number, variant="draw5", limit=s.limit,
                 button=session.ledger.button, small_blind_seat=None, big_blind_seat=None,
                 seats=[ev.SeatInfo.trusted(seat=seat, name=players[seat].name,
                                            stack=players[seat].stack,
                                            unverified=seat in session.ledger.unverified)
                        for seat in order],
                 small_blind=0, big_blind=0, ante=s.ante, ante_mode="each",
                 carried_pot=carry)
        if carry:
            out.alert("pot_carryover", "POT-10", "info",
                      f"this game starts with {carry} carried over from the last one")

    def too_early(self, session: Hand, t: str, f: tuple[str, ...],
                  value: int) -> bool | None:
        """The draw's own order, player by player: the announcement (console), the discards
        (muck), the replacements (shoe, then the seat). A step of a player read before the
        step that came first waits for it."""
        hand = session.tracker
        announcing = t == "BTN" and f[0] == "DRAW"
        if hand.phase in ("deal", "predraw"):
            return True if announcing else None  # the round's last action may be on its way
        if hand.phase != "draw":
            return None
        turn = hand.current()
        if announcing:  # the last player's replacements may still be landing
            return hand.pending is not None or (
                turn is not None and turn.announced is not None and len(f) > 1
                and f[1] != str(turn.seat))
        if t == "ARR" and f[0] == "MUCK":  # a discard: not before its player's announcement
            seat = hand.owner(f[1])
            mine = hand.turn_of(seat) if seat is not None else None
            if mine is None:
                return None
            return mine.announced is None and not mine.done
        if t == "DRAW" and turn is not None:  # a replacement before the discards or the call
            return turn.announced is None or len(turn.discards) < turn.announced
        if t == "CHIPS" and f[0].startswith("B") and turn is not None:
            # a bet of the second round while a player has not finished his exchange
            return value > session.table.zones.get(f[0], 0)
        return None

    def forced_bets_out(self, session: Hand) -> bool:
        return session.table.zones.get("POT", 0) < session.ledger.antes

    def first_card(self, session: Hand) -> None:
        ledger = session.ledger
        pot = session.table.zones.get("POT", 0)
        if pot < ledger.antes:
            session.out.alert("ante_missing", "SEAT-07", "warning",
                              f"the deal started with {pot} in the pot; the antes and any "
                              f"carried-over pot make {ledger.antes}",
                              remedy="the missing antes go in before the players look at their "
                              "cards")

    def forced_bets_shown(self, session: Hand, ledger: Ledger) -> tuple[bool, bool]:
        """No blinds; the antes (with any carried pot) in the pot."""
        return True, session.table.zones.get("POT", 0) == ledger.antes

    def first_card_misdirected(self, session: Hand, seat: int, expected: str,
                               cards: list[str], evidence: dict[str, Any]) -> None:
        """SEAT-09: the first card tells who the dealer thinks he is; a card out of order
        (DEAL-04) as well: one alert."""
        session.out.alert("dealer_rotation_error", "SEAT-09", "warning",
                          f"the first card went to seat {seat}, but the dealer is seat "
                          f"{session.table.button}: the deal starts with the seat on his left "
                          "(a card out of order, DEAL-04)",
                          seat=seat, remedy="redress if no card has been looked at; otherwise "
                          "the draw redeal rules apply (MISDEAL-16)", cards=cards,
                          evidence=evidence)

    def defect(self, session: Hand, kind: DefectKind, what: str,
               cards: list[str]) -> DefectRuling:
        """DECK-06: in draw any defective deck found before the pot is collected means the
        game is dealt again (A-08): void until the dealer presses REDEAL."""
        del session
        remedy = ("void the game: every bet goes back, replace the deck, the same dealer deals "
                  "again (REDEAL)")

        def raise_alert(out: Emitter, seat: int | None, where: str,
                        evidence: dict[str, Any]) -> None:
            if kind == "foreign":
                out.alert("deck_defective_foreign_card", "DECK-06", "critical",
                          f"{what}: {where}; the game must be dealt again", seat=seat,
                          remedy=remedy, cards=cards, evidence=evidence)
            else:
                out.alert("deck_defective_duplicate", "DECK-06", "critical",
                          f"{what}: {where}; the game must be dealt again", seat=seat,
                          remedy=remedy, cards=cards, evidence=evidence)

        return DefectRuling(raise_alert, cancel_now=False)

    def pack_scanned(self, session: Hand, uids: list[str]) -> bool:
        hand = session.tracker
        if hand.phase != "draw":
            return False
        session.outcomes(hand.reshuffle(uids))  # DRAW-05: the new pack
        return True

    def monitors(self, session: Hand) -> None:
        """Draw's checks are its tracker's and its hooks'."""

    def equity_state(self, hand: DrawHand) -> EquityState | None:
        """Each seat's hand after the deal and after the draw (no board, no stub to count)."""
        if hand.ended or hand.voided is not None:
            return None
        live = [s for s in hand.active if s not in hand.dead]
        if len(live) < 2:
            return None
        holes = tuple((s, tuple(hand.cards_of(s))) for s in live)
        if hand.phase in ("deal", "predraw") and all(len(c) == CARDS for _, c in holes):
            return EquityState("predraw", holes)
        if hand.phase == "postdraw" and all(1 <= len(c) <= CARDS for _, c in holes):
            return EquityState("postdraw", holes)
        return None

    def outcome(self, session: Hand, o: GameOutcome) -> None:
        """An exchange done (the counts for everyone, the cards for the secure feed), or the
        draw complete: the second betting round opens."""
        if isinstance(o, Drew):
            if not o.again:  # a reopened exchange was announced already
                session.out.emit(ev.Draw, seat=o.seat, discarded=o.discarded,
                                 received=o.received)
            session.out.emit(ev.HoleCards, seat=o.seat, cards=list(o.hole))
        elif isinstance(o, DrawComplete):
            session.ledger.next_street("postdraw")
            self.showdown(session)

    def fold_recorded(self, session: Hand, seat: int) -> None:
        """BET-26: a fold is final."""
        session.out.alert("fold_recorded", "BET-26", "info",
                          f"seat {seat} folded; the cards may not be picked up again",
                          seat=seat)

    def showing_order(self, session: Hand, order: list[int]) -> None:
        """SHOW-14: clockwise from the player after the last bettor of the second round."""
        session.out.alert("showdown_order", "SHOW-14", "info",
                          "showing order: " + ", ".join(f"seat {s}" for s in order),
                          seat=order[0] if order else None)

    def button(self, session: Hand, name: str, args: list[str]) -> None:
        hand = session.tracker
        seat = int(args[0]) if args and args[0].isdigit() else None
        if name == "DRAW":
            if seat is None or len(args) != 2 or not args[1].isdigit():
                return  # not a draw announcement: nothing to do
            session.unverified_all_in(seat)  # a draw announced: the round was over
            session.place_chips_in_motion()
            session.outcomes(hand.announce(int(args[0]), int(args[1])))
        elif name == "CARDS_VIEWED" and seat is not None:
            session.outcomes(hand.viewed(seat))
        elif name == "SHUFFLE_ERROR":
            self._shuffle_error(session, hand)

    def _shuffle_error(self, session: Hand, hand: DrawHand) -> None:
        """MISDEAL-15: after a shuffle or cut error a player who has received only one card,
        and not looked at it, may demand a redeal (A-37)."""
        eligible = [s for s in hand.order if hand.hole_count(s) <= 1]
        if hand.phase == "deal" and eligible:
            session.out.alert("redeal_may_be_demanded", "MISDEAL-15", "warning",
                              "a shuffle or cut error: players with no more than one card may "
                              "demand a redeal (seats " + ", ".join(map(str, eligible)) + ")",
                              remedy="on demand of a player who has not looked at his card: "
                              "collect, shuffle, cut, the same dealer deals again (REDEAL)")
        else:
            session.out.alert("redeal_may_be_demanded", "MISDEAL-15", "info",
                              "a shuffle or cut error, but every player has more than one "
                              "card: no redeal can be demanded any more", remedy="play on")

    def first_round_action(self, session: Hand, seat: int, action: str) -> None:
        session.close_window(seat, action)
        session.outcomes(session.tracker.betting_started())

    def bet_zone_changed(self, session: Hand, seat: int, value: int,
                         before: int) -> None:
        # chips going in mean betting; chips coming out (an uncalled bet handed back, the
        # gathering) do not, and the reader repeating an inventory is no news
        if value > before:
            self.betting_resumes(session)

    def betting_resumes(self, session: Hand) -> None:
        """Betting resumes while exchanges stand open: close them with what they have."""
        hand = session.tracker
        if hand.phase == "draw":
            session.outcomes(hand.close_draw())

    def pot_shrank(self, session: Hand, before: int, value: int) -> None:
        if session.ledger.settled is None:
            session.out.alert("pot_chips_removed", "POT-09", "warning",
                              f"chips were taken out of the pot during the game: it held "
                              f"{before}, now {value}", remedy="stop: the chips go back into "
                              "the pot; no chips may be taken out before it is awarded")

    def problem(self, session: Hand, o: Problem, outcomes: list[LedgerOutcome]) -> bool:
        """Draw has its own out-of-turn rules (BET-24, BET-25) and round rule (BET-21)."""
        v, seat = o.violation, o.seat
        ledger, out = session.ledger, session.out
        if v.name != "action_out_of_turn":
            out.alert(v.name, "BET-21", v.severity, v.message, seat=seat,
                      remedy=REMEDIES.get(v.name, ""))
            return True
        folded = any(isinstance(a, Acted) and a.decision.seat == seat
                     and a.decision.action == "fold" for a in outcomes)
        if folded and seat in session.tracker.dead:
            return True  # a dead hand (SHOW-15) is no fold of the player's own
        rnd = ledger.round
        if folded:
            if len(ledger.live) < 2:
                return True  # BET-25: with one other player left a fold out of turn is allowed
            owed = (rnd.high - rnd.contributed.get(seat, 0)) if rnd is not None and seat else 0
            if seat is not None and owed > 0:
                ledger.owes[seat] = owed  # he pays it when his turn comes
            out.alert("fold_out_of_turn", "BET-25", "warning",
                      f"seat {seat} folded out of turn while several players are in; he "
                      f"still owes the call of {owed} and cannot win the pot", seat=seat,
                      remedy="when his turn comes the player puts in the call; his hand is "
                      "dead (A-27)")
            return True
        out.alert("out_of_turn_bet_provisional", "BET-24", "warning",
                  f"seat {seat} bet out of turn: the bet is provisionally void, the chips stay "
                  "in the pot", seat=seat, remedy="when his turn comes he may use these chips "
                  "to call, but may not raise in this round; chips above the call go back to "
                  "him (A-27)")
        return True

    def after_betting(self, session: Hand) -> None:
        """The first round is complete with a bet, so the exchange begins (DRAW-02)."""
        hand, ledger = session.tracker, session.ledger
        if hand.ended:
            return
        if hand.phase in ("deal", "predraw") and ledger.street == "predraw" \
                and ledger.settled is None and ledger.checked_out is None \
                and ledger.round is not None and ledger.round.complete \
                and ledger.pending is None:
            session.outcomes(hand.start_draw(ledger.live))

    def checked_out(self, session: Hand, o: CheckedOut) -> None:
        """BET-20/22, POT-10: everyone checked; the pot stays for the next game."""
        out = session.out
        carried = o.carried
        if session.ledger.carry_unknown:
            # a pot carried from a game the service did not see, not yet read in the pot:
            # the chip reader's last reading of it says what stays; without one the next
            # game's pot will say (``pot_count``)
            pot = session.table.zones.get("POT")
            if pot is not None and pot > carried:
                carried = pot
            else:
                session.table.carry_known = False
        session.table.carry = carried
        first = "first" if o.street == "predraw" else "second"
        out.alert("game_checked_out", "BET-20" if o.street == "predraw" else "BET-22",
                  "info", f"everyone checked in the {first} betting round: the game ends "
                  "with no winner")
        out.alert("pot_carryover", "POT-10", "info",
                  f"the pot of {carried} stays in the middle for the next game",
                  remedy="the next game starts with this pot plus the new antes; the "
                  "Vorhand deals next")
        session.hand_ended("checked_out", session.ledger.shown_stacks(), carried_pot=carried)
        session.table.eliminate(session.tracker.order)

    def showdown(self, session: Hand) -> None:
        """SHOW-14: every active hand is shown; more than five cards is dead (A-21, A-38)."""
        hand, ledger = session.tracker, session.ledger
        if hand.ended:
            return
        if ledger.street != "postdraw" or ledger.checked_out is not None \
                or not ledger.showdown_due(hand.phase == "postdraw"):
            return
        for seat in list(ledger.live):
            n = hand.hole_count(seat)
            if (n > CARDS or n == 0) and session.foul(seat, n,
                                                      "five, or fewer after a short draw"):
                return
        holes = {seat: hand.cards_of(seat) for seat in ledger.live}
        session.settled(ledger.showdown(holes, ()))
        session.table.carry = 0
