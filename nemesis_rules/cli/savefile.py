"""Saved games: what was played (modules, language, players, seed, options, moves) and hashes
that let a replay prove it reproduces the game.

A save file is JSON:

    {"format": "nemesis-save/1", "modules": [...], "lang": "en", "players": 2, "humans": 1,
     "bots": "random", "seed": 7, "options": {...}, "ruleset": "<fingerprint>",
     "moves": [option index, ...], "steps": [hash after each move, ...],
     "final": "<sha256 of the final to_json()>", "checksum": "<sha256 of the rest>"}

`checksum` catches a file changed by hand (it is a seal, not a signature). The hashes are of the
state's full form (`GameState.to_json`, format 2), whatever format `to_json` saves in, so files
written before the compact save still replay. A bare `to_json()` state (which holds its seed,
options and moves) is read too, compact or full; its modules come from `--modules` or from the
ruleset fingerprint's module ids.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from pathlib import Path
from typing import Any

import attrs

from nemesis_rules.api import Game, Ruleset
from nemesis_rules.cli.common import CliError
from nemesis_rules.dsl.diagnostics import RulesError, brief
from nemesis_rules.engine import savefmt
from nemesis_rules.engine.limits import MAX_SAVE_BYTES
from nemesis_rules.engine.state import FULL_FORMAT, canonical_json
from nemesis_rules.paths import UnreadableFile, read_user_file, rulesets_dir
from nemesis_rules.ruleset.compose import resolve_folder
from nemesis_rules.ruleset.load import load_manifest

SAVE_FORMAT = "nemesis-save/1"


def state_hash(game: Game, form: str = "full") -> str:
    """The SHA-256 of the state's full form (or, with form="compact", of its `to_json()`)."""
    text = game.state.to_json() if form == "full" else game.to_json()
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def step_hash(game: Game) -> str:
    return state_hash(game)[:16]


@attrs.define
class Saved:
    """A saved game read from a file, whatever its shape."""

    modules: list[str] | None
    lang: str
    players: int
    seed: int
    options: dict[str, Any]
    moves: list[int]
    final: str
    steps: list[str] | None = None
    ruleset: str = ""
    humans: int | None = None
    bots: str | None = None
    final_form: str = "full"  # what `final` hashes: the full form, or a bare compact to_json()


# ---- writing ----
def save_document(game: Game, modules: list[str], humans: int, bots: str) -> dict[str, Any]:
    """The save of `game` (its steps are recomputed from its seed, so a save proves itself)."""
    st = game.state
    doc = {"format": SAVE_FORMAT, "modules": _portable(modules), "lang": game.rules.lang,
           "players": st.players, "humans": humans, "bots": bots, "seed": st.seed,
           "options": _plain(st.options), "ruleset": st.ruleset, "moves": list(st.moves),
           "steps": step_hashes(game.rules, st.players, st.seed, dict(st.options), st.moves),
           "final": state_hash(game)}
    doc["checksum"] = checksum(doc)
    return doc


def write_save(path: str | Path, game: Game, modules: list[str], humans: int, bots: str) -> None:
    text = json.dumps(save_document(game, modules, humans, bots), ensure_ascii=False, indent=1)
    Path(path).write_text(text + "\n", encoding="utf-8")


def _portable(modules: list[str]) -> list[str]:
    """Folder paths made absolute, so a save loads from any working directory."""
    return [str(Path(m).resolve()) if Path(m).is_dir() and ("/" in m or "\\" in m or m.startswith(".")) else m
            for m in modules]


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


def checksum(doc: dict[str, Any]) -> str:
    rest = {k: v for k, v in doc.items() if k != "checksum"}
    return hashlib.sha256(json.dumps(rest, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def step_hashes(rules: Ruleset, players: int, seed: int, options: dict[str, Any], moves: list[int]) -> list[str]:
    game = Game.new(rules, players, seed, **options)
    hashes = []
    for move in moves:
        game.apply(move)
        hashes.append(step_hash(game))
    return hashes


# ---- reading ----


def read_save(path: str | Path) -> Saved:
    """A save file or a bare `to_json()` state, every field checked.

    Raises:
        CliError: the file is not JSON, not a save, or was changed after it was written.
    """
    doc = _read_json(Path(path))
    if not isinstance(doc, dict):
        raise CliError(f"{path}: not a save file (expected a JSON object)")
    try:
        if doc.get("format") == SAVE_FORMAT:
            return _from_save(path, doc)
        if doc.get("format") == FULL_FORMAT and "entities" in doc:
            return _from_state(doc, "full")
        if doc.get("format") == savefmt.FORMAT_VERSION and "made" in doc:
            return _from_state(doc, "compact")
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise CliError(f"{path}: not a save file (missing or bad {error})") from None
    raise CliError(f"{path}: not a save file (format {brief(doc.get('format'))}; "
                   f"expected {SAVE_FORMAT!r} or a game's to_json())")


def _read_json(path: Path) -> Any:
    """The file's JSON: only a regular file of sane size, whatever the text holds."""
    try:
        data = read_user_file(path, MAX_SAVE_BYTES)
    except UnreadableFile as error:
        raise CliError(f"{path}: not a save file ({error.message})") from None
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise CliError(f"{path}: not a save file (not text)") from None
    except json.JSONDecodeError as error:
        raise CliError(f"{path}: not a save file (bad JSON at line {error.lineno}: {error.msg})") from None
    except (ValueError, RecursionError) as error:  # a 5,000-digit number, arrays nested 100,000 deep
        raise CliError(f"{path}: not a save file ({str(error)[:80] or 'nested too deep'})") from None


def _from_save(path: str | Path, doc: dict[str, Any]) -> Saved:
    if doc.get("checksum") != checksum(doc):
        raise CliError(f"{path}: refused: the save was changed after it was written (checksum mismatch)")
    moves = _list(doc["moves"], _move)
    steps = _list(doc["steps"], _hash)
    if len(steps) != len(moves):
        raise ValueError(f"steps: {len(steps)} hashes for {len(moves)} moves")
    return Saved(modules=_list(doc["modules"], _str), lang=_str(doc["lang"]), players=_int(doc["players"]),
                 seed=_int(doc["seed"]), options=_options(doc["options"]), moves=moves,
                 final=_hash(doc["final"]), steps=steps, ruleset=_str(doc["ruleset"]),
                 humans=_optional(doc.get("humans"), _int), bots=_optional(doc.get("bots"), _str))


def _from_state(doc: dict[str, Any], form: str) -> Saved:
    """A bare state: its canonical text (the digest sorts first) is what `to_json` wrote."""
    text = canonical_json(doc)
    return Saved(modules=None, lang="en", players=_int(doc["players"]), seed=_int(doc["seed"]),
                 options=_options(doc["options"]), moves=_list(doc["moves"], _move),
                 final=hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(),
                 ruleset=_str(doc["ruleset"]), final_form=form)


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"integer, got {brief(value)}")
    return value


def _move(value: Any) -> int:
    if _int(value) < 0:
        raise ValueError(f"move, got {value}")
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"text, got {brief(value)}")
    return value


