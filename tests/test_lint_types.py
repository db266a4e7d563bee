"""Issue #38 "Why": each mistake a modder made on purpose is a lint error at the modder's own file
and line. Each test copies tests/fixtures/mod_example (three cards over base) and makes one
mistake; prop types, symbol sets, `holds:`/`where:` and counters' bounds are declared in the
shipped modules (docs/language.md, "Prop types")."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # until pyproject sets pytest's `pythonpath = ["."]`
    sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402

from nemesis_rules.dsl.diagnostics import Diagnostic  # noqa: E402
from nemesis_rules.dsl.proptypes import Names, parse_type, value_problem, widen  # noqa: E402
from nemesis_rules.lint import runner  # noqa: E402

MOD = ROOT / "tests" / "fixtures" / "mod_example"
NEW_PROC = "\nproc mistake(who, i):\n    {}\n"


def lint_with(tmp_path: Path, file: str, before: str, after: str) -> tuple[Path, list[Diagnostic]]:
    """Lint a copy of the example mod with `before` replaced by `after` in `file` (appended when
    `before` is empty); the findings in the mod's own files."""
    folder = tmp_path / "mod_example"
    shutil.copytree(MOD, folder)
    path = folder / file
    text = path.read_text(encoding="utf-8")
    assert before in text
    path.write_text(text.replace(before, after, 1) if before else text + after, encoding="utf-8")
    found, _ = runner.lint_paths([folder])
    return path, [d for d in found if d.span.file.startswith(str(folder)) and d.is_error]


def line_of(path: Path, snippet: str) -> int:
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if snippet in line)


def only(found: list[Diagnostic]) -> Diagnostic:
    assert len(found) == 1, [f"{d.code} {d.span.line}: {d.message}" for d in found]
    return found[0]


def test_the_example_mod_is_clean(tmp_path):
    _, found = lint_with(tmp_path, "cards.yaml", "", "")
    assert found == []


@pytest.mark.parametrize(("before", "after", "wrong", "right"), [
    ("movers: [creeper, adult]", "movers: [adult, breder]", "breder", "breeder"),
    ("combat: out_of_combat", "combat: out_of_combt", "out_of_combt", "out_of_combat"),
], ids=["list-item", "symbol-set"])
def test_a_misspelt_symbol_in_a_cards_props(tmp_path, before, after, wrong, right):
    path, found = lint_with(tmp_path, "cards.yaml", before, after)
    d = only(found)
    assert (d.code, d.span.file, d.span.line) == ("E310", str(path), line_of(path, after))
    assert f"`{wrong}`" in d.message and d.help == f"did you mean `{right}`?"


def test_a_number_assigned_to_a_true_false_prop(tmp_path):
    path, found = lint_with(tmp_path, "rules.nem", "", NEW_PROC.format("who.slime = 1"))
    d = only(found)
    assert (d.code, d.span.file, d.span.line) == ("E403", str(path), line_of(path, "who.slime = 1"))
    assert "should be bool" in d.message


def test_a_misspelt_symbol_assigned_in_a_script(tmp_path):
    path, found = lint_with(tmp_path, "rules.nem", "", NEW_PROC.format("weakness_fear_of_fire.object_type = intruder_eg"))
    assert [d.code for d in found] == ["E300"]  # an undeclared name is unknown anywhere; a declared one:
    path, found = lint_with(tmp_path / "2", "rules.nem", "", NEW_PROC.format("weakness_fear_of_fire.object_type = red"))
    d = only(found)
    assert (d.code, d.span.line) == ("E310", line_of(path, "= red"))
    assert "heavy_object_type" in d.message


