"""The rule IDs of the rules catalogue, tablesvc/rules/catalogue.toml. Generated; do not edit.

Regenerate with ``python docs/rule_ids.py > tablesvc/core/rule_ids.py``;
tests/unit/test_rule_ids.py fails when the catalogue has moved past this file.
"""

RULE_IDS: frozenset[str] = frozenset({
    "BET-01", "BET-02", "BET-03", "BET-04", "BET-05", "BET-06", "BET-07", "BET-08", "BET-09",
    "BET-10", "BET-11", "BET-12", "BET-13", "BET-14", "BET-15", "BET-16", "BET-17", "BET-18",
    "BET-19", "BET-20", "BET-21", "BET-22", "BET-23", "BET-24", "BET-25", "BET-26", "BOARD-01",
    "BOARD-02", "BOARD-03", "BOARD-04", "BOARD-05", "BOARD-06", "BURN-01", "BURN-02", "BURN-03",
    "BURN-04", "BURN-05", "BURN-06", "BURN-07", "BURN-08", "CONDUCT-01", "CONDUCT-02",
    "CONDUCT-03", "DEAL-01", "DEAL-02", "DEAL-03", "DEAL-04", "DEAL-05", "DEAL-06", "DEAL-07",
    "DEAL-08", "DECK-01", "DECK-02", "DECK-03", "DECK-04", "DECK-05", "DECK-06", "DECK-07",
    "DRAW-01", "DRAW-02", "DRAW-03", "DRAW-04", "DRAW-05", "DRAW-06", "DRAW-07", "DRAW-08",
    "DRAW-09", "DRAW-10", "EXPOSE-01", "EXPOSE-02", "EXPOSE-03", "EXPOSE-04", "EXPOSE-05",
    "EXPOSE-06", "MISDEAL-01", "MISDEAL-02", "MISDEAL-03", "MISDEAL-04", "MISDEAL-05",
    "MISDEAL-06", "MISDEAL-07", "MISDEAL-08", "MISDEAL-09", "MISDEAL-10", "MISDEAL-11",
    "MISDEAL-12", "MISDEAL-13", "MISDEAL-14", "MISDEAL-15", "MISDEAL-16", "POT-01", "POT-02",
    "POT-03", "POT-04", "POT-05", "POT-06", "POT-07", "POT-08", "POT-09", "POT-10", "RANK-01",
    "RANK-02", "RANK-03", "RANK-04", "RANK-05", "RANK-06", "RANK-07", "RANK-08", "RANK-09",
    "RANK-10", "RANK-11", "RANK-12", "RANK-13", "RANK-14", "SEAT-01", "SEAT-02", "SEAT-03",
    "SEAT-04", "SEAT-05", "SEAT-06", "SEAT-07", "SEAT-08", "SEAT-09", "SEAT-10", "SHOW-01",
    "SHOW-02", "SHOW-03", "SHOW-04", "SHOW-05", "SHOW-06", "SHOW-07", "SHOW-08", "SHOW-09",
    "SHOW-10", "SHOW-11", "SHOW-12", "SHOW-13", "SHOW-14", "SHOW-15", "TABLE-01", "TABLE-02",
    "TABLE-03", "TABLE-04", "TABLE-05", "TABLE-06", "TABLE-07", "TABLE-08", "TABLE-09", "TABLE-10",
})
