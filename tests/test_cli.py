"""The `nemesis` command: simulate, replay, cards, explain, bench, and bad input everywhere.

Everything runs on the toy module (tests/fixtures/toy); `nemesis play` is in test_cli_play.py.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from nemesis_rules import Game, load_ruleset
from nemesis_rules.bots import HeuristicBot, RandomBot, Seen, bot_seed, make_bot, play_turn
from nemesis_rules.cli import main as cli_main
from nemesis_rules.cli import savefile
from nemesis_rules.cli.catalog import effect_summary
from nemesis_rules.cli.main import main
from nemesis_rules.dsl import ast
from nemesis_rules.dsl.parse import parse_body

ROOT = Path(__file__).resolve().parents[1]
TOY = str(ROOT / "tests" / "fixtures" / "toy")


def run(capsys: pytest.CaptureFixture[str], *argv: str, stdin: str = "") -> tuple[int, str, str]:
    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        code = main(list(argv))
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return code, out, err


def saved_game(tmp_path: Path, moves: int = 12, seed: int = 4) -> Path:
    """A save of a 2-player toy game after `moves` random decisions."""
    rules = load_ruleset(TOY)
    game = Game.new(rules, 2, seed)
    bots = {s: RandomBot(bot_seed(seed, s)) for s in range(2)}
    for _ in range(moves):
        play_turn(game, bots)
    path = tmp_path / "game.json"
    savefile.write_save(path, game, [TOY], humans=1, bots="random")
    return path


# ---- simulate ----
def test_simulate_same_seed_same_report(capsys):
    args = ("simulate", "--modules", TOY, "--games", "40", "--seed", "5")
    code, first, _ = run(capsys, *args, "--jobs", "1")
    assert code == 0
    _, again, _ = run(capsys, *args, "--jobs", "1")
    _, parallel, err = run(capsys, *args, "--jobs", "2")
    assert first == again == parallel
    assert "time:" in err and "2 jobs" in err


def test_simulate_report_sections(capsys):
    code, out, _ = run(capsys, "simulate", "--modules", TOY, "--games", "20", "--players", "3", "--jobs", "1",
                       "--bots", "heuristic", "--option", "length=short")
    assert code == 0
    assert "20 games of toy, 3 players, seeds 0..19, heuristic bots, options length=short" in out
    for part in ("how games ended:", "goal_reached", "wins by seat:", "seat 2 (Player 3, heuristic)",
                 "decisions per game: mean", "errors: none"):
        assert part in out


def test_simulate_other_seed_other_report(capsys):
    _, a, _ = run(capsys, "simulate", "--modules", TOY, "--games", "30", "--seed", "0", "--jobs", "1")
    _, b, _ = run(capsys, "simulate", "--modules", TOY, "--games", "30", "--seed", "1000", "--jobs", "1")
    assert a.splitlines()[1:] != b.splitlines()[1:]


def test_simulate_out_writes_one_line_per_game(capsys, tmp_path):
    out = tmp_path / "results.jsonl"
    code, _, _ = run(capsys, "simulate", "--modules", TOY, "--games", "6", "--seed", "10", "--jobs", "1",
                     "--out", str(out))
    assert code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["seed"] for r in rows] == list(range(10, 16))
    rules = load_ruleset(TOY)
    for r in rows:  # every record replays to its result
        game = Game.new(rules, r["players"], r["seed"])
        for m in r["moves"]:
            game.apply(m)
        assert game.over and r["decisions"] == len(r["moves"])
        assert json.loads(json.dumps(game.result)) == r["result"]


def test_heuristic_bot_beats_the_random_bot(capsys):
    code, out, _ = run(capsys, "simulate", "--modules", TOY, "--games", "100", "--jobs", "1",
                       "--bots", "heuristic,random")
    assert code == 0
    wins = {line.split(",")[1].split(")")[0].strip(): int(line.split()[-2]) for line in out.splitlines()
            if line.startswith("  seat ")}
    assert wins["heuristic"] > 2 * wins["random"], out


# ---- replay ----
def test_replay_round_trip(capsys, tmp_path):
    code, out, _ = run(capsys, "replay", str(saved_game(tmp_path)))
    assert (code, out.startswith("replay ok: 12 moves")) == (0, True)


def test_replay_step_shows_each_decision(capsys, tmp_path):
    code, out, _ = run(capsys, "replay", str(saved_game(tmp_path, moves=3)), "--step")
    assert code == 0
    assert "    1. Player 1: Choose an action -> " in out


def test_tampered_save_is_refused(capsys, tmp_path):
    path = saved_game(tmp_path)
    doc = json.loads(path.read_text())
    doc["moves"][3] = 1 - doc["moves"][3] if doc["moves"][3] < 2 else 0
    path.write_text(json.dumps(doc))
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and out == ""
    assert "refused" in err and "changed after it was written" in err
    assert "Traceback" not in err and len(err.splitlines()) == 1


def test_resealed_tampered_save_differs_at_its_step(capsys, tmp_path):
    path = saved_game(tmp_path)
    doc = json.loads(path.read_text())
    doc["steps"][5] = "0" * 16
    doc["checksum"] = savefile.checksum(doc)
    path.write_text(json.dumps(doc))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 1
    assert out.startswith("replay differs: step 6:")


@pytest.mark.parametrize("command", [("replay",), ("play", "--load"), ("simulate", "--games", "1", "--after")])
def test_a_save_naming_a_game_parameter_as_an_option_is_bad_input(capsys, tmp_path, command):
    """issue #39 point 7: options {"seed": 5} reached Game.new twice and gave an internal TypeError."""
    path = saved_game(tmp_path)
    doc = json.loads(path.read_text())
    doc["options"] = {"seed": 5}
    doc["checksum"] = savefile.checksum(doc)
    path.write_text(json.dumps(doc))
    code, _, err = run(capsys, *command, str(path))
    assert code == 2 and "internal error" not in err and "not a game option" in err, err


