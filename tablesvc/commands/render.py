"""One readable line per event, for the demo and ``tablesvc watch``."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from tablesvc.game_names import game_name

STYLE = {
    "hand_started": "bold cyan", "hand_ended": "bold cyan", "board": "bold green",
    "burn": "green", "card_dealt": "white", "hole_cards": "magenta", "action": "yellow",
    "alert": "bold red", "alert_detail": "red", "device_status": "blue",
    "service_started": "bold blue", "showdown": "bold yellow", "pot_awarded": "bold yellow",
    "draw": "bold green", "equity": "magenta",
}


def _seats(seats: list[dict[str, Any]]) -> str:
    return ", ".join(f"{s['seat']}:{s['name']} {s['stack']}" for s in seats)


def describe(e: dict[str, Any]) -> str:
    t = e.get("type")
    if t == "hand_started":
        return _hand_started(e)
    if t == "card_dealt":
        face = f" face UP {e['card']}" if e.get("face_up") else ""
        return f"seat {e['seat']} card {e['n']} (#{e['index']}){face}"
    if t == "hole_cards":
        return f"seat {e['seat']} holds {' '.join(e['cards'])}"
    if t == "burn":
        return f"burn before the {e['before']} (#{e['index']})"
    if t == "board":
        return f"{e['street']}: {' '.join(e['cards'])}   board {' '.join(e['board'])}"
    if t == "action":
        amount = f" {e['amount']}" if e.get("amount") else ""
        return f"seat {e['seat']} {e['action']}{amount} · stack {e['stack']} · pot {e['pot']}"
    if t == "showdown":
        if not e.get("tabled"):
            return f"{e['order']}. seat {e['seat']} mucks unseen"
        return f"{e['order']}. seat {e['seat']} shows {' '.join(e['cards'])}: {e['rank']}"
    if t == "pot_awarded":
        shares = ", ".join(f"seat {k} {v}" for k, v in e["shares"].items())
        odd = f" (odd chip to seat {e['odd_chip_seat']})" if e.get("odd_chip_seat") else ""
        how = " uncontested" if e.get("uncontested") else ""
        return f"{e['pot']} pot {e['amount']}{how} → {shares}{odd}"
    if t == "draw":
        if e["received"] == e["discarded"]:
            return f"seat {e['seat']} draws {e['received']}" if e["received"] else \
                f"seat {e['seat']} stands pat"
        return f"seat {e['seat']} discards {e['discarded']}, receives {e['received']}"
    if t == "hand_history":
        return f"PHH of the hand ({len(e['phh'].splitlines())} lines)"
    if t == "hand_ended":
        carried = f" · {e['carried_pot']} stays in the pot" if e.get("carried_pot") else ""
        return f"{e['reason']}{carried} · {_seats(e['stacks'])}"
    if t == "alert":
        seat = f" seat {e['seat']}" if e.get("seat") else ""
        return f"{e['severity'].upper()} {e['name']} [{e['rule']}]{seat}: {e['message']}"
    if t == "alert_detail":
        return f"evidence for {e['id']}: {' '.join(e.get('cards', []))} {e.get('evidence', {})}"
    if t == "device_status":
        c = e["counters"]
        return (f"{e['device']} {e['state']} {e.get('model') or ''} {e.get('firmware') or ''} "
                f"· ok {c['ok']} bad {c['bad']} lost {c['lost']}")
    if t == "service_started":
        return f"version {e['version']}, boot {e['boot']}"
    if t == "equity":
        return _equity(e)
    keys = {k: v for k, v in e.items() if k not in ("v", "venue", "table", "seq", "prev_seq",
                                                    "ts", "hand", "type")}
    return str(keys)


def _hand_started(e: dict[str, Any]) -> str:
    """The game by name ("Pot-limit Omaha"), then its forced bets: the blinds, or in a game
    without (draw: both blind seats null) the dealer and the ante."""
    game = game_name(e.get("variant"), e.get("limit"))
    named = f"{game}, " if game else ""
    if e.get("small_blind_seat") is None and e.get("big_blind_seat") is None:
        carried = f", carried pot {e['carried_pot']}" if e.get("carried_pot") else ""
        return (f"{named}dealer {e['button']}, ante {e['ante']}{carried} · "
                f"{_seats(e['seats'])}")
    return (f"{named}button {e['button']}, blinds {e['small_blind']}/{e['big_blind']} "
            f"(SB {e['small_blind_seat']}, BB {e['big_blind_seat']}) · {_seats(e['seats'])}")


def _equity(e: dict[str, Any]) -> str:
    how = {"exact": f"exact over {e['samples']:,} boards",
           "sampled": f"{e['samples']:,} boards sampled, ±{e.get('error')}"}.get(e["method"], "")
    seats = []
    for s in e["seats"]:
        if s.get("win") is None:
            seats.append(f"{s['seat']}: {s.get('hand')}")
            continue
        tie = f" (tie {s['tie']:g})" if s.get("tie") else ""
        outs = f", {len(s['outs'])} outs" if s.get("outs") is not None else ""
        seats.append(f"{s['seat']}: {s['win']:g}%{tie}{outs}")
    return f"{e['street']} · " + " · ".join(seats) + (f" ({how})" if how else "")


def render(e: dict[str, Any], secure: bool = False) -> Text:
    t = str(e.get("type", "?"))
    hand = f"h{e['hand']}" if e.get("hand") is not None else "  -"
    line = Text()
    line.append(f"{e.get('ts', '')[11:23]} ", style="dim")
    line.append(f"#{e.get('seq', 0):<5}", style="dim")
    line.append(f"{hand:>5} ", style="dim")
    # the type in a column of 15, and always a space after it: service_started fills the
    # column on its own
    line.append(f"{'[secure] ' if secure else ''}{t:<14} ", style=STYLE.get(t, "white"))
    line.append(describe(e))
    return line
