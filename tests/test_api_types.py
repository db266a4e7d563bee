"""Every public API call given a wrong-typed argument raises the project's RulesError, never a
bare Python exception (issue #39 point 7)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from nemesis_rules import Game, RulesError, load_ruleset

TOY = Path(__file__).parent / "fixtures" / "toy"
RULES = load_ruleset(TOY)
SAVE = Game.new(RULES, players=2, seed=1).to_json()

wrong = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.floats(), st.text(max_size=5),
                  st.binary(max_size=5), st.lists(st.integers(), max_size=2),
                  st.dictionaries(st.text(max_size=2), st.integers(), max_size=2), st.just(object()))

CALLS = {
    "load_ruleset": lambda w: load_ruleset(w),
    "load_ruleset(lang)": lambda w: load_ruleset(TOY, lang=w),
    "Game.new(rules)": lambda w: Game.new(w),
    "Game.new(players)": lambda w: Game.new(RULES, players=w),
    "Game.new(seed)": lambda w: Game.new(RULES, seed=w),
    "Game.new(option)": lambda w: Game.new(RULES, zzz=w),
    "Game.new(after)": lambda w: Game.new(RULES, after=w),
    "Game.from_json(rules)": lambda w: Game.from_json(w, SAVE),
    "Game.from_json(text)": lambda w: Game.from_json(RULES, w),
    "Game.from_json(verify)": lambda w: Game.from_json(RULES, SAVE, verify=w),
    "Game.apply": lambda w: Game.new(RULES, players=2).apply(w),
    "Game.apply_chance": lambda w: Game.new(RULES, players=2).apply_chance(w),
    "Game.force": lambda w: Game.new(RULES, players=2).force(w),
    "Game.view(player)": lambda w: Game.new(RULES, players=2).view(w),
    "Game.view(log_from)": lambda w: Game.new(RULES, players=2).view(0, log_from=w),
    "Decision.value_of": lambda w: Game.new(RULES, players=2).decision.value_of(w),
    "Ruleset.label": lambda w: RULES.label(w),
    "Ruleset.message(key)": lambda w: RULES.message(w),
    "Ruleset.message(args)": lambda w: RULES.message("x", w),
}


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(CALLS)), value=wrong)
def test_wrong_types_raise_the_projects_error(name: str, value) -> None:
    try:
        CALLS[name](value)
    except RulesError as err:  # a plain word on the wrong argument, not a bug report
        assert "internal error" not in str(err), err


def test_load_ruleset_takes_one_list_of_modules_and_names_a_wrong_one() -> None:
    assert load_ruleset([TOY]).fingerprint == RULES.fingerprint
    for wrong in ([TOY, 3], [[TOY]], (None,)):
        try:
            load_ruleset(wrong)
        except RulesError as err:
            assert "internal error" not in str(err) and "takes module ids or folders" in str(err), err
        else:
            raise AssertionError(f"load_ruleset({wrong!r}) loaded")
    for lang in (3, None, ["en"]):
        try:
            load_ruleset(TOY, lang=lang)
        except RulesError as err:
            assert "internal error" not in str(err) and "lang must be" in str(err), err
        else:
            raise AssertionError(f"load_ruleset(lang={lang!r}) loaded")