def resealed(path: Path, **fields) -> Path:
    doc = {**json.loads(path.read_text()), **fields}
    doc["checksum"] = savefile.checksum(doc)
    path.write_text(json.dumps(doc))
    return path


def toy_copy(tmp_path: Path, name: str, module_id: str = "toy") -> Path:
    """A copy of the toy module in `tmp_path / name` with id `module_id` and one line more in its
    rules (so its fingerprint differs from the toy's)."""
    import shutil
    folder = Path(shutil.copytree(TOY, tmp_path / name))
    manifest = folder / "module.yaml"
    manifest.write_text(manifest.read_text().replace("id: toy", f"id: {module_id}"))
    (folder / "rules.nem").write_text((folder / "rules.nem").read_text() + "\n# a changed copy\n")
    return folder


SAVE_LOADERS = [("replay",), ("play", "--load"), ("simulate", "--games", "1", "--after")]


@pytest.mark.parametrize("command", SAVE_LOADERS)
def test_a_save_naming_modules_its_fingerprint_does_not_is_refused_before_loading_them(capsys, tmp_path, command,
                                                                                         monkeypatch):
    """issue #39 point 2: a save's module list could name any folder, and it was loaded."""
    other = toy_copy(tmp_path, "other", "other")
    path = resealed(saved_game(tmp_path), modules=[str(other)])
    opened, real_open = [], os.open
    monkeypatch.setattr(os, "open", lambda p, *rest, **kw: opened.append(Path(p)) or real_open(p, *rest, **kw))
    code, _, err = run(capsys, *command, str(path))
    assert code == 2 and "not one of the rules it was played with (toy)" in err, (code, err)
    assert not [p for p in opened if p.resolve().is_relative_to(other.resolve()) and p.name != "module.yaml"]


@pytest.mark.parametrize("command", SAVE_LOADERS[1:])
def test_a_save_is_resumed_only_with_the_rules_it_was_played_with(capsys, tmp_path, command):
    """The save names a folder of the right id whose rules changed: play --load and --after
    refuse it (replay reports that it differs, exit 1, as before)."""
    path = resealed(saved_game(tmp_path), modules=[str(toy_copy(tmp_path, "changed"))])
    code, _, err = run(capsys, *command, str(path))
    assert code == 2 and "refused: the save was played with the rules toy@" in err, (code, err)
    assert run(capsys, "replay", str(path))[0] == 1


