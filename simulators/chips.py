"""Physical chips: piles of tagged chips, exact amounts, change and colour-ups.

The chip reader reports UIDs, not amounts, so a bet of 150 must be chips whose registry values
add up to exactly 150. Players' stacks and the dealer's float (the spare chips used for change)
are not under any antenna; only what reaches a bet zone or the pot is seen.

Chip values in a normal set form a chain in which each value divides the next (25, 100, 500,
1000, 5000). For such sets, taking the largest chip that still fits, again and again, finds an
exact combination whenever one exists (a shortfall of small chips can always be covered by
swapping one larger chip for smaller ones), so ``take_exact`` can stay greedy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence


class ChipShortage(RuntimeError):
    """The float cannot make the change a bet or a push needs."""


def take_exact(chips: Sequence[str], values: Mapping[str, int], amount: int) -> list[str] | None:
    """Chips out of ``chips`` worth exactly ``amount``, largest first; None if greedy fails."""
    picked: list[str] = []
    left = amount
    for uid in sorted(chips, key=lambda u: -values[u]):
        if left == 0:
            break
        if values[uid] <= left:
            picked.append(uid)
            left -= values[uid]
    return picked if left == 0 else None


class ChipPile:
    """Chips in one place (a stack, the float, the pot), in the order they arrived."""

    def __init__(self, values: Mapping[str, int], uids: Iterable[str] = ()) -> None:
        self.values = values
        self.uids: list[str] = list(uids)

    @property
    def value(self) -> int:
        return sum(self.values[u] for u in self.uids)

    def __len__(self) -> int:
        return len(self.uids)

    def add(self, uids: Iterable[str]) -> None:
        self.uids.extend(uids)

    def remove(self, uids: Iterable[str]) -> None:
        for uid in uids:
            self.uids.remove(uid)

    def take_all(self) -> list[str]:
        out, self.uids = self.uids, []
        return out

    def take(self, amount: int, float_: ChipPile) -> list[str]:
        """Remove chips worth exactly ``amount``, breaking larger chips at the float if needed."""
        if amount < 0 or amount > self.value:
            raise ValueError(f"cannot take {amount} from a pile of {self.value}")
        while True:
            picked = take_exact(self.uids, self.values, amount)
            if picked is not None:
                self.remove(picked)
                return picked
            self._break_one(float_)

    def _break_one(self, float_: ChipPile) -> None:
        """Swap the smallest chip the float can change for smaller chips of the same value."""
        for value, uid in sorted(_one_of_each_value(self.uids, self.values).items()):
            smaller = [u for u in float_.uids if self.values[u] < value]
            change = take_exact(smaller, self.values, value)
            if change:
                float_.remove(change)
                float_.add([uid])
                self.remove([uid])
                self.add(change)
                return
        raise ChipShortage(f"the float cannot make change for a pile of {self.value}")

    def colour_up(self, float_: ChipPile, max_chips: int) -> bool:
        """Swap small chips for larger ones from the float until at most ``max_chips`` remain.

        Keeps a zone's inventory short enough for one TSP/1 frame, as a dealer keeps a big
        pot in big chips. Returns False when the float has no chip left to help.
        """
        while len(self.uids) > max_chips:
            for target, big in sorted(_one_of_each_value(float_.uids, self.values).items()):
                smaller = [u for u in self.uids if self.values[u] < target]
                group = take_exact(smaller, self.values, target)
                if group and len(group) > 1:
                    self.remove(group)
                    float_.add(group)
                    float_.remove([big])
                    self.add([big])
                    break
            else:
                return False
        return True

    def tidy(self, float_: ChipPile, keep: int = 4) -> None:
        """Colour up a stack that has gathered more than ``keep`` chips of one small value.

        Winners collect the small chips of every pot while the float gives its small chips
        away as change; trading them back after each hand keeps the float able to make change.
        """
        counts: dict[int, list[str]] = {}
        for uid in self.uids:
            counts.setdefault(self.values[uid], []).append(uid)
        for value in sorted(counts):
            while len(counts[value]) > keep:
                bigger = sorted(
                    (
                        u
                        for u in float_.uids
                        if self.values[u] > value
                        and self.values[u] % value == 0
                        and self.values[u] // value <= len(counts[value]) - keep // 2
                    ),
                    key=lambda u: self.values[u],
                )
                if not bigger:
                    break
                big = bigger[0]
                group = counts[value][: self.values[big] // value]
                del counts[value][: len(group)]
                self.remove(group)
                float_.add(group)
                float_.remove([big])
                self.add([big])


def _one_of_each_value(uids: Iterable[str], values: Mapping[str, int]) -> dict[int, str]:
    """Value -> the first chip of that value: chips of one value are interchangeable."""
    first: dict[int, str] = {}
    for uid in uids:
        first.setdefault(values[uid], uid)
    return first


def smallest_unit(values: Mapping[str, int]) -> int:
    """The smallest chip value: the unit every bet, blind and split share is made of."""
    if not values:
        raise ValueError("empty chip set")
    return min(values.values())


def deal_stacks(float_: ChipPile, stacks: Mapping[int, int]) -> dict[int, ChipPile]:
    """Hand out each seat's stack from the float, exactly, in as few chips as possible.

    Players buy in with big chips and the dealer changes them as the game needs (``take``);
    that way the float keeps the small chips, which is what making change depends on.
    """
    need = sum(stacks.values())
    if need > float_.value:
        raise ChipShortage(f"stacks total {need}, the chip set holds {float_.value}")
    piles: dict[int, ChipPile] = {}
    for seat, stack in sorted(stacks.items(), key=lambda kv: -kv[1]):
        chips = take_exact(float_.uids, float_.values, stack)
        if chips is None:
            raise ChipShortage(f"cannot make a stack of {stack} for seat {seat}")
        float_.remove(chips)
        piles[seat] = ChipPile(float_.values, chips)
    return dict(sorted(piles.items()))
