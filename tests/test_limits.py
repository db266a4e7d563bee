"""A shared module cannot hang the engine, exhaust memory or read the machine (issue 14): every
limit ends in a lint diagnostic with a code and a place, or a located rules error at run time."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from nemesis_rules import Game, RulesError, load_ruleset
from nemesis_rules.lint.cli import main as lint_main


def _module(root: Path, script: str = "proc main():\n    let n = 1\n", name: str = "probe",
            manifest: str = "", files: dict[str, str] | None = None) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "module.yaml").write_text(
        f"id: {name}\nname: {name}\nversion: 0.1.0\nplayers: {{min: 1, max: 2}}\nentry: main\n{manifest}")
    (folder / "rules.nem").write_text(textwrap.dedent(script))
    for path, text in (files or {}).items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    return folder


def _refused(folder: Path, code: str, capsys) -> str:
    """load_ruleset and nemesis-lint both refuse the module with `code`; the lint output."""
    with pytest.raises(RulesError) as err:
        load_ruleset(folder)
    assert code in {d.code for d in err.value.diagnostics}, err.value
    assert lint_main([str(folder)]) == 1
    out = capsys.readouterr().out
    assert code in out and "E999" not in out and "internal error" not in out
    return out


def _bomb(levels: int = 9) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("code", "kwargs"), [
    ("E805", {"script": "proc main():\n    let n = " + "-" * 300 + "1\n"}),
    ("E805", {"script": "proc main():\n    let n = " + " + ".join(["1"] * 300) + "\n"}),
    ("E805", {"script": "proc main():\n    let n = " + "not " * 200 + "true\n"}),
    ("E804", {"script": "proc main():\n    let n = " + "9" * 3000 + "\n"}),
    ("E804", {"script": "proc main():\n    let n = " + "9" * 5000 + "\n"}),
    ("E804", {"script": "proc main():\n    let n = 9223372036854775808\n"}),
    ("E806", {"manifest": "", "name": "p0"}),
    ("E803", {"files": {"c.yaml": "kinds:\n  card: {}\nzones:\n  deck: {}\ncomponents:\n"
                                  "  - {id: c, kind: card, count: 100000000, zone: deck}\n"}}),
    ("E802", {"files": {"bomb.yaml": _bomb()}}),
    ("E802", {"files": {"bomb.yaml": 'text: &t "' + "x" * 10_000 + '"\nmore: [' + ", ".join(["*t"] * 2_100) + "]\n"}}),
    ("E802", {"files": {"i18n/en.yaml": "messages:\n" + "".join(f"  {line}\n" for line in _bomb().splitlines())}}),
    ("E603", {"script": "proc main():\n    log(\"hit\", who=player_at(0))\n",
              "files": {"i18n/en.yaml": "messages:\n  hit: \"{who.__class__.__mro__}\"\n"}}),
    ("E603", {"script": "proc main():\n    log(\"hit\", who=player_at(0))\n",
              "files": {"i18n/en.yaml": "messages:\n  hit: \"{who:>999999999}\"\n"}}),
    ("E603", {"script": "proc main():\n    log(\"hit\", who=player_at(0))\n",
              "files": {"i18n/en.yaml": "messages:\n  hit: \"{who[0]}\"\n"}}),
    ("E705", {"manifest": "requires: [/etc]\n"}),
    ("E705", {"manifest": "requires: [./nowhere]\n"}),
])
def test_module_limits_are_diagnostics(tmp_path, capsys, code: str, kwargs: dict) -> None:
    if kwargs.get("name") == "p0":
        folder = _module(tmp_path)
        manifest = folder / "module.yaml"
        manifest.write_text(manifest.read_text().replace("min: 1", "min: 0"))
    else:
        folder = _module(tmp_path, **kwargs)
    _refused(folder, code, capsys)


def test_a_module_id_is_a_name(tmp_path, capsys) -> None:
    folder = _module(tmp_path)
    manifest = folder / "module.yaml"
    manifest.write_text(manifest.read_text().replace("id: probe", "id: ../../etc/passwd"))
    _refused(folder, "E203", capsys)


def test_a_link_out_of_the_module_is_not_read_nor_quoted(tmp_path, capsys) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:SECRET-LINE\n")
    folder = _module(tmp_path)
    (folder / "evil.yaml").symlink_to(secret)
    out = _refused(folder, "E105", capsys)
    assert "SECRET-LINE" not in out


@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_devices_and_fifos_are_not_read(tmp_path, capsys, target: str) -> None:
    folder = _module(tmp_path)
    if target == "fifo":
        os.mkfifo(folder / "p.yaml")
    else:
        (folder / "z.yaml").symlink_to(target)
    _refused(folder, "E105", capsys)


def test_a_file_too_large_is_refused_before_it_is_read(tmp_path, capsys) -> None:
    folder = _module(tmp_path)
    with open(folder / "big.yaml", "wb") as f:
        f.truncate(5_000_000)  # sparse: its size is checked, its bytes never read
    _refused(folder, "E801", capsys)


def test_requires_may_name_a_folder_relative_to_the_module(tmp_path) -> None:
    base = _module(tmp_path, name="lower", script="proc main():\n    let n = 1\n")
    upper = _module(tmp_path, name="upper", script="proc other():\n    let n = 2\n", manifest="requires: [../lower]\n")
    (upper / "module.yaml").write_text((upper / "module.yaml").read_text().replace("entry: main\n", ""))
    assert load_ruleset(upper).modules == ("lower", "upper")
    assert base.is_dir()


@pytest.mark.parametrize(("script", "words"), [
    ("proc main():\n    let n = 3\n" + "    n = n * n\n" * 40, "integer beyond"),
    ("proc main():\n    let s = \"ab\"\n    repeat 64:\n        s = s + s\n", "string longer"),
    ("proc main():\n    let s = [1]\n    repeat 64:\n        s = s + s\n", "list longer"),
    ("proc main():\n    let r = range(0, 100000)\n    let x = [[y for y in r] for z in r]\n", "units of work"),
    ("fn f(n, k) = 0 if n == 0 else f(n - 1, k * 2) + f(n - 1, k * 2 + 1)\n"
     "proc main():\n    let x = f(40, 1)\n", "units of work"),
    ("proc main():\n    let r = range(0, 10000000000)\n", r"range\(\) longer"),
])
def test_runaway_scripts_stop_with_a_located_rules_error(tmp_path, script: str, words: str) -> None:
    rules = load_ruleset(_module(tmp_path, script=script))
    with pytest.raises(RulesError, match=words) as err:
        Game.new(rules, players=1)
    [d] = err.value.diagnostics
    assert d.code == "R100" and d.span.file.endswith("rules.nem")


def test_a_wide_random_int_is_drawn_not_listed(tmp_path) -> None:
    rules = load_ruleset(_module(tmp_path, script="proc main():\n    let n = random_int(0, 1000000000000)\n"
                                                  "    let p = player_at(0)\n    let x = choose(p, [n, 1])\n"))
    game = Game.new(rules, players=1, explicit_chance=True)
    assert not game.is_chance_node and 0 <= game.decision.options[0].value <= 10**12
    assert Game.from_json(rules, game.to_json()).state == game.state


def test_a_hint_comparing_an_entity_with_a_string_is_a_rules_error(tmp_path, capsys) -> None:
    """The issue's `bot_hint`: `simulate --bots heuristic` ends with a rules error, not an internal one."""
    from nemesis_rules.cli.main import main
    from tests.conftest import TOY

    folder = tmp_path / "hinted"
    folder.mkdir()
    (folder / "module.yaml").write_text("id: hinted\nname: Hinted\nversion: 0.1.0\nrequires: [toy]\n")
    (folder / "hint.nem").write_text("fn bot_hint(me, prompt, option) = 1 if option < \"a\" else 0\n")
    main(["simulate", "--modules", str(TOY), str(folder), "--games", "1", "--jobs", "1", "--bots", "heuristic"])
    out, err = capsys.readouterr()
    assert "internal error" not in out + err and "bot_hint(player" in out and "not supported" in out