def test_replay_of_a_bare_state(capsys, tmp_path):
    rules = load_ruleset(TOY)
    game = Game.new(rules, 2, 9)
    bots = {s: RandomBot(s) for s in range(2)}
    for _ in range(10):
        play_turn(game, bots)
    path = tmp_path / "state.json"
    path.write_text(game.to_json())
    assert run(capsys, "replay", str(path), "--modules", TOY)[0] == 0
    doc = json.loads(game.to_json())
    doc["counters"]["round"] += 1
    path.write_text(json.dumps(doc, sort_keys=True, separators=(",", ":")))
    code, out, _ = run(capsys, "replay", str(path), "--modules", TOY)
    assert code == 1 and "final state differs" in out


# ---- cards and explain ----
def test_cards_lists_components(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")
    code, out, _ = run(capsys, "cards", "--modules", TOY)
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("sprint"))
    assert row.split()[:5] == ["sprint", "card", "4", "deck", "Sprint"]
    assert "11 components, 25 pieces" in out


def test_cards_show_each_scripted_effect_in_the_language(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run(capsys, "cards", "--modules", TOY, "--lang", "pl")
    assert code == 0
    header = out.splitlines()[1]
    assert header.split() == ["id", "kind", "count", "zone", "name", "effect"]
    rows = {line.split()[0]: line for line in out.splitlines()[2:]}
    # the card's holder (the script's first parameter, `who`) reads as "you" (base DECISIONS.md V4, V9)
    assert rows["sprint"].rstrip().endswith("Sprint         Pozycja u ciebie rośnie o wartość tego elementu.")
    assert rows["shove"].rstrip().endswith("…")  # first sentences only
    assert rows["gem"].rstrip().endswith("Klejnot")  # no script, no effect


GADGETS = str(ROOT / "tests" / "fixtures" / "toy_gadgets")


@pytest.mark.parametrize("lang, row", [
    # the holder `who` reads as "you" (base DECISIONS.md V4), a list's one-letter variable as "it" (V9)
    ("en", "Magnet  use: You choose target from those of the players where it is not you"),
    ("pl", "Magnes  użycie: Wybierasz target z listy (te z listy (gracze), dla których element ≠ ty)"),
    ("ru", "Магнит  применение: Вы выбираете target из списка (те из списка (игроки), для которых элемент ≠ вы)"),
])
def test_cards_show_scripts_of_any_field_named_in_the_language(capsys, monkeypatch, lang, row):
    monkeypatch.setenv("COLUMNS", "400")
    code, out, _ = run(capsys, "cards", "--modules", GADGETS, "--kind", "gadget", "--lang", lang)
    assert code == 0
    [line] = [line for line in out.splitlines() if line.startswith("magnet")]
    assert row in line
    dropped = {"en": "; when dropped: Repeat", "pl": "; po odrzuceniu: Powtórz", "ru": "; при сбросе: Повторить"}
    assert dropped[lang] in line


def test_explain_reads_every_script_field(capsys):
    code, out, _ = run(capsys, "explain", "magnet", "--modules", GADGETS, "--lang", "pl")
    assert code == 0
    assert "  use(who):\n    who wybiera target z listy" in out
    assert "  dropped(who):\n    Powtórz ładunki tego elementu razy:\n      - Przenieś 1 z wierzchu (deck)" in out
    assert "    Ogłoś: atak (who, target, ładunki tego elementu).\n" in out
    assert "pull_whom = Czyją rękę przyciągasz?" in out


def test_cards_cut_the_effect_to_a_wide_terminal(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "90")
    code, out, _ = run(capsys, "cards", "--modules", TOY)
    assert code == 0
    assert all(len(line) <= 90 for line in out.splitlines())
    row = next(line for line in out.splitlines() if line.startswith("sprint"))
    assert row.split()[:5] == ["sprint", "card", "4", "deck", "Sprint"] and row.rstrip().endswith("…")


def test_cards_on_a_narrow_terminal_wrap_each_effect_below_its_card(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    code, out, _ = run(capsys, "cards", "--modules", TOY)
    assert code == 0
    assert all(len(line) <= 60 for line in out.splitlines())
    lines = out.splitlines()
    at = lines.index("sprint  card ×4  deck  Sprint")
    assert lines[at + 1].startswith("    effect: ")


def test_cards_piped_keep_every_effect_whole():
    """Piped, `nemesis cards` is 80 columns wide: each card's effect wraps, none is cut."""
    done = subprocess.run([sys.executable, "-m", "nemesis_rules.cli", "cards", "--kind", "action_card"],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert all(len(line) <= 80 for line in done.stdout.splitlines())
    text = " ".join(done.stdout.split())
    rules = load_ruleset("base")
    for card in ("scout_demolition", "captain_interruption"):
        effect = effect_summary(rules, rules.composition.components[card])
        assert effect and f"effect: {' '.join(effect.split())}" in text


def test_cards_without_scripts_have_no_effect_column(capsys):
    code, out, _ = run(capsys, "cards", "--modules", TOY, "--kind", "token")
    assert code == 0 and "effect" not in out


def test_cards_by_kind_and_language(capsys):
    code, out, _ = run(capsys, "cards", "--modules", TOY, "--kind", "token", "--lang", "pl")
    assert code == 0
    assert "gem" in out and "sprint" not in out


def test_explain_renders_the_script_back(capsys):
    code, out, _ = run(capsys, "explain", "shove", "--modules", TOY)
    assert code == 0
    assert out.startswith("shove: Shove\n  card, 3 pieces, starts in deck")
    assert "    value: 2" in out and "    suit: attack" in out
    assert "  effect(who):\n    Let others be: every p in the players where p is not who.\n" in out
    assert "    If the number of others is 0:\n      - Stop here.\n" in out
    assert "shove_whom = Whom do you shove?" in out
    script = out.split("    script:\n", 1)[1]
    body = "\n".join(line[8:] for line in script.splitlines() if line.startswith("        "))
    parsed, diags = parse_body(body)
    rules = load_ruleset(TOY)
    assert not diags and parsed.stmts == rules.composition.procs["shove.effect"].value.body
    assert isinstance(parsed, ast.Body)


def test_explain_reads_a_card_in_the_language(capsys):
    code, out, _ = run(capsys, "explain", "sprint", "--modules", TOY, "--lang", "ru")
    assert code == 0
    assert "  effect(who):\n    Позиция (who) увеличивается на значение этого элемента.\n    script:\n" \
           "        who.pos += this.value\n" in out


def test_explain_procedure_with_its_hooks(capsys):
    code, out, _ = run(capsys, "explain", "stumble", "--modules", TOY)
    assert code == 0
    assert out.startswith("stumble: procedure\n  Stumble (who):\n    - Set position of who to the largest of 0")
    assert "  Instead of stumble (who), if lucky of who:\n    - Set lucky of who to false.\n" in out
    assert "proc stumble(who):" in out.split("  script:\n", 1)[1]
    assert "instead of stumble(who) when who.lucky:" in out and "after stumble(who):" in out


def test_explain_a_phase(capsys):
    code, out, _ = run(capsys, "explain", "round", "--modules", TOY, "--lang", "pl")
    assert code == 0
    assert "  Faza round, kolejno: start round, turns, end round.\n  script:\n    phase round:\n" in out


def test_explain_event_card_shows_props_and_its_script(capsys):
    code, out, _ = run(capsys, "explain", "event_nest", "--modules", "base")
    assert code == 0
    assert "    corridor: 3\n" in out and "effect_kind" not in out
    assert "  effect():\n" in out and "noise_all_around(s)" in out.split("script:", 1)[1]


# ---- bench ----
def test_bench_prints_figures_with_units(capsys):
    code, out, _ = run(capsys, "bench", TOY, "--games", "2", "--runs", "1")
    assert code == 0
    for unit in (" ms", "games/s", "decisions/s", "µs per state", "bytes of JSON"):
        assert unit in out
    heuristic = next(line for line in out.splitlines() if "heuristic-bot games" in line)
    assert "games/s (median of 1 runs of 1 games" in heuristic  # a median, as every timed figure


def test_bench_profile_names_the_rules_that_take_the_time(capsys):
    code, out, _ = run(capsys, "bench", TOY, "--games", "3", "--runs", "1", "--profile", "--no-baselines")
    assert code == 0
    part = out.split("where the time goes: 3 random games", 1)[1]
    rules = [line for line in part.split("the rules\n", 1)[1].split("the rest\n", 1)[0].splitlines() if "%" in line]
    # each a rule of the toy module by its declared name and place, not a generated function
    assert len(rules) >= 5 and all(re.search(r"% +\d+\.\d%  (fn|proc) \S+  \(fixtures/toy/\w+\.(nem|yaml):\d+\)", line)
                                   for line in rules)
    assert not re.search(r"_(f|sp|dp)\d+", part)
    assert "engine/vm.py run" in part and "by kind: rule functions" in part and "Python (built-ins" in part


def test_every_generated_function_of_base_is_named_by_its_rule():
    from nemesis_rules.cli.profile import place_of

    rules = load_ruleset("base")
    generated = [n for n, v in rules.program.ns.items() if re.fullmatch(r"_(f|sp|dp)\d+(_any|_first)?", n) and callable(v)]
    assert len(generated) > 500
    for name in generated:
        group, label = place_of(rules, "<nemesis function>", 1, name)
        assert group in ("fn", "proc") and name not in label, (name, label)
    common = (ROOT / "rulesets" / "nemesis_core" / "rules" / "common.nem").read_text(encoding="utf-8").split("\n")
    line = next(n for n, text in enumerate(common, 1) if text.startswith("fn active("))
    assert place_of(rules, "<nemesis function>", 1, "_f0") == ("fn", f"fn active  (nemesis_core/rules/common.nem:{line})")


# ---- bots ----
def test_bots_are_seeded():
    rules = load_ruleset(TOY)
    for kind in ("random", "heuristic"):
        runs = []
        for _ in range(2):
            game = Game.new(rules, 3, 1)
            bots = {s: make_bot(kind, bot_seed(1, s)) for s in range(3)}
            while not game.over:
                play_turn(game, bots)
            runs.append(game.state.moves)
        assert runs[0] == runs[1]


def test_heuristic_bot_does_not_pass_when_it_can_act():
    rules = load_ruleset(TOY)
    game = Game.new(rules, 2, 3)
    d = game.decision
    assert d.optional and d.options[-1].value is None
    assert HeuristicBot(0).choose(Seen(game, d.player, d)) != len(d.options) - 1


# ---- bad input ----
BAD = {
    "unknown module": ("simulate", "--modules", "no_such_module"),
    "bad seed": ("simulate", "--modules", TOY, "--seed", "seven"),
    "unknown option": ("simulate", "--modules", TOY, "--option", "lenght=short"),
    "bad option value": ("play", "--modules", TOY, "--option", "length=long"),
    "option without value": ("simulate", "--modules", TOY, "--option", "length"),
    "unknown flag": ("cards", "--modules", TOY, "--colour"),
    "unknown command": ("simulat",),
    "unknown bot": ("simulate", "--modules", TOY, "--bots", "heuristic,smart"),
    "too many players": ("simulate", "--modules", TOY, "--players", "9"),
    "no games": ("simulate", "--modules", TOY, "--games", "0"),
    "too many humans": ("play", "--modules", TOY, "--players", "2", "--humans", "3"),
    "unknown language": ("cards", "--modules", TOY, "--lang", "xx"),
    "unknown kind": ("cards", "--modules", TOY, "--kind", "crad"),
    "unknown id": ("explain", "shovel", "--modules", TOY),
    "missing save": ("replay", "/no/such/save.json"),
    "load with seed": ("play", "--load", "x.json", "--seed", "3"),
}


@pytest.mark.parametrize("argv", BAD.values(), ids=BAD.keys())
def test_bad_input_exits_2_with_one_line(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert err.startswith("nemesis: ") and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err + out


@pytest.mark.parametrize("content", ["{", "[]", "\x00\x01garbage", '{"format": "nemesis-save/1"}',
                                     '{"format": 1, "entities": {}}'])
def test_corrupt_save_exits_2(capsys, tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_text(content)
    for argv in (("replay", str(path)), ("play", "--load", str(path), "--modules", TOY)):
        code, _, err = run(capsys, *argv)
        assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_internal_error_is_one_line(capsys, monkeypatch):
    def broken(args):
        raise ZeroDivisionError("boom")
    monkeypatch.setattr("nemesis_rules.cli.catalog.run_cards", broken)
    parser = cli_main.build_parser()
    monkeypatch.setattr(cli_main, "build_parser", lambda: _with_run(parser, broken))
    code, _, err = run(capsys, "cards", "--modules", TOY)
    assert code == 2 and err.startswith("nemesis: internal error: ZeroDivisionError: boom")


def _with_run(parser, fn):
    parser._subparsers._group_actions[0].choices["cards"].set_defaults(run=fn)
    return parser


def test_scenario_without_its_module_says_so(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "nemesis_rules.cli.scenario_cmd", None)
    code, _, err = run(capsys, "scenario", "x.yaml")
    assert code == 2 and "not available" in err


def test_no_traceback_from_the_real_process(tmp_path):
    (tmp_path / "bad.json").write_text("{nope")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for argv in (["simulate", "--modules", "nope"], ["replay", str(tmp_path / "bad.json")]):
        proc = subprocess.run([sys.executable, "-m", "nemesis_rules.cli", *argv], capture_output=True,
                              text=True, env=env, cwd=tmp_path, timeout=60)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert proc.stderr.startswith("nemesis: ")


def test_mode_is_short_for_the_mode_option(capsys):
    board = str(ROOT / "tests" / "fixtures" / "base_testboard")
    code, out, _ = run(capsys, "simulate", "--modules", f"base,{board}", "--players", "3", "--games", "2",
                       "--jobs", "1", "--mode", "coop")
    assert code == 0 and "options mode=coop" in out.splitlines()[0]
    code, _, err = run(capsys, "simulate", "--modules", TOY, "--games", "2", "--mode", "coop")
    assert code == 2 and "unknown option `mode` (options: length)" in err


def test_rules_kept_aside_gives_the_objects_back_to_the_collector() -> None:
    """bench and simulate freeze what lives while they play (gc.freeze); after the block nothing
    stays frozen, so rules dropped later are collected as before."""
    import gc

    from nemesis_rules.cli import common
    before = gc.get_freeze_count()
    with common.rules_kept_aside():
        assert gc.get_freeze_count() > before
    assert gc.get_freeze_count() == before


def test_a_reader_that_leaves_early_stops_the_command_quietly():
    """`nemesis simulate | head`: the report's reader goes away; the command stops with the status
    a shell gives a command stopped by SIGPIPE, and writes no error."""
    proc = subprocess.Popen([sys.executable, "-m", "nemesis_rules.cli", "simulate", "--games", "3", "--jobs", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    proc.stdout.close()                       # the reader is gone before the first line
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == cli_main.EXIT_BROKEN_PIPE
    assert b"Broken pipe" not in err and b"Traceback" not in err


@pytest.mark.parametrize(("cid", "name"), [
    ("scientist_local_network", "Intranet"), ("scout_recon", "Reconnaissance"),
    ("item_motion_detector", "Motion Scanner"), ("item_technical_corridor_blueprints", "Technical Corridors Plan"),
])
def test_english_names_follow_the_english_fan_source(capsys, monkeypatch, cid, name):
    """public-facts-2.md §6-§7 (PN); the ids stay (base DECISIONS.md N3)."""
    monkeypatch.setenv("COLUMNS", "300")
    code, out, _ = run(capsys, "explain", cid, "--modules", "base")
    assert code == 0 and out.startswith(f"{cid}: {name}\n"), out
    code, out, _ = run(capsys, "cards", "--modules", "base")
    assert code == 0
    [row] = [line for line in out.splitlines() if line.startswith(f"{cid} ")]
    assert f"  {name}  " in row, row


def test_simulate_reports_only_the_counters_a_module_names(capsys):
    """issue #38 point 5: a mod's private counters (bookkeeping) appeared in every report."""
    args = ("simulate", "--modules", "base", "--games", "4", "--jobs", "1", "-q")
    code, out, _ = run(capsys, *args)
    line = next(x for x in out.splitlines() if x.startswith("counters at the end"))
    assert code == 0 and "self_destruct" in line and "intruder_candidate" not in line
    _, everything, _ = run(capsys, *args, "--counters")
    assert "intruder_candidate" in next(x for x in everything.splitlines() if x.startswith("counters at the end"))
