"""What the floor does about each betting violation: the remedy an alert carries."""

from __future__ import annotations

REMEDIES = {
    "raise_below_minimum": "if a raise was declared or the chips reach half the raise, the "
    "player completes the minimum raise; otherwise it is a call and the excess goes back",
    "call_short": "the player adds the missing amount from his stack",
    "action_out_of_turn": "the skipped player acts; bets made out of turn stay, later bets are "
    "adjusted to his action",
    "reraise_not_allowed": "the raise is not allowed: the player calls (excess returned) or folds",
    "reraise_after_incomplete_allin": "the player may only call the all-in or fold; chips "
    "beyond the call go back to him",
    "bet_exceeds_limit": "the excess above the limit goes back to the player",
    "illegal_check": "tell the player the amount to call: he calls, raises or folds",
    "bet_withdrawn": "the chips go back into the bet zone; floor decides",
}