@pytest.mark.parametrize(("statement", "help_"), [
    ('intruder_enters(i, "generator")', "write the id without quotes: `generator`"),
    ('reveal("weakness_fear_of_fir")', "did you mean `weakness_fear_of_fire`?"),
    ('who.corpse = "generator"', "write the name without quotes: `generator`"),
], ids=["to-a-procedure", "to-a-primitive", "to-a-prop"])
def test_a_room_id_passed_as_a_string(tmp_path, statement, help_):
    path, found = lint_with(tmp_path, "rules.nem", "", NEW_PROC.format(statement))
    d = only(found)
    assert (d.code, d.span.file, d.span.line) == ("E404", str(path), line_of(path, statement))
    assert d.help == help_


def test_a_counter_set_beyond_its_declared_maximum(tmp_path):
    path, found = lint_with(tmp_path, "rules.nem", "", NEW_PROC.format("time = 16"))
    d = only(found)
    assert (d.code, d.span.line) == ("E807", line_of(path, "time = 16"))
    assert "0..15" in d.message
    assert lint_with(tmp_path / "2", "rules.nem", "", NEW_PROC.format("time = 15"))[1] == []


def test_an_item_whose_colour_does_not_match_its_deck(tmp_path):
    path, found = lint_with(tmp_path, "cards.yaml", "props: {colour: red,", "props: {colour: yellow,")
    d = only(found)
    assert (d.code, d.span.file, d.span.line) == ("E510", str(path), line_of(path, "colour: yellow"))
    assert "item_deck_red" in d.message


def test_a_weakness_card_placed_in_the_event_deck(tmp_path):
    path, found = lint_with(tmp_path, "cards.yaml", "zone: weakness_deck", "zone: event_deck  # the mistake")
    d = only(found)
    assert (d.code, d.span.file, d.span.line) == ("E510", str(path), line_of(path, "the mistake"))
    assert "weakness_card" in d.message and "event_card" in d.message


def test_an_empty_counters_section_is_one_error_at_its_line(tmp_path):
    path, found = lint_with(tmp_path, "cards.yaml", "", "counters:\n")
    d = only(found)
    assert (d.code, d.span.line) == ("E202", line_of(path, "counters:"))
    assert "empty" in d.message


def test_the_did_you_mean_for_purged_is_not_red(tmp_path):
    _, found = lint_with(tmp_path, "rules.nem", "", NEW_PROC.format("let x = purged"))
    d = only(found)
    assert d.code == "E300" and "red" not in d.help


# ---- declaring types ----


def toy(tmp_path: Path, kinds: str, more: str = "", main: str = "pass") -> list[Diagnostic]:
    folder = tmp_path / "toy"
    folder.mkdir(parents=True)
    (folder / "module.yaml").write_text("id: toy\nname: Toy\nversion: 0.1.0\nentry: main\n")
    (folder / "rules.nem").write_text(f"proc main():\n    {main}\n")
    (folder / "data.yaml").write_text("symbols: [gem, stone, rock]\n" + kinds)
    if more:
        (folder / "more.yaml").write_text(more)
    return [d for d in runner.lint_paths([folder])[0] if d.is_error]


def test_a_type_naming_an_unknown_type_or_symbol(tmp_path):
    found = toy(tmp_path, "kinds:\n  card:\n    props: {a: lsit of int, b: gem | stnoe}\n")
    assert [(d.code, d.span.line) for d in found] == [("E202", 4), ("E310", 4)]
    assert "did you mean `list`?" in found[0].message or "list of" in found[0].message
    assert found[1].help == "did you mean `stone`?"


def test_a_named_type_widened_by_a_later_declaration(tmp_path):
    kinds = ("types:\n  ore: gem | stone\nkinds:\n  card:\n    props: {ores: list of ore}\n"
             "components:\n  - {id: c1, kind: card, props: {ores: [gem, rock]}}\n")
    assert [d.code for d in toy(tmp_path, kinds)] == ["E310"]
    assert toy(tmp_path / "2", kinds, more="types:\n  ore: rock | gem\n") == []
    assert toy(tmp_path / "3", kinds, more="types:\n  ore: rock\n") == []  # one symbol more (neosoma's twitchling)
    assert "E500" in [d.code for d in toy(tmp_path / "4", kinds, more="types:\n  ore: int\n")]