def _hash(value: Any) -> str:
    if not (isinstance(value, str) and len(value) in (16, 64) and all(c in "0123456789abcdef" for c in value)):
        raise ValueError(f"hash, got {brief(value)}")
    return value


def _list(value: Any, item) -> list:
    if not isinstance(value, list):
        raise ValueError(f"list, got {brief(value)}")
    return [item(v) for v in value]


def _optional(value: Any, item) -> Any:
    return None if value is None else item(value)


def _options(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict) or not all(v is None or isinstance(v, str | int) for v in value.values()):
        raise ValueError(f"options, got {brief(value)}")
    taken = sorted(set(value) & NOT_OPTIONS)  # Game.new's own parameters (`seed` is no game option)
    if taken:
        raise ValueError(f"options: {', '.join(taken)} is not a game option")
    return value


NOT_OPTIONS = set(inspect.signature(Game.new).parameters) - {"options"}


def fingerprint_modules(ruleset: str) -> list[str]:
    """The module ids a fingerprint `a+b@hash` names."""
    return [m for m in ruleset.partition("@")[0].split("+") if m]


def check_modules(path: str | Path, saved: Saved) -> None:
    """Before any is loaded: every module the save names must be one of the rules its fingerprint
    names (a folder by its module.yaml's id, read alone), so that a save cannot make us load a
    folder its game was not played with.

    Raises:
        CliError: a module that is not among them.
    """
    played = fingerprint_modules(saved.ruleset)
    for module in saved.modules or ():
        folder = resolve_folder(module, [rulesets_dir()])
        manifest = load_manifest(folder) if folder is not None else None
        if (manifest.id if manifest is not None else module) not in played:
            raise CliError(f"{path}: refused: the save names the module {brief(module)}, which is not one of "
                           f"the rules it was played with ({' + '.join(played) or 'none'})")


def check_fingerprint(path: str | Path, saved: Saved, rules: Ruleset) -> None:
    """The rules loaded for a save must be the ones it was played with.

    Raises:
        CliError: they are not.
    """
    if saved.ruleset != rules.fingerprint:
        raise CliError(f"{path}: refused: the save was played with the rules {saved.ruleset[:200]}; "
                       f"these are {rules.fingerprint}")


def restore(rules: Ruleset, saved: Saved) -> Game:
    """The saved game, replayed from its seed (moves that do not fit are bad input)."""
    game = Game.new(rules, saved.players, saved.seed, **saved.options)
    for i, move in enumerate(saved.moves, 1):
        if game.over:
            raise CliError(f"the save does not fit these rules: the game ended before move {i}")
        game.apply(move)
    return game


def finished_game(path: str | Path, modules: list[str], load) -> Game:
    """The finished game a `--after SAVE` continues: replayed with the modules it names (or, for a
    bare state whose fingerprint names fixture folders, with `modules`); `load(modules)` loads rules.

    Raises:
        CliError: not a save, a save these modules cannot replay, or a game still going on.
    """
    saved = read_save(path)
    check_modules(path, saved)
    candidates = [m for m in (saved.modules, modules) if m]
    error: Exception | None = None
    for mods in candidates:
        try:
            rules = load(mods)
            check_fingerprint(path, saved, rules)
            game = restore(rules, saved)
            break
        except (CliError, RulesError) as err:
            error = error or err  # the save's own modules say most
    else:
        raise CliError(f"{path}: cannot replay the saved game ({error})")
    if not game.over:
        raise CliError(f"{path}: --after takes a finished game; this one is still going on")
    return game
