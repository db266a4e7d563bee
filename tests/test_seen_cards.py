"""Cards a seat sees and others do not (issue #35 points 1-2): a zone whose owner looks at its
face-down cards (`owner_looks`), what a kind prints on a card's face (`text`) and on its back
(`back`)."""

from __future__ import annotations

import pytest

from nemesis_rules import load_ruleset
from nemesis_rules.dsl.diagnostics import RulesError


# ---- bad declarations: a clear error naming the kind and the field
@pytest.mark.parametrize(("field", "value", "says"), [
    ("back", "no_such_prop", "prints undeclared prop `no_such_prop` on its back"),
    ("text", "no_such_field", "prints undeclared script field `no_such_field` on its face"),
])
def test_a_back_or_text_naming_nothing_is_refused(tmp_path, field, value, says):
    mod = tmp_path / "printed"
    mod.mkdir()
    (mod / "module.yaml").write_text("id: printed\nname: Printed\nversion: 0.1.0\nentry: main\n")
    (mod / "cards.yaml").write_text(
        "kinds:\n"
        f"  card: {{props: {{colour: symbol}}, scripts: {{effect: [who]}}, {field}: {value}}}\n"
        "zones:\n  deck: {visibility: hidden}\n"
        "symbols: [red]\n"
        "components:\n  - {id: gem, kind: card, zone: deck, props: {colour: red}}\n")
    (mod / "main.nem").write_text("proc main():\n    let x = 1\n")
    with pytest.raises(RulesError, match="E306") as err:
        load_ruleset(mod)
    assert says in str(err.value)
