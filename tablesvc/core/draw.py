"""The card flow of one five-card-draw game (RULES.md §2.6, §2.7, DRAW rules).

Like ``HoldemHand`` it is told what the sensors saw and answers with what happened in poker
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
    deal_order,
)

# Rule ID -> the alerts this tracker raises for it (as Irregularity objects the session turns
# into alerts); docs/RULES-COVERAGE.md is generated from such declarations. A card that
# reaches no player is filed under DEAL-04 whether the game is still on or already over.
RULES: dict[str, tuple[str, ...]] = {
    "DEAL-04": ("deal_order_error", "card_after_hand_end"),
    "EXPOSE-06": ("card_exposed", "redeal_may_be_demanded"),
    "MISDEAL-16": ("hole_card_count_error", "redeal_required"),
    "DECK-06": ("deck_defective_duplicate",),
    "BURN-08": ("card_unaccounted",),
    "DRAW-02": ("draw_order_error", "draw_before_discard", "draw_declaration_mismatch",
                "premature_card"),
    "DRAW-03": ("draw_exceeds_max",),
    "DRAW-04": ("bottom_card_dealt",),
    "DRAW-05": ("reshuffle_required", "reshuffle_ineligible_card",
                "reshuffle_composition_deviation"),
    "DRAW-06": ("card_exposed_at_draw",),
    "DRAW-07": ("draw_count_mismatch",),
    "DRAW-08": ("draw_player_skipped", "draw_right_forfeited", "redress_completed"),
    "DRAW-09": ("burn_unexpected",),
    "SHOW-15": ("live_hand_in_muck",),
}

CARDS = 5
MAX_DRAW = 3  # DRAW-03
DECK_SIZE = 52


@dataclass(frozen=True, slots=True)
class Drew:
    """A player's exchange is finished (DRAW-02): counts for everyone, cards for secure."""

    seat: int
    discarded: int
    received: int
    hole: tuple[str, ...]
    again: bool = False  # the turn was reopened (a card exposed or put back): hole cards only


@dataclass(frozen=True, slots=True)
class DrawComplete:
    """Every player has exchanged: the second betting round may start (BET-22)."""


DrawOutcome = Dealt | Folded | Irregularity | CardAfterEnd | Drew | DrawComplete


@dataclass(slots=True)
class Exchange:
    """One player's turn at the draw."""

    seat: int
    announced: int | None = None
    discards: list[str] = field(default_factory=list)
    received: list[str] = field(default_factory=list)
    done: bool = False
    forfeited: bool = False
    reopened: bool = False
    flagged: set[str] = field(default_factory=set)  # alert names raised for this turn


