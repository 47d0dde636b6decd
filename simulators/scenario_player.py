"""Playing a test scenario (``simulators.scenario``) on the virtual devices.

The scenario's physical actions, in order, with real tags: its own shoe, card positions and
chip piles, so that the frames on the wire are what the antennas and the chip reader would
report. Nothing here judges the hand.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Mapping
from typing import Any

from simulators.chips import ChipPile, deal_stacks, take_exact
from simulators.decks import is_card
from simulators.device import VirtualDevice
from simulators.felt import MAX_ZONE_CHIPS, Pacer
from simulators.scenario import (
    INDEX_RE,
    PACK_RE,
    Scenario,
    ScenarioError,
    Step,
    enrolled_uid,
)
from simulators.table import VirtualTable

__all__ = ["ScenarioPlayer", "play_scenario"]


class ScenarioPlayer:
    """Does a scenario's steps with real tags: its own shoe, card positions and chip piles.

    Card positions are kept here rather than on the table's felt because a scenario moves
    cards in ways a careful dealer never does (a card held in the hand, a card back into the
    shoe). Stacks are made from ``chips`` (the table's chip set), so every inventory the chip
    reader reports adds up exactly. Where the scenario's stacks lie in stack zones, each stack
    is a chip zone like the others (``P<seat>``): told when the scenario begins, on every
    change (the zone chips leave first) and in the refresh.
    """

    def __init__(
        self,
        devices: Mapping[str, VirtualDevice],
        deck: Mapping[str, str],
        chips: Mapping[str, int],
        scenario: Scenario,
        *,
        pace: float = 0.0,
        stop: threading.Event | None = None,
    ) -> None:
        missing = {"cards", "chips", "console"} - set(devices)
        if missing:
            raise ValueError(f"a scenario needs the devices {sorted(missing)}")
        self.scenario = scenario
        self._shoe_dev = devices.get("shoe")
        self._cards = devices["cards"]
        self._chips = devices["chips"]
        self._console = devices["console"]
        self._pacer = Pacer(pace, stop)
        self._lock = threading.RLock()
        self._deck = dict(deck)
        self._uid_of = {card: uid for uid, card in deck.items()}
        self._values = dict(chips)
        self._float = ChipPile(self._values, self._values)
        self.stacks = deal_stacks(self._float, scenario.setup.seats)
        self._zones: dict[str, ChipPile] = {}
        self._zoned = scenario.setup.stack_zones
        if self._zoned:
            for seat, stack in self.stacks.items():
                self._zones[f"P{seat}"] = stack  # the same pile: a stack is its zone
        self._gone = ChipPile(self._values)
        """Chips taken off the table (``stack_take``)."""
        self._rng = random.Random(scenario.setup.seed)
        self._tags: dict[str, str] = {}
        self._where: dict[str, str | None] = {}
        self._drawn: list[str] = []
        self._shoe: list[str] = []
        self._pack: list[str] = []
        """The last reshuffled pack, top first: what ``rK`` names."""
        self._fresh: set[str] = set()
        """Cards of that pack not dealt from it yet: each gets a new index when it is."""
        self._hands = 0
        self.step: Step | None = None

    # helpers ---------------------------------------------------------------------------------

    def _fail(self, problem: str) -> ScenarioError:
        step = self.step
        at = f"step {step.number} ({step.kind})" if step is not None else "setup"
        return ScenarioError(f"{self.scenario.source}: {at}: {problem}")

    def _uid(self, ref: str, ahead: bool = False) -> str:
        """The tag ``ref`` names; ``ahead``: ``#k`` may name a card still in the shoe."""
        m = INDEX_RE.match(ref)
        if m:
            k = int(m.group(1))
            out = len(self._drawn)
            if ahead and out < k <= out + len(self._shoe):
                return self._shoe[k - out - 1]
            if k > out:
                raise self._fail(f"card {ref}: only {out} cards are out")
            return self._drawn[k - 1]
        m = PACK_RE.match(ref)
        if m:
            k = int(m.group(1))
            if k > len(self._pack):
                raise self._fail(f"card {ref}: the last reshuffled pack holds "
                                 f"{len(self._pack)} cards")
            return self._pack[k - 1]
        if ref in self._uid_of:
            return self._uid_of[ref]
        if ref in self._tags:
            return self._tags[ref]
        raise self._fail(f"no card {ref!r} in the deck in play")

    def _shuffle(self) -> None:
        order = list(self.scenario.setup.deck) if self._hands == 0 else []
        rest = [c for c in self._uid_of if c not in set(order)]
        self._rng.shuffle(rest)
        self._shoe = [self._uid_of[c] for c in order + rest]
        self._drawn = []
        self._pack = []
        self._fresh = set()
        self._hands += 1

    def _note_drawn(self, uid: str) -> None:
        """Number a card leaving the shoe: a card put back keeps its index (RULES.md §2.1), a
        card of a reshuffled pack is counted anew."""
        if uid in self._fresh:
            self._fresh.discard(uid)
            self._drawn.append(uid)
        elif uid not in self._drawn:
            self._drawn.append(uid)

    def _arr(self, zone: str, uid: str) -> None:
        self._cards.send("ARR", zone, uid)
        self._where[uid] = zone

    def _dep(self, uid: str) -> None:
        zone = self._where.get(uid)
        if zone is not None:
            self._cards.send("DEP", zone, uid)
        self._where[uid] = None

    def _draw(self, uid: str, face: str) -> None:
        if uid in self._where:
            raise self._fail(f"card {self._deck.get(uid, uid)} is not in the shoe")
        if uid in self._shoe:
            self._shoe.remove(uid)
        if self._shoe_dev is not None:
            self._shoe_dev.send("DRAW", uid, face)
        self._note_drawn(uid)

    def _set_chips(self, zone: str, pile: ChipPile) -> None:
        if not pile.colour_up(self._float, MAX_ZONE_CHIPS):
            raise self._fail(f"cannot keep {zone} within {MAX_ZONE_CHIPS} chips")
        self._zones[zone] = pile
        self._chips.send("CHIPS", zone, " ".join(pile.uids))

    def _zone(self, zone: str) -> ChipPile:
        return self._zones.setdefault(zone, ChipPile(self._values))

    def refresh_chips(self) -> None:
        """Repeat every inventory, as a chip reader does at least every 2 s."""
        with self._lock:
            for zone, pile in self._zones.items():
                self._chips.send("CHIPS", zone, " ".join(pile.uids))

    # the steps -------------------------------------------------------------------------------

    def _show_stack(self, seat: int) -> None:
        """The seat's stack changed: its zone reports it, where the stacks lie in zones."""
        if self._zoned:
            self._set_chips(f"P{seat}", self.stacks[seat])

    def play(self) -> None:
        if self._zoned:
            with self._lock:
                for seat in sorted(self.stacks):
                    self._show_stack(seat)
        for step in self.scenario.steps:
            self.step = step
            self._pacer.step()
            with self._lock:
                getattr(self, f"_do_{step.kind}")(step.args)
        self.step = None

    def _do_newhand(self, args: Any) -> None:
        stray = {self._deck.get(u, u): z for u, z in self._where.items() if z != "MUCK"}
        if stray:
            raise self._fail(f"cards not collected before the shuffle: {stray}")
        self._where.clear()
        self._shuffle()
        self._console.send("BTN", "NEWHAND")

    def _do_deal(self, args: dict[str, Any]) -> None:
        for turn in range(args["rounds"]):
            for i, zone in enumerate(args["to"]):
                if turn or i:
                    self._pacer.step()  # one card at a time
                if not self._shoe and "card" not in args:
                    raise self._fail("the shoe is empty (press NEWHAND first)")
                uid = self._uid(args["card"]) if "card" in args else self._shoe[0]
                self._draw(uid, args["face"])
                self._arr(zone, uid)

    def _do_antes(self, args: dict[int, int] | None) -> None:
        """Antes straight into the pot, on top of whatever lies there: one inventory."""
        setup = self.scenario.setup
        antes = args if args is not None else dict.fromkeys(setup.seats, setup.ante)
        pot = self._zone("POT")
        for seat, amount in antes.items():
            stack = self.stacks[seat]
            if amount > stack.value:
                raise self._fail(f"seat {seat} has {stack.value}, cannot ante {amount}")
            pot.add(stack.take(amount, self._float))
        for seat, amount in antes.items():
            if amount:
                self._show_stack(seat)
        self._set_chips("POT", pot)

    def _do_reshuffle(self, args: dict[str, list[str]]) -> None:
        """The named cards and what is left in the shoe become the new pack (DRAW-05)."""
        taken = [self._uid(ref) for ref in args["cards"]]
        order = [self._uid(ref, ahead=True) for ref in args.get("order", [])]
        for ref, uid in zip(args["cards"], taken, strict=True):
            if self._where.get(uid) is None:
                raise self._fail(f"card {ref} is not on the table")
        for uid in taken:
            self._dep(uid)
            del self._where[uid]
        pack = taken + self._shoe
        if order:
            if sorted(order) != sorted(pack):
                names = [self._deck.get(u, u) for u in pack]
                raise self._fail(f"order must list exactly the cards of the pack: {names}")
            pack = order
        else:
            self._rng.shuffle(pack)
        self._shoe = list(pack)
        self._pack = list(pack)
        self._fresh = set(pack)
        if self._shoe_dev is not None:
            self._shoe_dev.send("DECK", " ".join(pack))

    def _do_lose(self, args: dict[str, Any]) -> None:
        uid = self._uid(args["card"])
        if uid not in self._where:
            raise self._fail(f"card {args['card']} is not on the table")
        self._dep(uid)
        del self._where[uid]  # gone: no antenna will read it again

    def _do_scan(self, args: dict[str, Any]) -> None:
        if self._shoe_dev is None:
            raise self._fail("a deck scan needs the shoe")
        gone = {self._uid(c) for c in args["without"]}
        self._shoe_dev.send("DECK", " ".join(u for u in self._deck if u not in gone))

    def _do_stray_chip(self, args: dict[str, Any]) -> None:
        zone = args["zone"]
        stray = "FFFFFFFD00000001"  # a chip no registry knows
        self._chips.send("CHIPS", zone, " ".join([*self._zone(zone).uids, stray]))

    def _do_unknown_tag(self, args: dict[str, Any]) -> None:
        name = args["name"]
        enrolled = sorted(self.scenario.setup.enrolled)
        if name in enrolled:
            self._tags[name] = enrolled_uid(enrolled.index(name) + 1)
        if name not in self._tags:
            n = len(self._tags) + 1
            uid = f"FFFFFFFF{n:08X}"
            while uid in self._deck or uid in self._values:
                n += 1
                uid = f"FFFFFFFF{n:08X}"
            self._tags[name] = uid
        uid = self._tags[name]
        if self._shoe_dev is not None:
            self._shoe_dev.send("DRAW", uid, "D")
        self._note_drawn(uid)
        self._arr(args["to"], uid)

    def _do_arrive(self, args: dict[str, Any]) -> None:
        uid = self._uid(args["card"])
        if uid in self._shoe:  # no shoe read: the first ARR is the card's exit
            self._shoe.remove(uid)
            self._note_drawn(uid)
        self._arr(args["zone"], uid)

    def _do_depart(self, args: dict[str, Any]) -> None:
        uid = self._uid(args["card"])
        if self._where.get(uid) != args["zone"]:
            raise self._fail(f"card {args['card']} is not in {args['zone']}")
        self._dep(uid)

    def _do_move(self, args: dict[str, Any]) -> None:
        for ref in args["cards"]:
            uid = self._uid(ref)
            if uid not in self._where:
                raise self._fail(f"card {ref} is not on the table")
            if self._where.get(uid) != args["to"]:
                self._dep(uid)
                self._arr(args["to"], uid)

    def _do_return(self, args: dict[str, Any]) -> None:
        uid = self._uid(args["card"])
        if uid not in self._where:
            raise self._fail(f"card {args['card']} is not on the table")
        self._dep(uid)
        del self._where[uid]
        if self._shoe_dev is not None:
            self._shoe_dev.send("RET", uid, args["where"])
        if args["where"] == "T":
            self._shoe.insert(0, uid)
        else:
            self._shoe.append(uid)

    def _do_fold(self, seat: int) -> None:
        held = [u for u, z in self._where.items() if z == f"S{seat}"]
        if not held:
            raise self._fail(f"seat {seat} has no cards to fold")
        if self.scenario.setup.variant == "draw5":
            self._console.send("BTN", "FOLD", str(seat))  # the dealer confirms it
        for uid in held:
            self._dep(uid)
            self._arr("MUCK", uid)

    def _do_collect(self, args: Any) -> None:
        zones = [f"S{s}" for s in sorted(self.scenario.setup.seats)] + ["BOARD", "BURN"]
        for zone in zones:
            for uid in [u for u, z in self._where.items() if z == zone]:
                self._dep(uid)
                self._arr("MUCK", uid)
        lost = [self._deck.get(u, u) for u, z in self._where.items() if z is None]
        if lost:
            raise self._fail(f"cards still in the dealer's hand: {lost}")

    def _do_check(self, seat: int) -> None:
        self._console.send("BTN", "CHECK", str(seat))

    def _do_console(self, args: list[str]) -> None:
        name, *rest = args
        fields = [self._uid(a)
                  if is_card(a) or INDEX_RE.match(a) or PACK_RE.match(a) or a in self._tags
                  else a
                  for a in rest]
        self._console.send("BTN", name, *fields)

    def _do_bet(self, args: dict[str, int]) -> None:
        seat, to = args["seat"], args["to"]
        zone = f"B{seat}"
        pile = self._zone(zone)
        stack = self.stacks[seat]
        have = pile.value
        if to > have:
            if to - have > stack.value:
                raise self._fail(f"seat {seat} has {stack.value}, cannot bet {to - have} more")
            pile.add(stack.take(to - have, self._float))
            self._show_stack(seat)  # the chips leave the stack, then reach the bet zone
            self._set_chips(zone, pile)
        elif to < have:
            stack.add(pile.take(have - to, self._float))
            self._set_chips(zone, pile)
            self._show_stack(seat)

    def _do_gather(self, args: Any) -> None:
        zones = [z for z, p in self._zones.items() if z.startswith("B") and p.uids]
        if not zones:
            return
        pot = self._zone("POT")
        for zone in sorted(zones, key=lambda z: int(z[1:])):
            pot.add(self._zones[zone].take_all())
            self._set_chips(zone, self._zones[zone])
        self._set_chips("POT", pot)

    def _do_push(self, args: dict[int, int] | None) -> None:
        if args is None:
            shares: dict[int, int] = {}
            for _, split in self.scenario.expect.outcome.awards or ():
                for seat, amount in split.items():
                    shares[seat] = shares.get(seat, 0) + amount
        else:
            shares = dict(args)
        pot = self._zone("POT")
        if sum(shares.values()) > pot.value:
            raise self._fail(f"pushes of {sum(shares.values())} but the pot holds {pot.value}")
        if args is None and shares and pot.value > sum(shares.values()):
            # what the awards leave in the pot is a bet nobody called: it goes back with the
            # push, to the seat that won (in an uncontested hand, its owner)
            first = next(iter(shares))
            shares[first] += pot.value - sum(shares.values())
        for seat, amount in shares.items():
            if seat not in self.stacks:
                raise self._fail(f"seat {seat} is empty")
            self.stacks[seat].add(pot.take(amount, self._float))
            self._set_chips("POT", pot)
            self._show_stack(seat)

    def _stack(self, seat: int) -> ChipPile:
        if seat not in self.stacks:
            raise self._fail(f"seat {seat} has no stack")
        return self.stacks[seat]

    def _give(self, seat: int, amount: int) -> list[str]:
        stack = self._stack(seat)
        if amount > stack.value:
            raise self._fail(f"seat {seat} has {stack.value}, cannot give {amount}")
        return stack.take(amount, self._float)

    def _do_stack_take(self, args: dict[str, int]) -> None:
        self._gone.add(self._give(args["seat"], args["amount"]))
        self._show_stack(args["seat"])

    def _do_stack_add(self, args: dict[str, int]) -> None:
        stack = self._stack(args["seat"])
        chips = take_exact(self._float.uids, self._values, args["amount"])
        if chips is None:
            raise self._fail(f"the chip set has no chips left to make {args['amount']}")
        self._float.remove(chips)
        stack.add(chips)
        self._show_stack(args["seat"])

    def _do_stack_transfer(self, args: dict[str, int]) -> None:
        recipient = self._stack(args["to"])
        recipient.add(self._give(args["from"], args["amount"]))
        self._show_stack(args["from"])  # they leave the one before they reach the other
        self._show_stack(args["to"])


def play_scenario(
    target: VirtualTable | Mapping[str, VirtualDevice],
    scenario: Scenario,
    *,
    deck: Mapping[str, str] | None = None,
    chips: Mapping[str, int] | None = None,
    pace: float = 0.0,
    stop: threading.Event | None = None,
) -> dict[int, int]:
    """Do the scenario's steps on a virtual table's devices (or on ``devices`` with the given
    ``deck`` and ``chips`` registries); returns the stacks the players hold afterwards.

    Raises ``ScenarioError`` naming the file and the step when a step cannot be done (a card
    that is not where the step says, a bet larger than the stack...).
    """
    if isinstance(target, VirtualTable):
        devices: Mapping[str, VirtualDevice] = target.felt.devices
        deck = target.deck if deck is None else deck
        chips = target.chip_values if chips is None else chips
    else:
        devices = target
    if deck is None or chips is None:
        raise ValueError("playing on bare devices needs the deck and chips registries")
    player = ScenarioPlayer(devices, deck, chips, scenario, pace=pace, stop=stop)
    player.play()
    return {s: p.value for s, p in sorted(player.stacks.items())}

