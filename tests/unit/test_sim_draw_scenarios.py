"""Draw scenario steps do on the wire exactly what the scenario format promises.

The reshuffle (DRAW-05) is the step with the most to get right: the named discards leave the
muck, the shoe's remainder joins them, the shoe reports the pack top first, later deals come
from it, and the cards of the pack are numbered on from the cards already out.
"""

from __future__ import annotations

import pytest

from drivers.tsp import decode
from simulators.scenario import (
    SCENARIO_DIR,
    ScenarioError,
    load_scenario,
    loads_scenario,
)
from simulators.scenario_player import play_scenario
from simulators.virtual import recorded_table

Frames = list[tuple[str, tuple[str, ...]]]

# three players; the deck is fixed for the first 15 cards and the draw
HEAD = """id: DX
setup:
  variant: draw5
  seats: {1: 1000, 2: 1000, 3: 1000}
  button: 3
  ante: 25
  deck: [Ah, Kh, Qh, Ad, Kd, Qd, Ac, Kc, Qc, As, Ks, Qs, 2h, 2d, 2c, 3h, 3d, 3c]
steps:
  - newhand
  - antes
  - deal: {to: [S1, S2, S3], rounds: 5}
"""


def play(text: str, seed: int = 1) -> tuple[Frames, dict[str, str], dict[int, int]]:
    sc = loads_scenario(text, "x.yaml")
    table, recorded = recorded_table(sc.setup.seats, seed=seed, hello=False,
                                     variant=sc.setup.variant, ante=sc.setup.ante)
    stacks = play_scenario(table, sc)
    frames = []
    for _, raw in recorded:
        f = decode(raw.decode().rstrip("\r\n"))
        if f.type != "HB":
            fields = tuple(table.deck.get(x, x) for x in f.fields)
            if f.type == "DECK":
                fields = tuple(" ".join(table.deck[u] for u in f.fields[0].split()).split())
            if f.type == "CHIPS":
                values = table.chip_values
                fields = (f.fields[0], str(sum(values[u] for u in f.fields[1].split())))
            frames.append((f.type, fields))
    return frames, table.deck, stacks


def test_antes_go_into_the_pot_in_one_inventory_and_the_deal_goes_round_five_times() -> None:
    frames, _, stacks = play(HEAD)
    assert frames[:2] == [("BTN", ("NEWHAND",)), ("CHIPS", ("POT", "75"))]
    arrivals = [f[0] for t, f in frames if t == "ARR"]
    assert arrivals == ["S1", "S2", "S3"] * 5
    draws = [f[0] for t, f in frames if t == "DRAW"]
    assert draws[:6] == ["Ah", "Kh", "Qh", "Ad", "Kd", "Qd"]
    assert stacks == {1: 975, 2: 975, 3: 975}


def test_a_draw_fold_is_confirmed_at_the_console_before_the_cards_go_to_the_muck() -> None:
    frames, _, _ = play(HEAD + "  - fold: 2\n")
    tail = frames[-11:]
    assert tail[0] == ("BTN", ("FOLD", "2"))
    assert [(t, f[0]) for t, f in tail[1:]] == [("DEP", "S2"), ("ARR", "MUCK")] * 5


RESHUFFLE = HEAD + """  - console: [DRAW, 1, 2]
  - move: {cards: ["#1", "#4"], to: MUCK}
  - deal: {to: S1, rounds: 2}
  - reshuffle: {cards: ["#1", "#4"]}
  - deal: {to: S2}
  - console: [EXPOSED, r2]
  - move: {cards: ["#18"], to: MUCK}
"""


def test_a_reshuffle_takes_the_discards_from_the_muck_adds_the_shoe_and_reports_the_pack() -> None:
    frames, _, _ = play(RESHUFFLE)
    at = frames.index(("BTN", ("DRAW", "1", "2")))
    after = frames[at + 1:]
    assert after[:6] == [("DEP", ("S1", "Ah")), ("ARR", ("MUCK", "Ah")),
                         ("DEP", ("S1", "Ad")), ("ARR", ("MUCK", "Ad")),
                         ("DRAW", ("3h", "D")), ("ARR", ("S1", "3h"))]
    deck = next(i for i, (t, _) in enumerate(frames) if t == "DECK")
    assert frames[deck - 2:deck] == [("DEP", ("MUCK", "Ah")), ("DEP", ("MUCK", "Ad"))]
    pack = list(frames[deck][1])
    # the two discards and the 35 cards still in the shoe, shuffled with the scenario seed
    assert len(pack) == 37 and {"Ah", "Ad"} <= set(pack) and "3d" not in pack
    # the next deal is the pack's top card, #18 is the first card of the pack dealt, and r2
    # names the pack's second card
    assert frames[deck + 1:deck + 3] == [("DRAW", (pack[0], "D")), ("ARR", ("S2", pack[0]))]
    assert frames[deck + 3] == ("BTN", ("EXPOSED", pack[1]))
    assert frames[deck + 4:] == [("DEP", ("S2", pack[0])), ("ARR", ("MUCK", pack[0]))]


