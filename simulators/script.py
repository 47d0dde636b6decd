"""A scripted hand: who sits where with what, which cards come and what everybody does.

This is the table's side of a PHH hand history (``simulators.phh`` reads and writes the files):
plain data, checked for shape here and for legality by the dealer that plays it. Players are
numbered as in PHH, p1..pN clockwise from the first seat left of the button, so pN is the
button (heads-up: p1 is the big blind, p2 the button and small blind). A script is a hand of
one of the flop games: hold'em (two hole cards) or pot-limit Omaha (four).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from simulators.betting import Limit
from simulators.decks import is_card

UNKNOWN = "??"
"""A card the script does not name: the dealer deals whatever the shuffle brings."""

ANTE_MODES = ("each", "big_blind")
HOLE_CARDS: Mapping[str, int] = {"holdem": 2, "omaha": 4}
"""The flop games a script can deal, and how many hole cards each player gets in them."""
ONLY_LIMIT: Mapping[str, Limit] = {"omaha": Limit.POT_LIMIT}
"""Games dealt in one betting structure only: Omaha is dealt pot-limit."""
BOARD_COUNTS = (3, 1, 1)
"""Cards per board deal: flop, turn, river."""


class ScriptError(ValueError):
    """The script is malformed, or asks for something the rules do not allow."""


def clockwise_from(seat: int, seats: Sequence[int]) -> list[int]:
    """``seats`` in dealing order: first the one left of ``seat``, ``seat`` itself (if in) last."""
    ordered = sorted(seats)
    return [s for s in ordered if s > seat] + [s for s in ordered if s <= seat]


@dataclass(frozen=True)
class ScriptAction:
    """One PHH action: ``actor`` 0 is the dealer, n is player pn.

    ``verb`` is ``dh`` (hole cards), ``db`` (board cards), ``cbr`` (bet or raise to
    ``amount``, the player's total for the round), ``cc`` (check or call), ``f`` (fold) or
    ``sm`` (show or muck at showdown, which the dealer needs no instruction for). ``target``
    is the player a ``dh`` deals to.
    """

    actor: int
    verb: str
    cards: tuple[str, ...] = ()
    amount: int | None = None
    target: int = 0

    def notation(self) -> str:
        cards = "".join(self.cards)
        if self.actor == 0:
            return f"d {self.verb} {cards}" if self.verb == "db" else f"d dh p{self.target} {cards}"
        text = f"p{self.actor} {self.verb}"
        if self.verb == "cbr":
            text += f" {self.amount}"
        elif self.verb == "sm" and cards:
            text += f" {cards}"
        return text


def hole_deal(player: int, cards: Sequence[str]) -> ScriptAction:
    return ScriptAction(0, "dh", tuple(cards), target=player)


def board_deal(cards: Sequence[str]) -> ScriptAction:
    return ScriptAction(0, "db", tuple(cards))


@dataclass(frozen=True)
class HandScript:
    """One hold'em or Omaha hand to deal exactly."""

    limit: Limit
    small_blind: int
    big_blind: int
    ante: int
    ante_mode: str
    seats: tuple[int, ...]
    """Table seat of p1..pN; the last one holds the button."""
    starting_stacks: tuple[int, ...]
    actions: tuple[ScriptAction, ...]
    players: tuple[str, ...] = ()
    hand: int | str | None = None
    table: str | None = None
    venue: str | None = None
    extra: Mapping[str, object] = field(default_factory=dict)
    """Other PHH fields, kept so a file read and written again loses nothing."""
    variant: str = "holdem"
    """``holdem`` or ``omaha`` (``HOLE_CARDS``)."""

    def __post_init__(self) -> None:
        problems: list[str] = []
        n = len(self.seats)
        if not 2 <= n <= 10:
            problems.append(f"{n} players; a table seats 2..10")
        if len(self.starting_stacks) != n:
            problems.append(f"{len(self.starting_stacks)} starting stacks for {n} players")
        if len(set(self.seats)) != n or any(not 1 <= s <= 10 for s in self.seats):
            problems.append(f"seats {list(self.seats)} are not distinct seats 1..10")
        elif clockwise_from(self.seats[-1], self.seats) != list(self.seats):
            problems.append(
                f"seats {list(self.seats)} are not clockwise from the left of the button "
                f"(p{n}, seat {self.seats[-1]})"
            )
        if any(s <= 0 for s in self.starting_stacks):
            problems.append("every starting stack must be positive")
        if not 0 < self.small_blind <= self.big_blind:
            problems.append(f"blinds {self.small_blind}/{self.big_blind}: need 0 < SB <= BB")
        if self.ante < 0 or self.ante_mode not in ANTE_MODES:
            problems.append(f"ante {self.ante} ({self.ante_mode}) is not valid")
        if self.players and len(self.players) != n:
            problems.append(f"{len(self.players)} player names for {n} players")
        if self.variant not in HOLE_CARDS:
            problems.append(f"variant {self.variant!r} is not one of {list(HOLE_CARDS)}")
            raise ScriptError("; ".join(problems))  # its actions cannot be read without it
        only = ONLY_LIMIT.get(self.variant)
        if only is not None and Limit(self.limit) is not only:
            problems.append(f"{self.game} is dealt {only.value} only, not {self.limit}")
        problems.extend(self._check_actions(n))
        if problems:
            raise ScriptError("; ".join(problems))

    def _check_actions(self, n: int) -> list[str]:
        problems: list[str] = []
        dealt: set[int] = set()
        boards = 0
        known: list[str] = []
        for action in self.actions:
            if action.actor == 0:
                known.extend(c for c in action.cards if c != UNKNOWN)
                if action.verb == "dh":
                    if not 1 <= action.target <= n or action.target in dealt:
                        problems.append(f"{action.notation()!r}: no such player, or dealt twice")
                    elif len(action.cards) != HOLE_CARDS[self.variant]:
                        problems.append(f"{action.notation()!r}: {self.game} deals "
                                        f"{HOLE_CARDS[self.variant]} hole cards")
                    dealt.add(action.target)
                elif action.verb == "db":
                    if boards >= len(BOARD_COUNTS) or len(action.cards) != BOARD_COUNTS[boards]:
                        problems.append(f"{action.notation()!r}: not the next board cards")
                    boards += 1
                else:
                    problems.append(f"the dealer cannot {action.verb!r}")
            elif not 1 <= action.actor <= n:
                problems.append(f"{action.notation()!r}: there is no player p{action.actor}")
            elif action.verb not in ("cbr", "cc", "f", "sm"):
                problems.append(f"{action.notation()!r}: not a {self.game} action")
            elif action.verb == "cbr" and (action.amount is None or action.amount <= 0):
                problems.append(f"{action.notation()!r}: a bet needs a positive amount")
        bad = sorted({c for c in known if not is_card(c)})
        if bad:
            problems.append(f"not cards: {bad}")
        if len(set(known)) != len(known):
            problems.append("a card is dealt twice")
        return problems

    # derived views -------------------------------------------------------------------------

    @property
    def game(self) -> str:
        """The game's name as a person writes it."""
        return "Omaha" if self.variant == "omaha" else "hold'em"

    @property
    def button(self) -> int:
        return self.seats[-1]

    @property
    def stacks(self) -> dict[int, int]:
        """Seat -> starting stack."""
        return dict(zip(self.seats, self.starting_stacks, strict=True))

    def seat_of(self, player: int) -> int:
        return self.seats[player - 1]

    def hole_cards(self) -> dict[int, tuple[str, ...]]:
        """Player number -> hole cards the script names (``??`` for unknown ones)."""
        return {a.target: a.cards for a in self.actions if a.actor == 0 and a.verb == "dh"}

    def board(self) -> list[str]:
        return [c for a in self.actions if a.actor == 0 and a.verb == "db" for c in a.cards]

    def deal_order(self) -> list[str]:
        """Cards in the order they leave the shoe, ``??`` where the script leaves it open.

        Hole cards one at a time clockwise from p1, twice in hold'em and four times in Omaha;
        then burn, flop, burn, turn, burn, river (the burns are never named by PHH).
        """
        n = len(self.seats)
        rounds = HOLE_CARDS[self.variant]
        hole = self.hole_cards()
        unknown = (UNKNOWN,) * rounds
        order = [hole.get(p, unknown)[r] for r in range(rounds) for p in range(1, n + 1)]
        board = self.board()
        board += [UNKNOWN] * (5 - len(board))
        order += [UNKNOWN, *board[:3], UNKNOWN, board[3], UNKNOWN, board[4]]
        return order