def test_an_extension_adds_symbols_to_a_props_set(tmp_path):
    kinds = "kinds:\n  card: {props: {suit: gem | stone}}\ncomponents:\n  - {id: c1, kind: card, props: {suit: rock}}\n"
    assert [d.code for d in toy(tmp_path, kinds)] == ["E310"]
    more = "kinds:\n  card: {extend: true, props: {suit: rock | gem}}\n"
    assert toy(tmp_path / "2", kinds, more=more) == []
    clash = "kinds:\n  card: {extend: true, props: {suit: int}}\n"
    assert "E500" in [d.code for d in toy(tmp_path / "3", kinds, more=clash)]


def test_a_kind_typed_prop_wants_a_component_of_that_kind(tmp_path):
    kinds = ("kinds:\n  card: {props: {home: room}}\n  room: {}\n  token: {}\n"
             "components:\n  - {id: hall, kind: room}\n  - {id: coin, kind: token}\n"
             "  - {id: c1, kind: card, props: {home: coin}}\n  - {id: c2, kind: card, props: {home: hal}}\n")
    found = toy(tmp_path, kinds)
    assert [(d.code, d.span.line) for d in found] == [("E403", 9), ("E303", 10)]
    assert found[1].help == "did you mean `hall`?"


def test_a_prop_name_typed_differently_by_two_kinds_accepts_what_fits_either(tmp_path):
    kinds = ("kinds:\n  card: {props: {label: str}}\n  token: {props: {label: gem | stone}}\n"
             "components:\n  - {id: c1, kind: card}\n")
    assert toy(tmp_path, kinds, main='c1.label = "hello"') == []  # a text fits card's label
    assert [d.code for d in toy(tmp_path / "2", kinds, main="c1.label = 3")] == ["E403"]  # fits neither


def test_value_problem_and_widen():
    names = Names({"gem", "stone"}, {"gem", "stone"}, {"c": "card"})
    t, problem = parse_type("list of gem | stone", ())
    assert problem is None and value_problem(t, ("gem", "stone"), names) is None
    assert value_problem(t, ("gem", "stoen"), names).help == "did you mean `stone`?"
    assert value_problem(parse_type("bool", ())[0], 1, names).code == "E202"
    assert value_problem(parse_type("card", ("card",))[0], None, names) is None  # none fits every type
    assert widen(parse_type("a | b", ())[0], parse_type("b | c", ())[0]).members == ("a", "b", "c")
    assert widen(parse_type("int", ())[0], parse_type("a | b", ())[0]) is None


def test_a_scenario_position_checks_a_props_symbol_set(tmp_path):
    """A scenario's `position:` sets props through the same types: a symbol outside the set is refused."""
    from nemesis_rules.scenario import run_file

    toy_mod = tmp_path / "toy"
    shutil.copytree(ROOT / "tests" / "fixtures" / "toy", toy_mod)
    components = toy_mod / "components.yaml"
    components.write_text(components.read_text(encoding="utf-8").replace(
        "suit: symbol", "suit: attack | boost | shield"), encoding="utf-8")
    path = tmp_path / "s.yaml"
    head = f"modules: [{toy_mod.as_posix()}]\nplayers: 2\nseed: 1\n"
    path.write_text(head + "position:\n  props: {sprint#1: {suit: gem}}\nexpect: [{over: false}]\n", encoding="utf-8")
    report = run_file(path)
    assert report.status == "ERROR" and "prop `suit` of sprint#1 is attack | boost | shield, got gem" in report.error
    path.write_text(head + "position:\n  props: {sprint#1: {suit: shield}}\nexpect: [{over: false}]\n", encoding="utf-8")
    assert run_file(path).status == "PASS"