def test_the_same_seed_shuffles_the_same_pack_and_order_fixes_it() -> None:
    def pack(text: str) -> list[str]:
        frames, _, _ = play(text)
        return list(next(f for t, f in frames if t == "DECK"))

    assert pack(RESHUFFLE) == pack(RESHUFFLE)
    assert pack(RESHUFFLE) != pack(RESHUFFLE.replace("ante: 25", "ante: 25\n  seed: 7"))
    short = RESHUFFLE.replace('cards: ["#1", "#4"]}\n  - deal: {to: S2}',
                              'cards: ["#1", "#4"], order: ["#1", "#4", "#18"]}\n'
                              '  - deal: {to: S2}')
    with pytest.raises(ScenarioError, match="order must list exactly the cards of the pack"):
        play(short)


def test_a_pack_in_a_fixed_order_is_dealt_in_that_order() -> None:
    """With 16 cards out, the shoe's remainder is one card: the reshuffled pack is known."""
    text = HEAD.replace("seats: {1: 1000, 2: 1000, 3: 1000}",
                        "seats: {1: 1000, 2: 1000, 3: 1000, 4: 1000, 5: 1000, 6: 1000, "
                        "7: 1000, 8: 1000, 9: 1000, 10: 1000}").replace("button: 3", "button: 10")
    text = text.replace("deal: {to: [S1, S2, S3], rounds: 5}",
                        "deal: {to: [S1, S2, S3, S4, S5, S6, S7, S8, S9, S10], rounds: 5}")
    text += """  - console: [DRAW, 1, 1]
  - move: {cards: ["#1"], to: MUCK}
  - deal: {to: S1}
  - console: [DRAW, 2, 1]
  - move: {cards: ["#2"], to: MUCK}
  - reshuffle: {cards: ["#1"], order: ["#52", "#1"]}
  - deal: {to: S2}
  - console: [EXPOSED, "#52"]
"""
    frames, _, _ = play(text)
    pack = next(f for t, f in frames if t == "DECK")
    assert pack == (pack[0], "Ah") and pack[0] != "Ah"  # the bottom card #52, then Ah
    assert frames[-3:] == [("DRAW", (pack[0], "D")), ("ARR", ("S2", pack[0])),
                           ("BTN", ("EXPOSED", pack[0]))]


@pytest.mark.parametrize(("text", "problem"), [
    (HEAD.replace("variant: draw5", "variant: holdem") + "  - reshuffle: {cards: []}\n",
     r"step 4 \(reshuffle\): a reshuffle of the stub belongs to five-card draw"),
    (HEAD.replace("ante: 25", "ante: 0"), r"step 2 \(antes\): a bare 'antes' needs setup.ante"),
    (HEAD.replace("variant: draw5", "variant: stud"), "variant must be one of"),
    (HEAD + "  - reshuffle: {cards: ['#1', '#1']}\n", "cards names a card twice"),
    (HEAD + "  - deal: {to: [S1, S2], card: Ah}\n", "a named card goes to one zone, once"),
    (HEAD + "  - deal: {to: S1, rounds: 0}\n", "rounds must be a positive number"),
])
def test_a_malformed_draw_step_is_refused_naming_the_step(text: str, problem: str) -> None:
    with pytest.raises(ScenarioError, match=problem):
        loads_scenario(text, "x.yaml")


def test_a_reshuffle_of_a_card_in_a_players_hand_is_played_and_one_not_on_the_table_refused(
) -> None:
    live = HEAD + "  - reshuffle: {cards: ['#2']}\n"
    frames, _, _ = play(live)  # a live card may be injected: the service must object
    assert ("DEP", ("S2", "Kh")) in frames
    with pytest.raises(ScenarioError, match=r"step 4 \(reshuffle\): card r1: .*holds 0"):
        play(HEAD + "  - reshuffle: {cards: [r1]}\n")


def test_t23_counts_the_pack_on_from_52_and_deals_six_of_its_ten_cards() -> None:
    sc = load_scenario(SCENARIO_DIR / "t23_draw_reshuffle.yaml")
    table, recorded = recorded_table(sc.setup.seats, seed=1, hello=False, variant="draw5",
                                     ante=sc.setup.ante)
    play_scenario(table, sc)
    frames = [decode(raw.decode().rstrip("\r\n")) for _, raw in recorded]
    pack = next(f.fields[0].split(" ") for f in frames if f.type == "DECK")
    draws = [f.fields[0] for f in frames if f.type == "DRAW"]
    assert len(pack) == 10 and len(draws) == 51 + 6
    assert draws[51:] == pack[:6]  # r1..r6; r7..r10 stay in the shoe
    assert pack[-1] not in draws[51:]