def test_a_message_with_too_many_fields_is_refused_at_load(tmp_path: Path) -> None:
    """issue #39 point 4: a template of 300,000 fields made every view build a 15 GB string."""
    folder = _module(tmp_path, files={"i18n/en.yaml": "messages:\n  wide: \"" + "{a}" * 101 + "\"\n"})
    with pytest.raises(RulesError) as err:
        load_ruleset(folder)
    assert any(d.code == "E804" and "fields" in d.message for d in err.value.diagnostics)


def test_a_filled_field_is_cut_at_its_limit(tmp_path: Path) -> None:
    rules = load_ruleset(_module(tmp_path, files={"i18n/en.yaml": "messages:\n  long: \"{a}{a}\"\n"}))
    assert len(rules.message("long", {"a": "x" * 10_000})) <= 2 * 2_001


def test_the_entity_limit_is_counted_while_component_files_are_read(tmp_path, monkeypatch) -> None:
    """issue #39 point 4: 10**6 components over 25 files were all parsed before the limit was
    checked; now no component file is read once the module's components pass it."""
    from nemesis_rules.engine import limits

    monkeypatch.setattr(limits, "MAX_COMPONENTS", 50)
    files = {"a_kinds.yaml": "kinds:\n  card: {}\nzones:\n  deck: {}\n"}
    files |= {f"c{n}.yaml": "components:\n" + "".join(f"  - {{id: c{n}_{i}, kind: card, zone: deck}}\n" for i in range(30))
              for n in range(1, 6)}
    folder = _module(tmp_path, files=files)
    opened, real_open = [], os.open
    monkeypatch.setattr(os, "open", lambda path, *rest, **kw: opened.append(Path(path).name) or real_open(path, *rest, **kw))
    with pytest.raises(RulesError) as err:
        load_ruleset(folder)
    over = [d for d in err.value.diagnostics if d.code == "E803"]
    assert over and over[0].span.file.endswith("c2.yaml") and over[0].span.line == 22  # the 21st of c2.yaml
    assert {"c1.yaml", "c2.yaml"} <= set(opened) and not {"c3.yaml", "c4.yaml", "c5.yaml"} & set(opened)
