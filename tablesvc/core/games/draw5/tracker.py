"""The card flow of one five-card-draw game (RULES.md §2.6, §2.7, DRAW rules).

Like ``CommunityHand`` it is told what the sensors saw and answers with what happened in poker
terms; it knows nothing of chips. The table tells it when the first betting round is over
(``start_draw``) and it answers ``DrawComplete`` when every player has exchanged, so the table
opens the second round.

The deal: card #k goes to v_((k-1) mod N)+1, the Vorhand (first seat left of the dealer)
first. After a card to the wrong seat the dealer usually carries on clockwise from where he
is, so only the first wrong card is ``deal_order_error``; the counts at the end of the deal
(``hole_card_count_error``, MISDEAL-16) then say which seats are wrong.

The stub: the shoe starts with the 52 cards of the deck. The last card in it is the bottom
card and is never dealt (DRAW-04). The tracker counts the cards in the shoe; it knows the
bottom card by identity after the first exposed card of the draw was put under the stub
(DRAW-06) or after a reshuffled pack was scanned (``DECK``, DRAW-05).

>>> g = DrawHand(seats=(1, 2, 3), button=3)
>>> g.order
(1, 2, 3)
>>> g.card_out("U1", "As", face_up=False)
[]
>>> g.arrive("S1", "U1", "As")
[Dealt(seat=1, n=1, index=1, card='As', face_up=False, hole=None)]
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tablesvc.core.card_flow import (
    CardAfterEnd,
    CardRecord,
    Dealt,
    Folded,
    Irregularity,
    alert,
    deal_order,
    irregularity,
    seat_of,
    unaccounted,
)
from tablesvc.core.games.draw5.exchanges import (
    DrawComplete,
    Drew,
    Exchange,
    over_count,
    short_count,
    skipped,
    started_after,
)
from tablesvc.core.games.draw5.stub import Stub

# Rule ID -> the alerts this tracker raises for it (as Irregularity objects the session turns
# into alerts); docs/RULES-COVERAGE.md is generated from such declarations. A card that
# reaches no player is filed under DEAL-04 whether the game is still on or already over. The
# stub's rules (DRAW-04, DRAW-05) are declared in ``tablesvc.core.games.draw5.stub``, the exchanges'
# order and counts (DRAW-02, DRAW-07, DRAW-08) also in ``tablesvc.core.games.draw5.exchanges``, the
# collection (BURN-08) in ``tablesvc.core.card_flow``.
RULES: dict[str, tuple[str, ...]] = {
    "DEAL-04": ("deal_order_error", "card_after_hand_end"),
    "EXPOSE-06": ("card_exposed", "redeal_may_be_demanded"),
    "MISDEAL-16": ("hole_card_count_error", "redeal_required"),
    "DECK-06": ("deck_defective_duplicate",),
    "DRAW-02": ("draw_order_error", "draw_before_discard", "premature_card"),
    "DRAW-03": ("draw_exceeds_max",),
    "DRAW-06": ("card_exposed_at_draw",),
    "DRAW-07": ("draw_count_mismatch",),
    "DRAW-08": ("draw_right_forfeited", "redress_completed"),
    "DRAW-09": ("burn_unexpected",),
    "SHOW-15": ("live_hand_in_muck",),
}

# what the session reads of a draw game: the tracker and the outcomes it answers with
__all__ = ["CARDS", "MAX_DRAW", "RULES", "DrawComplete", "DrawHand", "DrawOutcome", "Drew",
           "Exchange"]

CARDS = 5
MAX_DRAW = 3  # DRAW-03


DrawOutcome = Dealt | Folded | Irregularity | CardAfterEnd | Drew | DrawComplete


@dataclass
class DrawHand:
    """Card flow of one draw game. ``seats`` dealt in; ``button`` is the dealer's seat."""

    seats: tuple[int, ...]
    button: int
    order: tuple[int, ...] = ()
    cards: dict[str, CardRecord] = field(default_factory=dict)
    pending: str | None = None
    next_index: int = 1
    hole: dict[int, list[str]] = field(default_factory=dict)
    board: list[str] = field(default_factory=list)  # always empty: there is no board
    folded: set[int] = field(default_factory=set)
    ended: bool = False
    phase: str = "deal"  # deal, predraw, draw, postdraw
    voided: str | None = None
    stub: Stub = field(default_factory=Stub)  # the shoe: its count, bottom card, packs
    deal_errors: int = 0
    exposed_in_deal: list[str] = field(default_factory=list)
    counted: bool = False  # the deal's card counts were checked (MISDEAL-16)
    turns: list[Exchange] = field(default_factory=list)
    exposed_at_draw: list[str] = field(default_factory=list)
    last_finished: Exchange | None = None
    folded_cards: set[str] = field(default_factory=set)
    dead: set[int] = field(default_factory=set)  # out of this game (too many cards, A-38)

    def __post_init__(self) -> None:
        self.order = deal_order(self.seats, self.button)
        self.hole = {s: [] for s in self.order}

    # --- what the table asks about -------------------------------------------------
    @property
    def active(self) -> list[int]:
        return [s for s in self.order if s not in self.folded]

    @property
    def street(self) -> str:
        return self.phase

    def card_expected(self, betting_over: bool) -> bool:
        """May the next card leave the shoe now: in the deal, or as a replacement in the
        draw (the betting rounds take none)."""
        del betting_over
        return self.phase in ("deal", "draw")

    @property
    def cards_coming(self) -> bool:
        """The deal has begun and is not complete, or a player's replacements are being
        dealt: no betting can come before the last of them."""
        if self.ended or self.voided is not None:
            return False
        if self.phase == "deal":
            return self.next_index > 1
        turn = self.current() if self.phase == "draw" else None
        return turn is not None and turn.announced is not None and \
            len(turn.received) < max(turn.announced, len(turn.discards))

    @property
    def deal_total(self) -> int:
        return CARDS * len(self.order)

    @property
    def over(self) -> bool:
        return self.ended or self.voided is not None or len(self.active) <= 1

    def owner(self, uid: str) -> int | None:
        rec = self.cards.get(uid)
        seat = seat_of(rec.zone if rec else None)
        return seat if seat is not None and uid in self.hole.get(seat, ()) else None

    def current(self) -> Exchange | None:
        """The player whose exchange is due: the first in draw order who has not finished."""
        return next((t for t in self.turns if not t.done), None)

    # --- what the sensors saw ------------------------------------------------------
    def card_out(self, uid: str, card: str, face_up: bool) -> list[DrawOutcome]:
        rec = self.cards.get(uid)
        out: list[DrawOutcome] = []
        if rec is not None and rec.zone not in ("DECK", "MUCK"):
            return []  # the same tag read again at the exit: noise
        if rec is not None and rec.zone == "MUCK":
            # a discard out of the shoe again: a reshuffled pack nobody scanned (DRAW-05)
            out += self._unscanned_pack_card(uid, rec)
        stub = self.stub
        was_bottom = stub.is_bottom(uid)
        if rec is None:
            twin = next((r for r in self.cards.values() if r.card == card), None)
            rec = self.cards[uid] = CardRecord(self.next_index, card, face_up)
            self.next_index += 1
            if twin is not None and self.voided is None:
                self.voided = "cancelled"
                out.append(irregularity(
                    "deck_defective_duplicate", "DECK-06", "critical", None, rec, None, "SHOE",
                    f"card #{rec.index} has the same face as card #{twin.index}: the deck is "
                    "defective", "the game is dealt again: every bet goes back, the deck is "
                    "replaced, the same dealer deals (DECK-06)"))
        else:
            if rec.zone == "MUCK" or uid in stub.pack:
                stub.pack.discard(uid)
                rec.index = self.next_index  # a card of the new pack: r1, r2, ... (§2.6)
                self.next_index += 1
            rec.zone = None
            rec.face_up = face_up
        stub.in_shoe = max(0, stub.in_shoe - 1)
        self.pending = uid
        if self.ended or self.voided is not None:
            return out
        if was_bottom and self.phase == "draw":
            out.append(stub.bottom_dealt(uid, rec))
        return out

    def depart(self, zone: str, uid: str, ms: int | None = None) -> None:
        rec = self.cards.get(uid)
        if rec is not None and rec.zone == zone:
            rec.lifted_from, rec.lifted_ms = zone, ms

    def shoe_in(self, uid: str, bottom: bool = False) -> list[DrawOutcome]:
        """A card went back into the shoe: on top (a premature or extra card, DRAW-07), or under
        the stub (the first card exposed at the draw, DRAW-06)."""
        rec = self.cards.get(uid)
        if rec is None or self.ended:
            return []
        seat = seat_of(rec.zone)
        if seat is not None and uid in self.hole.get(seat, ()):
            self.hole[seat].remove(uid)
            turn = self._turn(seat)
            if turn is not None and uid in turn.received:
                turn.received.remove(uid)
                self._reopen(turn)
        rec.zone = "DECK"
        rec.lifted_from = None
        self.stub.returned(uid, bottom)
        if self.pending == uid:
            self.pending = None
        return []

    def arrive(self, zone: str, uid: str, card: str, betting_over: bool = True,
               bb_option_pending: bool = False, ms: int | None = None,
               fold_possible: bool = True) -> list[DrawOutcome]:
        del bb_option_pending, ms  # hold'em only
        rec = self.cards.get(uid)
        out: list[DrawOutcome] = []
        if rec is None:
            out += self.card_out(uid, card, face_up=False)  # no shoe: the first read is the exit
            rec = self.cards[uid]
        lifted = rec.lifted_from
        rec.lifted_from = rec.lifted_ms = None
        if lifted == zone or rec.zone == zone:
            return out  # lifted and put back, or read again: noise
        if rec.zone is None:
            rec.zone = zone
            if self.pending == uid:
                self.pending = None
            if self.ended or self.voided is not None:
                return out + ([CardAfterEnd(zone, card)] if self.ended else [])
            return out + self._from_deck(zone, uid, rec, betting_over)
        previous, rec.zone = rec.zone, zone
        if self.ended or self.voided is not None:
            return out
        return out + self._moved(previous, zone, uid, rec, fold_possible)

    # --- console -------------------------------------------------------------------
    def announce(self, seat: int, count: int) -> list[DrawOutcome]:
        """``DRAW,<seat>,<k>``: the player says how many cards he exchanges (DRAW-02)."""
        if self.ended or self.voided is not None:
            return []
        out: list[DrawOutcome] = []
        turn = self._turn(seat)
        if self.phase != "draw" or turn is None or turn.done:
            why = ("the draw has not started" if self.phase in ("deal", "predraw")
                   else "the draw is over" if self.phase == "postdraw"
                   else f"seat {seat} is not in the draw" if turn is None
                   else f"seat {seat} has already drawn")
            return [alert("draw_order_error", "DRAW-02", "warning", seat,
                                f"seat {seat} announced a draw of {count}, but {why}",
                                "settle it before the next player draws: no cards for this "
                                "announcement")]
        if count > MAX_DRAW:
            out.append(alert("draw_exceeds_max", "DRAW-03", "warning", seat,
                                   f"seat {seat} announced {count} cards; at most {MAX_DRAW} "
                                   "may be exchanged", "the player exchanges at most three"))
            turn.flagged.add("draw_exceeds_max")
        turn.announced = count
        out += self._check_turn(turn)
        return out

    def viewed(self, seat: int) -> list[DrawOutcome]:
        """``CARDS_VIEWED,<seat>``: the player has looked at the cards he drew (DRAW-07/08)."""
        turn = self._turn(seat)
        if turn is None:
            return []
        skipped = [t for t in self.turns if t.forfeited is False and not t.done
                   and "skipped" in t.flagged]
        out: list[DrawOutcome] = []
        for t in skipped:
            # DRAW-08: the next player has looked, so the skipped one keeps what he has
            t.forfeited = True
            t.done = True
            t.flagged.discard("skipped")
            out.append(alert(
                "draw_right_forfeited", "DRAW-08", "info", t.seat,
                f"seat {t.seat} was skipped at the draw and seat {seat} has looked at his "
                f"cards: seat {t.seat} may no longer exchange"
                + (f" and plays with {len(self.hole[t.seat])} cards" if t.discards else ""),
                f"seat {t.seat} keeps his cards; discards are not picked up again"))
            out.append(Drew(t.seat, len(t.discards), 0, tuple(self._cards(t.seat))))
        return out + (self._next_turn() if skipped else [])

    def exposed(self, uid: str, window_open: bool) -> list[DrawOutcome]:
        """``EXPOSED,<uid>``: a card was seen face up (EXPOSE-06 in the deal, DRAW-06 at the
        draw)."""
        del window_open
        rec = self.cards.get(uid)
        if rec is None or self.ended or self.voided is not None:
            return []
        if uid in self.exposed_in_deal or uid in self.exposed_at_draw:
            return []
        seat = seat_of(rec.zone) or self._receiver()
        if self.phase == "draw":
            return self._exposed_at_draw(uid, rec, seat)
        if self.phase == "deal":
            return self._exposed_in_deal(uid, rec, seat)
        return [irregularity("card_exposed", "EXPOSE-06", "warning", seat, rec, None, "EXPOSED",
                          f"card #{rec.index} was exposed" + (f" at seat {seat}" if seat else ""),
                          "the player keeps the card; play goes on")]

    def boxed(self, uid: str | None, window_open: bool) -> list[DrawOutcome]:
        """A face-up card found in the deck: in draw the seeds treat it as an exposed card
        (EXPOSE-06, DRAW-06); there is no burn to put it in."""
        return self.exposed(uid, window_open) if uid else []

    def redress_impossible(self, window_open: bool) -> list[DrawOutcome]:
        """Draw has no queue to rewrite: a card that cannot be redressed is settled by the
        count rules (MISDEAL-16, DRAW-07), which the counts already report."""
        del window_open
        return []

    def player_absent(self, seat: int, window_open: bool) -> list[DrawOutcome]:
        """The seeds have no absent-player rule for draw; the hand of a player who has left
        is folded (the ledger deems his turns, BET-16)."""
        del window_open
        return self.fold(seat) if seat in self.active else []

    def fold(self, seat: int) -> list[DrawOutcome]:
        if seat not in self.hole or seat in self.folded or self.ended:
            return []
        self.folded.add(seat)
        out: list[DrawOutcome] = [Folded(seat)]
        turn = self._turn(seat)
        if turn is not None and not turn.done:
            turn.done = True
            out += self._maybe_complete()
        return out

    def collected(self) -> list[DrawOutcome]:
        """End of the game: every card that left the shoe must be in the muck or back in the
        shoe (BURN-08 by analogy)."""
        return list(unaccounted(self.cards.values(), str,
                                "stop and search for the card before the next game"))

    # --- phases --------------------------------------------------------------------
    def betting_started(self) -> list[DrawOutcome]:
        """The first action of the first round: the deal is over, so its counts are final."""
        if self.phase == "deal":
            self.phase = "predraw"
            return self._count_check()
        return []

    def start_draw(self, live: list[int]) -> list[DrawOutcome]:
        """The first betting round is complete with a bet (BET-21): the draw begins with the
        first active player left of the dealer (DRAW-02)."""
        out = self.betting_started()
        if self.phase != "predraw" or self.voided is not None:
            return out
        self.phase = "draw"
        self.turns = [Exchange(s) for s in self.order if s in live and s not in self.folded]
        return out + self._maybe_complete()

    def reshuffle(self, pack: list[str]) -> list[DrawOutcome]:
        """A scanned reshuffled pack (``DECK`` during the draw, DRAW-05): check what is in it,
        then deal on from it; its last card is the new bottom card."""
        current = self.current()
        eligible = {u for t in self.turns if t.done and t is not current for u in t.discards}
        eligible.update(u for u in self.exposed_at_draw[1:] if self.cards[u].zone == "MUCK")
        return list(self.stub.reshuffle(pack, eligible, self.cards, self.folded_cards,
                                        self.hole))

    # --- internals -----------------------------------------------------------------
    def turn_of(self, seat: int) -> Exchange | None:
        """The seat's exchange in the draw, if it takes part."""
        return self._turn(seat)

    def _turn(self, seat: int) -> Exchange | None:
        return next((t for t in self.turns if t.seat == seat), None)

    def _receiver(self) -> int | None:
        turn = self.current()
        return turn.seat if turn is not None else None

    def _from_deck(self, zone: str, uid: str, rec: CardRecord,
                   betting_over: bool) -> list[DrawOutcome]:
        seat = seat_of(zone)
        if zone == "BURN":
            return [irregularity("burn_unexpected", "DRAW-09", "warning", None, rec, None, "BURN",
                              f"card #{rec.index} was burned; five-card draw has no burn card",
                              "the card goes back on top of the stub")]
        if zone == "MUCK" and self.phase == "draw":
            if uid in self.exposed_at_draw:
                return []
            if rec.face_up:
                return self._exposed_at_draw(uid, rec, self._receiver())
        if seat is None:
            return [irregularity("card_after_hand_end" if self.over else "deal_order_error",
                              "DEAL-04", "warning", None, rec, None, zone,
                              f"card #{rec.index} went to {zone.lower()}, not to a player",
                              "the card goes back on top of the stub")]
        if self.phase == "deal":
            return self._dealt(seat, uid, rec)
        if self.phase == "draw":
            return self._replacement(seat, uid, rec)
        if self.phase == "predraw" and self.counted and \
                len(self.hole.get(seat, ())) < CARDS and seat in self.active:
            # MISDEAL-16: the dealer makes up a short count with the next stub card
            self.hole.setdefault(seat, []).append(uid)
            hole = self.hole[seat]
            return [Dealt(seat, len(hole), rec.index, rec.card, rec.face_up,
                          tuple(self._cards(seat)) if len(hole) == CARDS else None)]
        if (self.phase == "predraw" and not betting_over) or self.phase == "postdraw":
            self.hole.setdefault(seat, []).append(uid)
            return [irregularity(
                "premature_card", "DRAW-02", "critical", seat, rec, None, zone,
                f"card #{rec.index} left the shoe during a betting round",
                "the floor decides; if nobody has seen it, the card goes back on top of the "
                "stub")]
        # predraw with the round over but the draw not yet opened: the draw is under way
        return self._replacement(seat, uid, rec)

    def _dealt(self, seat: int, uid: str, rec: CardRecord) -> list[DrawOutcome]:
        out: list[DrawOutcome] = []
        given = sum(len(c) for c in self.hole.values())
        expected = self.order[given % len(self.order)] if self.order else seat
        if seat not in self.hole:
            self.hole[seat] = []
        if seat != expected and self.deal_errors == 0:
            self.deal_errors += 1
            out.append(irregularity(
                "deal_order_error", "DEAL-04", "warning", seat, rec, f"S{expected}", f"S{seat}",
                f"card #{rec.index} went to seat {seat}; it was seat {expected}'s card",
                "redress while no one has looked at the cards; otherwise the card counts are "
                "corrected or the game is dealt again (MISDEAL-16)"))
        self.hole[seat].append(uid)
        hole = self.hole[seat]
        if rec.face_up:
            out += self._exposed_in_deal(uid, rec, seat)
        out.append(Dealt(seat, len(hole), rec.index, rec.card, rec.face_up,
                         tuple(self._cards(seat)) if len(hole) == CARDS else None))
        if given + 1 == self.deal_total:
            out += self.betting_started()
        return out

    def _cards(self, seat: int) -> list[str]:
        return [self.cards[u].card for u in self.hole.get(seat, ())]

    def hole_count(self, seat: int) -> int:
        return len(self.hole.get(seat, ()))

    def cards_of(self, seat: int) -> list[str]:
        """The cards seat holds now (secure)."""
        return self._cards(seat)

    def _count_check(self) -> list[DrawOutcome]:
        """MISDEAL-16: after the deal every player holds five cards."""
        if self.counted:
            return []
        self.counted = True
        wrong = {s: len(c) for s, c in self.hole.items() if s in self.order and len(c) != CARDS}
        if not wrong:
            return []
        listing = ", ".join(f"seat {s} has {n}" for s, n in sorted(wrong.items()))
        out: list[DrawOutcome] = [alert(
            "hole_card_count_error", "MISDEAL-16", "warning", min(wrong) if len(wrong) == 1
            else None, f"after the deal {listing} (five each)",
            "for a player who has not looked: too many go back on top of the stub, too few "
            "are the next stub cards; a player who looked with too many is out of this game, "
            "with too few plays on")]
        if len(wrong) > 2:
            out.append(alert(
                "redeal_required", "MISDEAL-16", "critical", None,
                f"{len(wrong)} players have a wrong number of cards: the game must be dealt "
                "again", "collect, shuffle, cut; the same dealer deals again; bets go back"))
        return out

    def _exposed_in_deal(self, uid: str, rec: CardRecord, seat: int | None) -> list[DrawOutcome]:
        self.exposed_in_deal.append(uid)
        out: list[DrawOutcome] = [irregularity(
            "card_exposed", "EXPOSE-06", "warning", seat, rec, None, "EXPOSED",
            f"card #{rec.index} was exposed during the deal"
            + (f" (seat {seat})" if seat else ""),
            "one exposed card: the player must keep it (EXPOSE-06)")]
        if len(self.exposed_in_deal) >= 2:
            out.append(irregularity(
                "redeal_may_be_demanded", "EXPOSE-06", "warning", seat, rec, None, "EXPOSED",
                f"{len(self.exposed_in_deal)} cards were exposed in the deal: a player who got "
                "one and has not looked at his other cards may demand a redeal",
                "on demand: collect, shuffle, cut, same dealer deals again (REDEAL); "
                "otherwise play on"))
        return out

    def _exposed_at_draw(self, uid: str, rec: CardRecord, seat: int | None) -> list[DrawOutcome]:
        first = not self.exposed_at_draw
        self.exposed_at_draw.append(uid)
        if seat is not None and uid in self.hole.get(seat, ()):
            self.hole[seat].remove(uid)  # it is replaced: the player cannot keep it
            turn = self._turn(seat)
            if turn is not None and uid in turn.received:
                turn.received.remove(uid)
                self._reopen(turn)
        where = ("show it to everyone, then put it under the stub: it is the new bottom card, "
                 "never dealt; the player gets the next card" if first
                 else "show it, then put it with the discards; the player gets the next card")
        return [irregularity("card_exposed_at_draw", "DRAW-06", "warning", seat, rec, None,
                          "EXPOSED", f"card #{rec.index} was exposed during the draw"
                          + (f" (seat {seat})" if seat else ""), where)]

    def _replacement(self, seat: int, uid: str, rec: CardRecord) -> list[DrawOutcome]:
        out: list[DrawOutcome] = []
        self.hole.setdefault(seat, []).append(uid)
        turn = self._turn(seat)
        current = self.current()
        if rec.face_up:
            return self._exposed_at_draw(uid, rec, seat)
        if turn is not None and turn is self.last_finished and seat not in self.folded \
                and not started_after(self.turns, turn):
            turn.received.append(uid)  # one too many for the player who just drew (DRAW-07)
            if "draw_count_mismatch" in turn.flagged:
                return out
            turn.flagged.add("draw_count_mismatch")
            return [*out, irregularity(
                "draw_count_mismatch", "DRAW-07", "warning", seat, rec, None, f"S{seat}",
                f"seat {seat} announced {turn.announced} and received {len(turn.received)}",
                "if he has not looked at the new cards, the extra card goes back on top of the "
                "stub; if he has, with too many cards he is out of this game")]
        if turn is None or turn.done or seat in self.folded:
            out.append(irregularity(
                "draw_order_error", "DRAW-02", "warning", seat, rec,
                f"S{current.seat}" if current else None, f"S{seat}",
                f"card #{rec.index} went to seat {seat}, which "
                + ("is not in the draw" if turn is None else "has already drawn"),
                "redress: the card goes back on top of the stub"))
            return out
        if current is not None and turn is not current:
            if current.received:  # the dealer moved on with this player short (DRAW-07)
                out += self._close_short(current)
                current = self.current()
            if current is not None and turn is not current:
                out += skipped(self.turns, turn, rec)
        if not turn.discards and (turn.announced or 0) > 0 and \
                "draw_before_discard" not in turn.flagged:
            turn.flagged.add("draw_before_discard")
            out.append(irregularity(
                "draw_before_discard", "DRAW-02", "warning", seat, rec, "MUCK", f"S{seat}",
                f"seat {seat} received a replacement before discarding",
                "the player discards first; then he gets his replacements"))
        turn.received.append(uid)
        need = max(turn.announced or 0, len(turn.discards)) - len(turn.received)
        out += self.stub.short(turn.seat, need)
        out += self._check_turn(turn)
        return out

    def _check_turn(self, turn: Exchange) -> list[DrawOutcome]:
        """The exchange is complete when the announced number is discarded and received."""
        if turn.done or turn.announced is None:
            return []
        k = turn.announced
        if len(turn.discards) > k or len(turn.received) > k:
            return list(over_count(turn, k))
        if len(turn.discards) == k and len(turn.received) == k and turn is self.current():
            return self._finish(turn)  # a later player's turn waits for the skipped one
        return []

    def _reopen(self, turn: Exchange) -> None:
        """A replacement of the player who just finished was exposed or put back: his
        exchange is not complete after all (DRAW-06, DRAW-07)."""
        if turn.done and turn is self.last_finished and not started_after(self.turns, turn) \
                and not turn.forfeited and self.phase == "draw":
            turn.done = False
            turn.reopened = True
            self.last_finished = None

    def _finish(self, turn: Exchange) -> list[DrawOutcome]:
        turn.done = True
        self.last_finished = turn
        turn.flagged.discard("skipped")
        out: list[DrawOutcome] = [Drew(turn.seat, len(turn.discards), len(turn.received),
                                       tuple(self._cards(turn.seat)), again=turn.reopened)]
        return out + self._next_turn()

    def _next_turn(self) -> list[DrawOutcome]:
        """The next player may already have everything (he drew out of turn)."""
        nxt = self.current()
        if nxt is not None and nxt.announced is not None:
            return self._check_turn(nxt)
        return self._maybe_complete()

    def _close_short(self, turn: Exchange) -> list[DrawOutcome]:
        out: list[DrawOutcome] = list(short_count(turn))
        return out + self._finish(turn)

    def _maybe_complete(self) -> list[DrawOutcome]:
        if self.phase != "draw" or any(not t.done for t in self.turns):
            return []
        self.phase = "postdraw"
        return [DrawComplete()]

    def close_draw(self) -> list[DrawOutcome]:
        """Betting started again while turns stand open: close them with what they have."""
        out: list[DrawOutcome] = []
        if self.phase != "draw":
            return out
        for t in self.turns:
            if not t.done:
                out += self._close_short(t) if (t.announced or t.discards or t.received) \
                    else self._finish(t)
        return out + self._maybe_complete()

    def _moved(self, previous: str, zone: str, uid: str, rec: CardRecord,
               fold_possible: bool) -> list[DrawOutcome]:
        src = seat_of(previous)
        dst = seat_of(zone)
        if src is not None and uid in self.hole.get(src, ()):
            self.hole[src].remove(uid)
            src_turn = self._turn(src)
            if src_turn is not None and uid in src_turn.received:
                src_turn.received.remove(uid)
        else:
            src = None
        if zone == "MUCK" and src is not None:
            return self._to_muck(src, uid, rec, fold_possible)
        if dst is not None:
            self.hole.setdefault(dst, []).append(uid)
            turn = self._turn(dst)
            if self.phase == "draw" and turn is not None and not turn.done and src is not None:
                # a redress at the draw (DRAW-08 case A): the card takes its right place
                turn.received.append(uid)
                out: list[DrawOutcome] = []
                if "skipped" in turn.flagged and len(turn.received) >= (turn.announced or 0):
                    out.append(alert(
                        "redress_completed", "DRAW-08", "info", dst,
                        f"seat {dst} has received his cards in the right order",
                        "the draw continues"))
                return out + self._check_turn(turn)
            if self.phase == "deal" or src is None:
                return []
        if zone == "BURN":
            return [irregularity("burn_unexpected", "DRAW-09", "warning", None, rec, None, "BURN",
                              f"card #{rec.index} was put in the burn; five-card draw has no "
                              "burn card", "the card goes back")]
        return []

    def _to_muck(self, seat: int, uid: str, rec: CardRecord,
                 fold_possible: bool) -> list[DrawOutcome]:
        if seat in self.folded:
            self.folded_cards.add(uid)
            return []
        if self.phase == "draw":
            turn = self._turn(seat)
            if uid in self.exposed_at_draw:
                return []
            if turn is not None and not turn.done:
                turn.discards.append(uid)
                out: list[DrawOutcome] = []
                if len(turn.discards) > MAX_DRAW and "draw_exceeds_max" not in turn.flagged:
                    turn.flagged.add("draw_exceeds_max")
                    out.append(irregularity(
                        "draw_exceeds_max", "DRAW-03", "warning", seat, rec, None, "MUCK",
                        f"seat {seat} discarded {len(turn.discards)} cards; at most "
                        f"{MAX_DRAW} may be exchanged", "the dealer deals only three; the "
                        "player plays with four unless the floor lets him take the fourth "
                        "back"))
                return out + self._check_turn(turn)
            return self._live_in_muck(seat, rec)
        if fold_possible:
            self.folded_cards.add(uid)
            return self.fold(seat)
        return self._live_in_muck(seat, rec)

    def _live_in_muck(self, seat: int, rec: CardRecord) -> list[DrawOutcome]:
        """SHOW-15: in draw a player protects his own cards; a live hand in the muck is dead."""
        out: list[DrawOutcome] = [irregularity(
            "live_hand_in_muck", "SHOW-15", "critical", seat, rec, f"S{seat}", "MUCK",
            f"a card of seat {seat}'s live hand reached the muck, and seat {seat} is not "
            "folding", "in draw the player protects his own cards: the hand is dead for this "
            "game and its chips stay in the pot (SHOW-15)")]
        self.dead.add(seat)
        return out + self.fold(seat)

    def _unscanned_pack_card(self, uid: str, rec: CardRecord) -> list[DrawOutcome]:
        """A discard came out of the shoe: the stub was reshuffled without a scan."""
        current = self.current()
        turn_of = next((t for t in self.turns if uid in t.discards), None)
        unfinished = turn_of is not None and (turn_of is current or not turn_of.done)
        return list(self.stub.unscanned(rec, unfinished, turn_of is not None,
                                        uid in self.exposed_at_draw))
