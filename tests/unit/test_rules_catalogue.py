"""The project's rules catalogue (tablesvc/rules/catalogue.toml) loads and is well formed, a bad
one is refused by name, and CI's check against RULES.md (``tablesvc.rules.check``) tells
agreement, differences and a missing RULES.md apart by its exit status.

Nothing here reads RULES.md: the check is tried on small texts written here. The check of the
committed catalogue against the real RULES.md is ``make check-catalogue``, CI's, not pytest's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tablesvc.rules import RULE_ID_RE, CatalogueError, Rule, load, parse
from tablesvc.rules.check import differences, from_markdown, main

RULES_MD = """\
# RULES.md

## 1. Rules

### 1.8 BET — betting

#### BET-09 Call; a call that is too small
- **Seed:** 000 §Mitgehen (Call) L89 — „…"
- **Observable:** after the action, `BET(s)` is below H while `STACK(s)` is above 0.
- **Detect:** `call_short` — warning. It must be settled before the knock (BOARD-04).
- **Remedy:** The player adds the missing amount.

#### BET-01 When a bet counts; spoken declarations are binding
- **Observable:** chips in `BET(s)`; a declaration is not observable by sensors — needs input.
- **Detect:** `bet_withdrawn` — warning. `bet_declaration_mismatch` — warning, with `bet_withdrawn`.

#### RANK-01 Card ranks
- **Detect:**

## 2. Deal sequence state machine

#### NOT-01 a heading after §1 is no rule
"""
AGREEING = """\
[BET-09]
title = "Call; a call that is too small"
observable = true
alerts = ["call_short"]

[BET-01]
title = "When a bet counts; spoken declarations are binding"
observable = false
alerts = ["bet_withdrawn", "bet_declaration_mismatch"]

[RANK-01]
title = "Card ranks"
observable = true
alerts = []
"""


def test_the_committed_catalogue_loads_with_every_rule_once_and_without_the_technical_id(
        ) -> None:
    rules = load()
    ids = [r.id for r in rules]
    assert len(ids) == len(set(ids)) >= 149
    assert all(RULE_ID_RE.match(rid) for rid in ids)
    assert "TABLE-00" not in ids  # the project's ID for technical alerts is no rule of play
    by_id = {r.id: r for r in rules}
    assert by_id["BET-09"] == Rule("BET-09", "Call; a call that is too small", True,
                                   ("call_short",))
    assert not by_id["EXPOSE-01"].observable and by_id["EXPOSE-01"].alerts == ()
    assert [r.id for r in rules[:2]] == ["SEAT-01", "SEAT-02"]  # the catalogue's own order


@pytest.mark.parametrize(("text", "said"), [
    ('[bet-09]\ntitle = "x"\nobservable = true\nalerts = []\n', "bet-09: not a rule ID"),
    ('[BET-09]\nobservable = true\nalerts = []\n', "BET-09: fields missing ['title']"),
    ('[BET-09]\ntitle = "x"\nobservable = true\nalerts = []\nseverity = "warning"\n',
     "unknown ['severity']"),
    ('[BET-09]\ntitle = " "\nobservable = true\nalerts = []\n', "BET-09: the title"),
    ('[BET-09]\ntitle = "x"\nobservable = "yes"\nalerts = []\n', "BET-09: observable"),
    ('[BET-09]\ntitle = "x"\nobservable = true\nalerts = ["Call-Short"]\n', "BET-09: alerts"),
    ('[BET-09]\ntitle = "x"\nobservable = true\nalerts = ["a_b", "a_b"]\n', "named twice"),
    ('[BET-09]\ntitle = "x"\n[BET-09]\n', "not TOML"),
])
def test_a_malformed_catalogue_is_refused_naming_the_rule(text: str, said: str) -> None:
    with pytest.raises(CatalogueError) as err:
        parse(text)
    assert said in str(err.value)


def test_rules_md_is_read_as_the_catalogue_carries_it() -> None:
    assert from_markdown(RULES_MD) == parse(AGREEING)
    assert differences(from_markdown(RULES_MD), parse(AGREEING)) == []


def test_the_differences_name_each_rule_and_field() -> None:
    ours = parse(AGREEING.replace("Card ranks", "Ranks of the cards")
                 .replace('["call_short"]', '["call_short", "call_late"]')
                 .replace("observable = false", "observable = true")
                 + '\n[BET-99]\ntitle = "Ours only"\nobservable = true\nalerts = []\n')
    source = [*from_markdown(RULES_MD), Rule("BET-98", "Theirs only", True, ())]
    assert differences(source, ours) == [
        "BET-01: observable: RULES.md false, tablesvc/rules/catalogue.toml true",
        "BET-09: alerts: RULES.md ['call_short'], tablesvc/rules/catalogue.toml "
        "['call_short', 'call_late']",
        'BET-98: in RULES.md ("Theirs only"), not in tablesvc/rules/catalogue.toml',
        'BET-99: in tablesvc/rules/catalogue.toml ("Ours only"), not in RULES.md',
        'RANK-01: title: RULES.md "Card ranks", tablesvc/rules/catalogue.toml '
        '"Ranks of the cards"',
    ]


def test_the_check_exits_0_when_they_agree_1_when_they_differ_2_without_rules_md(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules_md, ours = tmp_path / "RULES.md", tmp_path / "catalogue.toml"
    rules_md.write_text(RULES_MD, encoding="utf-8")
    ours.write_text(AGREEING, encoding="utf-8")
    assert main([str(rules_md), "--catalogue", str(ours)]) == 0
    assert "3 rules agree" in capsys.readouterr().out

    ours.write_text(AGREEING.replace("Card ranks", "Ranks"), encoding="utf-8")
    assert main([str(rules_md), "--catalogue", str(ours)]) == 1
    out = capsys.readouterr().out
    assert "differ (1)" in out and 'RANK-01: title: RULES.md "Card ranks"' in out

    assert main([str(tmp_path / "absent" / "RULES.md"), "--catalogue", str(ours)]) == 2
    assert "no RULES.md at" in capsys.readouterr().err

    rules_md.write_text("# RULES.md\n\nno rules here\n", encoding="utf-8")
    assert main([str(rules_md), "--catalogue", str(ours)]) == 2
    assert "holds no rules" in capsys.readouterr().err
