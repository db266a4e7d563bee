"""Loading modules: bad files give diagnostics only; layering rules; the engine knows no game."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nemesis_rules import RulesError, load_ruleset
from nemesis_rules.ruleset.check_api import check_paths
from nemesis_rules.ruleset.compose import version_in_range
from tests.conftest import TOY

ROOT = Path(__file__).resolve().parent.parent
GAME_NOUNS = re.compile(
    r"\b(intruders?|larvae?|slime|noise|corridors?|wounds?|nest|eggs?|hibernat\w*|contaminat\w*)\b", re.I)
ENGINE_TEXT_FILES = (".py", ".js", ".css", ".html", ".yaml", ".j2", ".lark")


def test_the_engine_names_no_game_noun() -> None:
    """In the Python and in every file the package ships beside it (the page's script and styles,
    the phrase tables, the templates)."""
    hits = [f"{p}:{n}" for p in (ROOT / "nemesis_rules").rglob("*") if p.suffix in ENGINE_TEXT_FILES
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if GAME_NOUNS.search(line)]
    assert hits == []


def test_dsl_reference_is_generated_from_the_registry() -> None:
    done = subprocess.run([sys.executable, "tools/gen_dsl_reference.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})  # this checkout's registry
    assert done.returncode == 0, done.stderr


def _copy_toy(tmp_path: Path) -> Path:
    folder = tmp_path / "toy"
    shutil.copytree(TOY, folder)
    return folder


def _codes(folder: Path) -> list[tuple[str, str, int]]:
    diagnostics, _ = check_paths([folder])
    return [(d.code, Path(d.span.file).name, d.span.line) for d in diagnostics if d.is_error]


def test_toy_module_checks_clean() -> None:
    assert _codes(TOY) == []


@pytest.mark.parametrize("old, new, code", [
    ("    who.energy -= cost", "    who.enrgy -= cost", "E306"),
    ("    let face = roll(d6)", "    let face = roll(d7)", "E300"),
    ("        round()", "        rounds()", "E301"),
    ("    emit stumbled(who)", "    emit stumbled(who, who)", "E400"),
    ("    let face = roll(d6)", "    let face = roll(6)", "E401"),
])
def test_script_mistakes_are_found_at_their_line(tmp_path: Path, old: str, new: str, code: str) -> None:
    folder = _copy_toy(tmp_path)
    path = folder / "rules.nem"
    text = path.read_text()
    line = text[: text.index(old)].count("\n") + 1
    path.write_text(text.replace(old, new, 1))
    assert _codes(folder) == [(code, "rules.nem", line)]


@pytest.mark.parametrize("old, new, code", [
    ("    count: 4\n    zone: deck\n    props: {value: 3", "    count: four\n    zone: deck\n    props: {value: 3",
     "E202"),
    ("    kind: card\n    count: 3\n    zone: deck\n    props: {value: 0, suit: boost}",
     "    kind: cart\n    count: 3\n    zone: deck\n    props: {value: 0, suit: boost}", "E304"),
    ("  deck: {visibility: hidden, size: 14}", "  deck: {visibility: hidden, size: 15}", "E501"),
    ("      who.pos += this.value", "      who.pos += this.valeu", "E306"),
    ("  - id: gem\n", "  - id: gem\n    colour: red\n", "E200"),
])
def test_data_mistakes_are_found(tmp_path: Path, old: str, new: str, code: str) -> None:
    folder = _copy_toy(tmp_path)
    path = folder / "components.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    assert code in [c for c, _, _ in _codes(folder)]


def test_missing_translation_falls_back_and_is_reported(tmp_path: Path) -> None:
    folder = _copy_toy(tmp_path)
    pl = folder / "i18n" / "pl.yaml"
    pl.write_text(pl.read_text().replace("  shove: Pchnięcie\n", ""))
    diagnostics, _ = check_paths([folder])
    assert any(d.code == "W600" and "names.shove" in d.message for d in diagnostics)
    rules = load_ruleset(folder, lang="pl")
    assert rules.label("shove") == "Shove" and rules.label("shield") == "Tarcza"


def _mod_on_toy(tmp_path: Path, manifest_extra: str = "", catalogs: dict[str, str] | None = None) -> Path:
    """A module `gems` on top of the toy (which ships en, pl, ru): one card, named in `catalogs`."""
    _copy_toy(tmp_path)
    folder = tmp_path / "gems"
    (folder / "i18n").mkdir(parents=True)
    (folder / "module.yaml").write_text("id: gems\nname: Gems\nversion: 0.1.0\nrequires: [toy]\n" + manifest_extra)
    (folder / "cards.yaml").write_text("components:\n  - id: ruby\n    kind: card\n    zone: discard\n"
                                       "    props: {value: 1, suit: boost}\n    effect: |\n      who.pos += 1\n")
    for lang, text in (catalogs if catalogs is not None else {"en": "names:\n  ruby: Ruby\n"}).items():
        (folder / "i18n" / f"{lang}.yaml").write_text(text)
    return folder


def _w600(folder: Path) -> list[str]:
    return sorted(d.message for d in check_paths([folder])[0] if d.code == "W600")


def test_a_module_without_languages_is_asked_for_every_language_loaded(tmp_path: Path) -> None:
    assert _w600(_mod_on_toy(tmp_path)) == ["`names.ruby` has no pl translation (English is used)",
                                            "`names.ruby` has no ru translation (English is used)"]


def test_a_one_language_module_gets_no_missing_translation_flood(tmp_path: Path) -> None:
    assert _w600(_mod_on_toy(tmp_path, "languages: [en]\n")) == []


def test_a_missing_name_in_a_shipped_language_is_still_reported(tmp_path: Path) -> None:
    en = "names:\n  ruby: Ruby\nmessages:\n  shine: Shine\n"
    folder = _mod_on_toy(tmp_path, "languages: [en, pl]\n", {"en": en, "pl": "names:\n  ruby: Rubin\n"})
    (folder / "rules.nem").write_text("after check_goal():\n    log(\"shine\")\n")
    assert _w600(folder) == ["`messages.shine` has no pl translation (English is used)"]
    rules = load_ruleset(folder, lang="pl")
    assert rules.label("ruby") == "Rubin" and rules.message("shine") == "Shine"


def test_a_shipped_language_needs_its_catalog(tmp_path: Path) -> None:
    folder = _mod_on_toy(tmp_path, "languages: [en, ru]\n")
    [d] = [d for d in check_paths([folder])[0] if d.code == "W600"]
    assert "has no i18n/ru.yaml" in d.message and (d.span.file.endswith("module.yaml"), d.span.line) == (True, 5)


def test_every_component_is_named_in_english(tmp_path: Path) -> None:
    folder = _mod_on_toy(tmp_path, "languages: [en]\n", {"en": "names: {}\n"})
    [d] = [d for d in check_paths([folder])[0] if d.code == "W600"]
    assert "component `ruby` has no name in en" in d.message
    assert d.span.file.endswith("cards.yaml") and d.span.line == 2


def test_placeholders_must_agree_between_languages(tmp_path: Path) -> None:
    folder = _copy_toy(tmp_path)
    pl = folder / "i18n" / "pl.yaml"
    pl.write_text(pl.read_text().replace('"{who} idzie o {by}"', '"{kto} idzie"'))
    assert "E602" in [c for c, _, _ in _codes(folder)]


def _write_module(root: Path, name: str, requires: list[str], script: str = "", extra: str = "") -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "module.yaml").write_text(
        f"id: {name}\nname: {name}\nversion: 0.1.0\nrequires: {requires}\n{extra}")
    (folder / "rules.nem").write_text(script)
    return folder


def test_layering_errors(tmp_path: Path) -> None:
    _write_module(tmp_path, "core", [], "proc main():\n    step_a()\n\nproc step_a():\n    pass\n",
                  "players: {min: 1, max: 2}\nentry: main\n")
    _write_module(tmp_path, "left", ["core"], "replace proc step_a():\n    pass\n")
    _write_module(tmp_path, "right", ["core"], "replace proc step_a():\n    pass\n")
    _write_module(tmp_path, "later", ["left"], "replace proc step_a():\n    pass\n")
    with pytest.raises(RulesError) as err:
        load_ruleset(tmp_path / "left", tmp_path / "right")
    assert [d.code for d in err.value.diagnostics] == ["E702"]
    load_ruleset(tmp_path / "later")  # `later` requires `left`: it wins, no conflict
    _write_module(tmp_path, "loop_a", ["loop_b"])
    _write_module(tmp_path, "loop_b", ["loop_a"])
    with pytest.raises(RulesError) as err:
        load_ruleset(tmp_path / "loop_a")
    assert "E701" in [d.code for d in err.value.diagnostics]
    _write_module(tmp_path, "lonely", ["nowhere"])
    with pytest.raises(RulesError) as err:
        load_ruleset(tmp_path / "lonely")
    assert "E700" in [d.code for d in err.value.diagnostics]
    _write_module(tmp_path, "clash", ["core"], extra="conflicts: [left]\n")
    with pytest.raises(RulesError) as err:
        load_ruleset(tmp_path / "clash", tmp_path / "left")
    assert "E704" in [d.code for d in err.value.diagnostics]


def test_an_adapter_part_loads_only_with_its_game(tmp_path: Path) -> None:
    """`adapters: {game: part}`: a module written for two games loads the part of the game loaded."""
    root = "players: {min: 1, max: 2}\nentry: main\n"
    _write_module(tmp_path, "shared", [])
    _write_module(tmp_path, "game_a", ["shared"], "proc main():\n    pass\n", root)
    _write_module(tmp_path, "game_b", ["shared"], "proc main():\n    pass\n", root + "conflicts: [game_a]\n")
    _write_module(tmp_path, "addon", ["shared"], extra="adapters: {game_a: addon_a, game_b: addon_b}\n")
    _write_module(tmp_path, "addon_a", ["game_a", "addon"])
    _write_module(tmp_path, "addon_b", ["game_b", "addon"])
    ids = [m.id for m in load_ruleset(tmp_path / "game_a", tmp_path / "addon").composition.modules]
    assert ids[-1] == "addon_a" and "addon_b" not in ids and "game_b" not in ids
    ids = [m.id for m in load_ruleset(tmp_path / "game_b", tmp_path / "addon").composition.modules]
    assert ids[-1] == "addon_b" and "addon_a" not in ids
    assert "addon_a" not in [m.id for m in load_ruleset(tmp_path / "game_a").composition.modules]


def test_engine_version_ranges() -> None:
    assert version_in_range("0.1.0", ">=0.1,<1")
    assert not version_in_range("1.2.0", ">=0.1,<1")
    assert not version_in_range("0.1.0", "nonsense")


CONTENT = st.one_of(st.binary(max_size=400), st.text(max_size=400).map(lambda t: t.encode("utf-8")),
                    st.sampled_from([b"\xef\xbb\xbfid: x\n", b"id: x\r\nname: y\r\n", b"\tkinds: 1\n",
                                     b"components:\n" + b"  - " * 200 + b"x\n", b"[" * 500, b"{a: !!python/object x}"]))


@given(module=CONTENT, components=CONTENT, script=CONTENT, catalog=CONTENT)
def test_any_bytes_in_any_file_give_diagnostics_only(tmp_path_factory, module, components, script, catalog) -> None:
    folder = tmp_path_factory.mktemp("fuzz") / "m"
    (folder / "i18n").mkdir(parents=True)
    (folder / "module.yaml").write_bytes(module)
    (folder / "components.yaml").write_bytes(components)
    (folder / "rules.nem").write_bytes(script)
    (folder / "i18n" / "en.yaml").write_bytes(catalog)
    diagnostics, _ = check_paths([folder])
    assert all(d.code[0] in "EW" and d.span.line >= 1 for d in diagnostics)
    with pytest.raises(RulesError):
        load_ruleset(folder)


def test_a_kind_is_extended_from_another_module(tmp_path: Path) -> None:
    _write_module(tmp_path, "core", [], "proc main():\n    end_game(done, [])\n",
                  "players: {min: 1, max: 2}\nentry: main\n")
    (tmp_path / "core" / "data.yaml").write_text("symbols: [done]\nkinds:\n  card: {props: {value: int}}\n"
                                                 "components:\n  - {id: ace, kind: card, props: {value: 1}}\n")
    _write_module(tmp_path, "more", ["core"])
    (tmp_path / "more" / "data.yaml").write_text(
        "kinds:\n  card: {extend: true, props: {rarity: int}, defaults: {rarity: 2}}\n"
        "components:\n  - {id: king, kind: card, props: {value: 13, rarity: 5}}\n")
    rules = load_ruleset(tmp_path / "more")
    assert rules.program.kind_defaults["card"] == {"value": None, "rarity": 2}
    (tmp_path / "more" / "data.yaml").write_text("kinds:\n  crad: {extend: true, props: {rarity: int}}\n")
    with pytest.raises(RulesError, match="E304"):
        load_ruleset(tmp_path / "more")


def test_linting_a_library_reads_no_folder_beside_it(tmp_path: Path, monkeypatch) -> None:
    """Issue #39: the linter composed a library with every sibling folder to find a user; now only
    the folders named (and, for a shipped module, the shipped ones) are looked at."""
    import os

    from nemesis_rules.ruleset.check_api import check_paths

    lib = _write_module(tmp_path, "lib", [], "fn double(x) = x * 2\n")
    _write_module(tmp_path, "game", ["lib"], "proc main():\n    let n = double(1)\n", "players: {min: 1, max: 2}\nentry: main\n")
    _write_module(tmp_path, "other", [], "fn triple(x) = x * 3\n")
    opened, real_open = [], os.open
    monkeypatch.setattr(os, "open", lambda path, *rest, **kw: opened.append(Path(path)) or real_open(path, *rest, **kw))
    monkeypatch.chdir(tmp_path)
    check_paths([lib])
    read = {p.resolve().relative_to(tmp_path.resolve()).parts[0] for p in opened if p.resolve().is_relative_to(tmp_path.resolve())}
    assert read == {"lib"}


def test_a_library_is_linted_for_its_own_findings_only(tmp_path: Path, monkeypatch) -> None:
    """A module with no entry is checked inside a sibling that requires it: its own catalog's
    missing translations are reported (W600), and none of the sibling's findings are."""
    from nemesis_rules.ruleset.check_api import check_paths

    lib = _write_module(tmp_path, "lib", [], "fn double(x) = x * 2\n")
    game = _write_module(tmp_path, "game", ["lib"], "proc main():\n    let n = double(1)\n",
                         "players: {min: 1, max: 2}\nentry: main\n")
    for folder, key in ((lib, "lib_thing"), (game, "game_thing")):
        (folder / "i18n").mkdir()
        (folder / "i18n" / "en.yaml").write_text(f"names:\n  {key}: A thing\n")
        (folder / "i18n" / "pl.yaml").write_text("names: {}\n")
    monkeypatch.chdir(tmp_path)
    found = check_paths([lib, game])[0]  # a library is checked inside a user named beside it
    assert sorted((d.span.file, d.message) for d in found if d.code == "W600") == [
        ("game/i18n/en.yaml", "`names.game_thing` has no pl translation (English is used)"),
        ("lib/i18n/en.yaml", "`names.lib_thing` has no pl translation (English is used)")]
    assert not [d for d in found if d.is_error]
    assert ("game/i18n/en.yaml", "`names.game_thing` has no pl translation (English is used)") in [
        (d.span.file, d.message) for d in check_paths([game])[0] if d.code == "W600"]


def test_a_message_a_condition_picks_counts_as_used(tmp_path: Path) -> None:
    """`log("a" if c else "b")` uses both messages (nemesis_core's engine repair read as unused, W601)."""
    en = "names:\n  ruby: Ruby\nmessages:\n  shine: Shine\n  fade: Fade\n  spare: Spare\n"
    folder = _mod_on_toy(tmp_path, "languages: [en]\n", {"en": en})
    (folder / "rules.nem").write_text('after check_goal():\n    log("shine" if true else "fade")\n')
    assert [d.message for d in check_paths([folder])[0] if d.code == "W601"] == ["message `spare` is never used"]
    (folder / "rules.nem").write_text('after check_goal():\n    log("shine" if true else "fdae")\n')
    assert [d.code for d in check_paths([folder])[0] if "fdae" in d.message] == ["E307"]