def _seat_of(zone: str | None) -> int | None:
    if zone and zone.startswith("S") and zone[1:].isdigit():
        return int(zone[1:])
    return None


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
    in_shoe: int = DECK_SIZE  # cards still in the shoe (the stub)
    bottom: str | None = None  # the bottom card's UID when known
    pack_known: bool = True  # False after cards came back into play without a scan
    deal_errors: int = 0
    exposed_in_deal: list[str] = field(default_factory=list)
    counted: bool = False  # the deal's card counts were checked (MISDEAL-16)
    turns: list[Exchange] = field(default_factory=list)
    exposed_at_draw: list[str] = field(default_factory=list)
    last_finished: Exchange | None = None
    reshuffle_flagged: bool = False
    pack: set[str] = field(default_factory=set)  # the scanned reshuffled pack (DRAW-05)
    # every card a reshuffle put back into play in this game: a discard in there belongs to
    # no later pack (a second reshuffle takes only the discards made since the first)
    repacked: set[str] = field(default_factory=set)
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
        seat = _seat_of(rec.zone if rec else None)
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
        was_bottom = (self.bottom == uid) or (self.pack_known and self.in_shoe <= 1)
        if rec is None:
            twin = next((r for r in self.cards.values() if r.card == card), None)
            rec = self.cards[uid] = CardRecord(self.next_index, card, face_up)
            self.next_index += 1
            if twin is not None and self.voided is None:
                self.voided = "cancelled"
                out.append(self._irr(
                    "deck_defective_duplicate", "DECK-06", "critical", None, rec, None, "SHOE",
                    f"card #{rec.index} has the same face as card #{twin.index}: the deck is "
                    "defective", "the game is dealt again: every bet goes back, the deck is "
                    "replaced, the same dealer deals (DECK-06)"))
        else:
            if rec.zone == "MUCK" or uid in self.pack:
                self.pack.discard(uid)
                rec.index = self.next_index  # a card of the new pack: r1, r2, ... (§2.6)
                self.next_index += 1
            rec.zone = None
            rec.face_up = face_up
        self.in_shoe = max(0, self.in_shoe - 1)
        self.pending = uid
        if self.ended or self.voided is not None:
            return out
        if was_bottom and self.phase == "draw":
            out.append(self._irr(
                "bottom_card_dealt", "DRAW-04", "critical", None, rec, None, "SHOE",
                f"card #{rec.index} is the bottom card of the stub, which is never dealt",
                "if the player has not seen it, it goes back and the stub is reshuffled "
                "(DRAW-05); otherwise the floor decides"))
            if self.bottom == uid:
                self.bottom = None
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
        seat = _seat_of(rec.zone)
        if seat is not None and uid in self.hole.get(seat, ()):
            self.hole[seat].remove(uid)
            turn = self._turn(seat)
            if turn is not None and uid in turn.received:
                turn.received.remove(uid)
                self._reopen(turn)
        rec.zone = "DECK"
        rec.lifted_from = None
        self.in_shoe += 1
        if bottom:
            self.bottom = uid
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
            return [self._alert("draw_order_error", "DRAW-02", "warning", seat,
                                f"seat {seat} announced a draw of {count}, but {why}",
                                "settle it before the next player draws: no cards for this "
                                "announcement")]
        if count > MAX_DRAW:
            out.append(self._alert("draw_exceeds_max", "DRAW-03", "warning", seat,
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
            out.append(self._alert(
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
        seat = _seat_of(rec.zone) or self._receiver()
        if self.phase == "draw":
            return self._exposed_at_draw(uid, rec, seat)
        if self.phase == "deal":
            return self._exposed_in_deal(uid, rec, seat)
        return [self._irr("card_exposed", "EXPOSE-06", "warning", seat, rec, None, "EXPOSED",
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
        out: list[DrawOutcome] = []
        for rec in sorted(self.cards.values(), key=lambda r: r.index):
            if rec.zone in ("MUCK", "DECK"):
                continue
            where = "the shoe" if rec.zone is None else rec.zone
            out.append(self._irr(
                "card_unaccounted", "BURN-08", "critical", _seat_of(rec.zone), rec, "MUCK",
                rec.zone or "SHOE", f"card #{rec.index} was not collected; it was last read "
                f"at {where}", "stop and search for the card before the next game"))
        return out

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
        out: list[DrawOutcome] = []
        current = self.current()
        done = {t.seat for t in self.turns if t.done}
        eligible: set[str] = set()
        for t in self.turns:
            if t.seat in done and t is not current:
                eligible.update(u for u in t.discards)
        eligible.update(u for u in self.exposed_at_draw[1:]
                        if self.cards[u].zone == "MUCK")
        eligible -= self.repacked
        ineligible: list[str] = []
        folded_cards: list[str] = []
        for uid in pack:
            rec = self.cards.get(uid)
            if rec is None or uid in eligible or rec.zone == "DECK":
                continue  # the bottom card (never dealt, or put under the stub) or eligible
            if uid in self.folded_cards:
                folded_cards.append(uid)
            else:
                ineligible.append(uid)  # a live card, or a discard of a player not finished
        missing = eligible - set(pack)
        if ineligible:
            rec = self.cards[ineligible[0]]
            out.append(self._irr(
                "reshuffle_ineligible_card", "DRAW-05", "critical", None, rec, "PACK", "PACK",
                f"the reshuffled pack holds {len(ineligible)} card(s) that may not be in it: "
                "live cards, or discards of the player drawing now or of players still to draw",
                "rebuild the pack from the bottom card and the discards of the players who "
                "have finished their exchange, before dealing on"))
        if folded_cards or missing:
            rec = self.cards[(folded_cards or sorted(missing))[0]]
            out.append(self._irr(
                "reshuffle_composition_deviation", "DRAW-05", "warning", None, rec, "PACK",
                "PACK", f"the reshuffled pack holds {len(folded_cards)} folded card(s) and "
                f"misses {len(missing)} discard(s) that belong in it",
                "rebuild the pack: the bottom card and the finished players' discards only"))
        for uid in pack:
            rec = self.cards.get(uid)
            if rec is not None:
                seat = _seat_of(rec.zone)
                if seat is not None and uid in self.hole.get(seat, ()):
                    self.hole[seat].remove(uid)
                rec.zone = "DECK"  # in the shoe again; it comes out as a card of the new pack
                self.pack.add(uid)
        self.repacked.update(pack)
        self.in_shoe = len(pack)
        self.bottom = pack[-1] if pack else None
        self.pack_known = True
        self.reshuffle_flagged = False
        return out

    # --- internals -----------------------------------------------------------------
    def turn_of(self, seat: int) -> Exchange | None:
        """The seat's exchange in the draw, if it takes part."""
        return self._turn(seat)

    def _turn(self, seat: int) -> Exchange | None:
        return next((t for t in self.turns if t.seat == seat), None)

    def _receiver(self) -> int | None:
        turn = self.current()
        return turn.seat if turn is not None else None

    def _irr(self, name: str, rule: str, severity: str, seat: int | None, rec: CardRecord,
             expected: str | None, observed: str, message: str, remedy: str) -> Irregularity:
        return Irregularity(name, rule, severity, seat, rec.index, rec.card, expected, observed,
                            message, remedy)

    def _alert(self, name: str, rule: str, severity: str, seat: int | None, message: str,
               remedy: str) -> Irregularity:
        """An irregularity that no single card proves (an announcement, a count)."""
        return Irregularity(name, rule, severity, seat, 0, "", None, "CONSOLE", message, remedy)

    def _from_deck(self, zone: str, uid: str, rec: CardRecord,
                   betting_over: bool) -> list[DrawOutcome]:
        seat = _seat_of(zone)
        if zone == "BURN":
            return [self._irr("burn_unexpected", "DRAW-09", "warning", None, rec, None, "BURN",
                              f"card #{rec.index} was burned; five-card draw has no burn card",
                              "the card goes back on top of the stub")]
        if zone == "MUCK" and self.phase == "draw":
            if uid in self.exposed_at_draw:
                return []
            if rec.face_up:
                return self._exposed_at_draw(uid, rec, self._receiver())
        if seat is None:
            return [self._irr("card_after_hand_end" if self.over else "deal_order_error",
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
            return [self._irr(
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
            out.append(self._irr(
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
        out: list[DrawOutcome] = [self._alert(
            "hole_card_count_error", "MISDEAL-16", "warning", min(wrong) if len(wrong) == 1
            else None, f"after the deal {listing} (five each)",
            "for a player who has not looked: too many go back on top of the stub, too few "
            "are the next stub cards; a player who looked with too many is out of this game, "
            "with too few plays on")]
        if len(wrong) > 2:
            out.append(self._alert(
                "redeal_required", "MISDEAL-16", "critical", None,
                f"{len(wrong)} players have a wrong number of cards: the game must be dealt "
                "again", "collect, shuffle, cut; the same dealer deals again; bets go back"))
        return out

    def _exposed_in_deal(self, uid: str, rec: CardRecord, seat: int | None) -> list[DrawOutcome]:
        self.exposed_in_deal.append(uid)
        out: list[DrawOutcome] = [self._irr(
            "card_exposed", "EXPOSE-06", "warning", seat, rec, None, "EXPOSED",
            f"card #{rec.index} was exposed during the deal"
            + (f" (seat {seat})" if seat else ""),
            "one exposed card: the player must keep it (EXPOSE-06)")]
        if len(self.exposed_in_deal) >= 2:
            out.append(self._irr(
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
        return [self._irr("card_exposed_at_draw", "DRAW-06", "warning", seat, rec, None,
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
                and not self._started_after(turn):
            turn.received.append(uid)  # one too many for the player who just drew (DRAW-07)
            if "draw_count_mismatch" in turn.flagged:
                return out
            turn.flagged.add("draw_count_mismatch")
            return [*out, self._irr(
                "draw_count_mismatch", "DRAW-07", "warning", seat, rec, None, f"S{seat}",
                f"seat {seat} announced {turn.announced} and received {len(turn.received)}",
                "if he has not looked at the new cards, the extra card goes back on top of the "
                "stub; if he has, with too many cards he is out of this game")]
        if turn is None or turn.done or seat in self.folded:
            out.append(self._irr(
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
                out += self._skipped(current, turn, rec)
        if not turn.discards and (turn.announced or 0) > 0 and \
                "draw_before_discard" not in turn.flagged:
            turn.flagged.add("draw_before_discard")
            out.append(self._irr(
                "draw_before_discard", "DRAW-02", "warning", seat, rec, "MUCK", f"S{seat}",
                f"seat {seat} received a replacement before discarding",
                "the player discards first; then he gets his replacements"))
        turn.received.append(uid)
        out += self._stub_check(turn)
        out += self._check_turn(turn)
        return out

    def _skipped(self, current: Exchange, turn: Exchange, rec: CardRecord) -> list[DrawOutcome]:
        """DRAW-08: a later player gets cards while an earlier one has not drawn."""
        out: list[DrawOutcome] = []
        for t in self.turns:
            if t is turn:
                break
            if not t.done and "skipped" not in t.flagged:
                t.flagged.add("skipped")
                out.append(self._irr(
                    "draw_player_skipped", "DRAW-08", "warning", t.seat, rec, f"S{t.seat}",
                    f"S{turn.seat}", f"card #{rec.index} went to seat {turn.seat}, but seat "
                    f"{t.seat} has not drawn yet", f"if seat {turn.seat} has not looked at his "
                    f"new cards, they go to seat {t.seat} in order; if he has (CARDS_VIEWED), "
                    f"seat {t.seat} loses his exchange and keeps his cards"))
        return out

    def _stub_check(self, turn: Exchange) -> list[DrawOutcome]:
        """DRAW-05: only the bottom card left and this player still needs cards."""
        need = max(turn.announced or 0, len(turn.discards)) - len(turn.received)
        if need > 0 and self.pack_known and self.in_shoe <= 1 and not self.reshuffle_flagged:
            self.reshuffle_flagged = True
            return [self._alert(
                "reshuffle_required", "DRAW-05", "info", turn.seat,
                f"only the bottom card is left in the stub and seat {turn.seat} needs {need} "
                "more", "shuffle the bottom card with the discards of the players who have "
                f"finished their exchange (not seat {turn.seat}'s own), cut, and deal on")]
        return []

    def _check_turn(self, turn: Exchange) -> list[DrawOutcome]:
        """The exchange is complete when the announced number is discarded and received."""
        if turn.done or turn.announced is None:
            return []
        k = turn.announced
        if len(turn.discards) > k or len(turn.received) > k:
            name = "draw_count_mismatch" if len(turn.received) > k else "draw_declaration_mismatch"
            over = name == "draw_declaration_mismatch" and "draw_exceeds_max" in turn.flagged
            if name not in turn.flagged and not over:  # over the limit: DRAW-03 said it
                turn.flagged.add(name)
                got = len(turn.received) if name == "draw_count_mismatch" else len(turn.discards)
                what = "received" if name == "draw_count_mismatch" else "discarded"
                return [self._alert(
                    name, "DRAW-07" if name == "draw_count_mismatch" else "DRAW-02", "warning",
                    turn.seat, f"seat {turn.seat} announced {k} and has {what} {got}",
                    "if he has not looked at the new cards, an extra card goes back on top of "
                    "the stub; if he has, with too many cards he is out of this game"
                    if name == "draw_count_mismatch" else
                    "settle the count before the next player draws")]
            return []
        if len(turn.discards) == k and len(turn.received) == k and turn is self.current():
            return self._finish(turn)  # a later player's turn waits for the skipped one
        return []

    def _reopen(self, turn: Exchange) -> None:
        """A replacement of the player who just finished was exposed or put back: his
        exchange is not complete after all (DRAW-06, DRAW-07)."""
        if turn.done and turn is self.last_finished and not self._started_after(turn) \
                and not turn.forfeited and self.phase == "draw":
            turn.done = False
            turn.reopened = True
            self.last_finished = None

    def _started_after(self, turn: Exchange) -> bool:
        """Has any player after ``turn`` begun his exchange?"""
        later = self.turns[self.turns.index(turn) + 1:]
        return any(t.announced is not None or t.discards or t.received for t in later)

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
        out: list[DrawOutcome] = []
        k = turn.announced if turn.announced is not None else len(turn.discards)
        if len(turn.received) != k and "draw_count_mismatch" not in turn.flagged:
            out.append(self._alert(
                "draw_count_mismatch", "DRAW-07", "warning", turn.seat,
                f"seat {turn.seat} announced {k} and received {len(turn.received)}",
                "if he has not looked, he gets the missing card now (the next stub card); if he "
                "has, he plays on short"))
        if len(turn.discards) != k and not turn.flagged & {"draw_declaration_mismatch",
                                                            "draw_exceeds_max"}:
            out.append(self._alert(
                "draw_declaration_mismatch", "DRAW-02", "warning", turn.seat,
                f"seat {turn.seat} announced {k} and discarded {len(turn.discards)}",
                "settle the count before the next player draws"))
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
        src = _seat_of(previous)
        dst = _seat_of(zone)
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
                    out.append(self._alert(
                        "redress_completed", "DRAW-08", "info", dst,
                        f"seat {dst} has received his cards in the right order",
                        "the draw continues"))
                return out + self._check_turn(turn)
            if self.phase == "deal" or src is None:
                return []
        if zone == "BURN":
            return [self._irr("burn_unexpected", "DRAW-09", "warning", None, rec, None, "BURN",
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
                    out.append(self._irr(
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
        out: list[DrawOutcome] = [self._irr(
            "live_hand_in_muck", "SHOW-15", "critical", seat, rec, f"S{seat}", "MUCK",
            f"a card of seat {seat}'s live hand reached the muck, and seat {seat} is not "
            "folding", "in draw the player protects his own cards: the hand is dead for this "
            "game and its chips stay in the pot (SHOW-15)")]
        self.dead.add(seat)
        return out + self.fold(seat)

    def _unscanned_pack_card(self, uid: str, rec: CardRecord) -> list[DrawOutcome]:
        """A discard came out of the shoe: the stub was reshuffled without a scan."""
        out: list[DrawOutcome] = []
        current = self.current()
        turn_of = next((t for t in self.turns if uid in t.discards), None)
        if turn_of is not None and (turn_of is current or not turn_of.done):
            out.append(self._irr(
                "reshuffle_ineligible_card", "DRAW-05", "critical", None, rec, "PACK", "SHOE",
                f"card #{rec.index}, a discard of a player who has not finished his exchange, "
                "came out of the reshuffled pack", "rebuild the pack from the bottom card and "
                "the finished players' discards before dealing on"))
        elif turn_of is None and rec.index and uid not in self.exposed_at_draw:
            out.append(self._irr(
                "reshuffle_composition_deviation", "DRAW-05", "warning", None, rec, "PACK",
                "SHOE", f"card #{rec.index}, a folded hand's card, came out of the reshuffled "
                "pack", "folded hands stay out of the pack"))
        self.pack_known = False
        return out
