"""Scenarios: a position, scripted chance, decisions and expectations, in one YAML file.

A scenario names modules and options, runs the game to a point (`setup`), edits the state into
a position, scripts chance outcomes, applies decisions and checks the result. It speaks only of
the engine's generic things (entities, zones, props, counters, decisions, chance, results, the
log), so the same format serves every module. The format is documented in docs/scenarios.md.

    report = run_file("tests/scenarios/toy/advance.yaml")
    print(report.status, [c.message for c in report.failures])

`load()` raises `ScenarioError` for a malformed file; `run()` never raises: a file that cannot
run gives a report with `error` set (status ERROR), failed expectations give status FAIL.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import attrs
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from nemesis_rules.api import Game, Ruleset, load_ruleset
from nemesis_rules.dsl.diagnostics import RulesError, did_you_mean
from nemesis_rules.dsl.proptypes import PropType, parse_type
from nemesis_rules.engine import vm
from nemesis_rules.engine.limits import MAX_FILE_BYTES, MAX_SAVE_BYTES
from nemesis_rules.engine.primitives import ScriptError
from nemesis_rules.engine.state import E_COMP, E_FACE, E_KIND, E_PROPS, E_ZONE
from nemesis_rules.paths import UnreadableFile, read_user_file
from nemesis_rules.ruleset.yaml_reader import load_positioned
from nemesis_rules.unavailable import unavailable_actions

RUN_UNTIL = ("first_decision", "start")
TOP_KEYS = ("name", "description", "modules", "lang", "players", "seed", "options", "setup",
            "after", "position", "chance", "decisions", "expect", "steps")
AFTER_KEYS = ("save", "modules", "players", "seed", "options", "position")
RANDOM_PLAY_LIMIT = 100_000  # decisions a seeded prior game may take to finish
STEP_KEYS = ("name", "position", "chance", "decisions", "expect")
POSITION_KEYS = ("zones", "props", "face", "counters", "links")
ZONE_FORM_KEYS = ("only", "top", "bottom", "rest")
DECISION_KEYS = ("choose", "index", "player", "prompt")
PSEUDO_PROPS = ("zone", "face_up", "kind", "component")


class ScenarioError(Exception):
    """The scenario file is malformed or names something the game does not have."""

    def __init__(self, message: str, loc: Loc | None = None) -> None:
        self.loc = loc
        super().__init__(f"{loc}: {message}" if loc else message)


# ---- what a run reports ----
@attrs.frozen
class Loc:
    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line > 0 else self.file


@attrs.frozen
class CheckResult:
    """One expectation (or decision) checked: where it is written, what it checks, the verdict."""

    ok: bool
    loc: Loc
    what: str
    message: str = ""

    def __str__(self) -> str:
        return f"{self.loc}: {self.what}: {self.message}" if self.message else f"{self.loc}: {self.what}"


@attrs.define
class Report:
    path: str
    name: str = ""
    checks: list[CheckResult] = attrs.Factory(list)
    error: str | None = None  # the scenario could not run (bad input)
    shown: list[str] = attrs.Factory(list)  # with `show`: the position after setup, each step's log

    @property
    def failures(self) -> list[CheckResult]:
        return [c for c in self.checks if not c.ok]

    @property
    def status(self) -> str:
        if self.error is not None:
            return "ERROR"
        return "FAIL" if self.failures else "PASS"

    @property
    def passed(self) -> bool:
        return self.status == "PASS"


# ---- the parsed file ----
@attrs.frozen
class Entry:
    """A YAML value (as ruamel gave it) with where it is written."""

    key: Any
    node: Any
    loc: Loc


@attrs.frozen
class Step:
    loc: Loc
    position: list[Entry]
    chance: tuple[Any, ...]
    chance_loc: Loc | None
    decisions: list[Entry]
    expect: list[Entry]


@attrs.frozen
class After:
    """The finished game a scenario continues (`after:`): a saved one, or one played here first
    with seeded random choices; then `position` edits its final state."""

    loc: Loc
    save: Path | None
    modules: tuple[str | Path, ...] | None
    players: int | None
    seed: int
    options: dict[str, Any]
    position: list[Entry]


@attrs.frozen
class Scenario:
    path: Path
    name: str
    modules: tuple[str | Path, ...]
    lang: str
    players: int
    seed: int
    options: dict[str, Any]
    run_until: str
    steps: tuple[Step, ...]
    loc: Loc
    after: After | None = None


# ---- YAML with lines ----
def _line_of(node: Any, key: Any, default: int) -> int:
    try:
        if isinstance(node, CommentedMap):
            return node.lc.key(key)[0] + 1
        if isinstance(node, CommentedSeq):
            return node.lc.item(key)[0] + 1
    except (KeyError, IndexError, TypeError, AttributeError):
        pass
    return default


def _node_line(node: Any, default: int) -> int:
    lc = getattr(node, "lc", None)
    return lc.line + 1 if lc is not None and lc.line is not None else default


def entries(node: Any, loc: Loc, what: str) -> list[Entry]:
    """A mapping's items, each with the location of its key."""
    if not isinstance(node, dict):
        raise ScenarioError(f"{what} should be a mapping, got {_kind(node)}", loc)
    return [Entry(k, v, Loc(loc.file, _line_of(node, k, loc.line))) for k, v in node.items()]


def items(node: Any, loc: Loc, what: str) -> list[Entry]:
    """A sequence's items, each with its location (index as key)."""
    if not isinstance(node, list):
        raise ScenarioError(f"{what} should be a list, got {_kind(node)}", loc)
    return [Entry(i, v, Loc(loc.file, _line_of(node, i, loc.line))) for i, v in enumerate(node)]


def plain(node: Any, loc: Loc) -> Any:
    """A YAML value as the engine holds values: lists become tuples, strings plain `str`."""
    if node is None or isinstance(node, bool):
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, str):
        return str(node)
    if isinstance(node, list):
        return tuple(plain(v, loc) for v in node)
    if isinstance(node, dict):
        return {str(k): plain(v, loc) for k, v in node.items()}
    raise ScenarioError(f"{node!r} is not a value the game can hold (use integers, strings, "
                        "booleans, null and lists)", loc)


def _kind(node: Any) -> str:
    if node is None:
        return "null"
    if isinstance(node, dict):
        return "a mapping"
    if isinstance(node, list):
        return "a list"
    return f"{node!r}"


def _check_keys(entries_: list[Entry], allowed: Iterable[str], what: str) -> None:
    allowed = tuple(allowed)
    for e in entries_:
        if e.key not in allowed:
            hint = did_you_mean(str(e.key), allowed) or f"{what} takes: {', '.join(allowed)}"
            raise ScenarioError(f"unknown key `{e.key}` in {what}; {hint}", e.loc)


# ---- loading ----
def load(path: str | Path) -> Scenario:
    """Read and check the structure of a scenario file.

    Raises:
        ScenarioError: unreadable file, bad YAML, unknown key, wrong shape (with file:line).
    """
    path = Path(path)
    top = _read_yaml(path)
    loc = Loc(str(path), 1)
    fields = {e.key: e for e in entries(top, loc, "a scenario")}
    _check_keys(list(fields.values()), TOP_KEYS, "a scenario")
    return Scenario(
        path=path, name=_text(fields.get("name"), path.stem), modules=_modules(fields, path, loc),
        lang=_text(fields.get("lang"), "en"), players=_int(fields.get("players"), 2, "players"),
        seed=_int(fields.get("seed"), 0, "seed"), options=_options(fields.get("options"), loc),
        run_until=_run_until(fields.get("setup"), loc), steps=_steps(top, fields, loc), loc=loc,
        after=_after(fields.get("after"), path),
    )


def _read_yaml(path: Path) -> Any:
    try:
        text = read_user_file(path, MAX_FILE_BYTES).decode("utf-8")
    except UnreadableFile as err:
        raise ScenarioError(f"cannot read the file: {err.message}", Loc(str(path), 0)) from None
    except UnicodeDecodeError:
        raise ScenarioError("cannot read the file: not UTF-8 text", Loc(str(path), 0)) from None
    try:
        data = load_positioned(text)
    except YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        raise ScenarioError(f"not valid YAML: {getattr(err, 'problem', None) or err}",
                            Loc(str(path), line)) from None
    if data is None:
        raise ScenarioError("the file is empty", Loc(str(path), 1))
    return data


def _text(e: Entry | None, default: str) -> str:
    if e is None:
        return default
    if not isinstance(e.node, str):
        raise ScenarioError(f"`{e.key}` should be a string, got {_kind(e.node)}", e.loc)
    return str(e.node)


def _int(e: Entry | None, default: int, what: str) -> int:
    if e is None:
        return default
    if isinstance(e.node, bool) or not isinstance(e.node, int):
        raise ScenarioError(f"`{what}` should be an integer, got {_kind(e.node)}", e.loc)
    return int(e.node)


def _modules(fields: dict[str, Entry], path: Path, loc: Loc) -> tuple[str | Path, ...]:
    e = fields.get("modules")
    if e is None:
        raise ScenarioError("a scenario needs `modules:`, e.g. `modules: [base]`", loc)
    return _module_list(e, path)


def _module_list(e: Entry, path: Path) -> tuple[str | Path, ...]:
    node = [e.node] if isinstance(e.node, str) else e.node
    found = []
    for item in items(node, e.loc, "`modules`"):
        if not isinstance(item.node, str) or not item.node:
            raise ScenarioError(f"a module is an id or a folder path, got {_kind(item.node)}", item.loc)
        folder = path.parent / str(item.node)
        found.append(folder if ("/" in item.node or item.node.startswith(".")) or folder.is_dir()
                     else str(item.node))
    if not found:
        raise ScenarioError("`modules` is empty: name at least one module", e.loc)
    return tuple(found)


def _options(e: Entry | None, loc: Loc) -> dict[str, Any]:
    if e is None:
        return {}
    return {str(o.key): plain(o.node, o.loc) for o in entries(e.node, e.loc, "`options`")}


def _after(e: Entry | None, path: Path) -> After | None:
    """`after:` (docs/scenarios.md): `save:` a to_json() file, or a seeded game's players, seed,
    options (and modules); `position:` edits the finished state either way."""
    if e is None:
        return None
    fields = {f.key: f for f in entries(e.node, e.loc, "`after`")}
    _check_keys(list(fields.values()), AFTER_KEYS, "`after`")
    played = sorted(set(fields) & {"modules", "players", "seed", "options"})
    if "save" in fields and played:
        raise ScenarioError(f"`after` takes either `save:` (a saved finished game) or the game to play "
                            f"first (`players`, `seed`, `options`, `modules`), not both: drop {', '.join(played)}",
                            fields["save"].loc)
    save = fields.get("save")
    position = fields.get("position")
    pos_entries = entries(position.node, position.loc, "`after.position`") if position else []
    _check_keys(pos_entries, POSITION_KEYS, "`after.position`")
    players = fields.get("players")
    return After(
        loc=e.loc, save=path.parent / _text(save, "") if save else None,
        modules=_module_list(fields["modules"], path) if "modules" in fields else None,
        players=_int(players, 0, "after.players") if players else None,
        seed=_int(fields.get("seed"), 0, "after.seed"), options=_options(fields.get("options"), e.loc),
        position=pos_entries)


def _run_until(e: Entry | None, loc: Loc) -> str:
    if e is None:
        return "first_decision"
    fields = entries(e.node, e.loc, "`setup`")
    _check_keys(fields, ("run_until",), "`setup`")
    for f in fields:
        if f.node not in RUN_UNTIL:
            hint = did_you_mean(str(f.node), RUN_UNTIL)
            raise ScenarioError(f"`run_until` takes {' or '.join(RUN_UNTIL)}, got {_show(f.node)}"
                                + (f"; {hint}" if hint else ""), f.loc)
        return str(f.node)
    return "first_decision"


def _steps(top: Any, fields: dict[str, Entry], loc: Loc) -> tuple[Step, ...]:
    steps = []
    if any(k in fields for k in ("position", "chance", "decisions", "expect")):
        steps.append(_step(top, loc, top=True))
    if "steps" in fields:
        e = fields["steps"]
        steps += [_step(s.node, s.loc) for s in items(e.node, e.loc, "`steps`")]
    if not steps:
        raise ScenarioError("the scenario has nothing to do: add `expect:` (and `decisions:`) or `steps:`",
                            loc)
    return tuple(steps)


def _step(node: Any, loc: Loc, top: bool = False) -> Step:
    fields = {e.key: e for e in entries(node, loc, "a step")}
    if top:  # the scenario's own keys make its first step
        fields = {k: e for k, e in fields.items() if k in STEP_KEYS}
    _check_keys(list(fields.values()), STEP_KEYS, "a step")
    position = fields.get("position")
    chance = fields.get("chance")
    pos_entries = entries(position.node, position.loc, "`position`") if position else []
    _check_keys(pos_entries, POSITION_KEYS, "`position`")
    return Step(
        loc=loc, position=pos_entries,
        chance=_chance(chance), chance_loc=chance.loc if chance else None,
        decisions=_decisions(fields.get("decisions")), expect=_expect(fields.get("expect")),
    )


def _chance(e: Entry | None) -> tuple[Any, ...]:
    if e is None:
        return ()
    node = e.node if isinstance(e.node, list) else [e.node]
    return tuple(plain(i.node, i.loc) for i in items(node, e.loc, "`chance`"))


def _decisions(e: Entry | None) -> list[Entry]:
    if e is None:
        return []
    found = items(e.node, e.loc, "`decisions`")
    for d in found:
        _check_decision(d)
    return found


def _check_decision(d: Entry) -> None:
    if isinstance(d.node, bool):
        raise ScenarioError(f"a decision is an option index, a value or `{{choose: ...}}`, got {d.node!r}",
                            d.loc)
    if not isinstance(d.node, dict):
        plain(d.node, d.loc)
        return
    fields = entries(d.node, d.loc, "a decision")
    _check_keys(fields, DECISION_KEYS, "a decision")
    keys = {f.key for f in fields}
    if len(keys & {"choose", "index"}) != 1:
        raise ScenarioError("a decision needs exactly one of `choose:` (a value or label) and "
                            "`index:` (an option index)", d.loc)


def _expect(e: Entry | None) -> list[Entry]:
    if e is None:
        return []
    blocks = [e] if isinstance(e.node, dict) else items(e.node, e.loc, "`expect`")
    found: list[Entry] = []
    for block in blocks:
        fields = entries(block.node, block.loc, "an expectation")
        _check_keys(fields, CHECKS, "`expect`")
        for f in fields:
            _check_shape(f)
        found += fields
    return found


def _check_shape(f: Entry) -> None:
    shape = CHECKS[f.key][0]
    ok = {"map": isinstance(f.node, dict), "list": isinstance(f.node, list),
          "bool": isinstance(f.node, bool), "str": isinstance(f.node, str),
          "map?": f.node is None or isinstance(f.node, dict)}[shape]
    if not ok:
        want = {"map": "a mapping", "list": "a list", "bool": "true or false", "str": "a string",
                "map?": "a mapping or null"}[shape]
        raise ScenarioError(f"`{f.key}` expects {want}, got {_kind(f.node)}", f.loc)


# ---- running ----
_RULES_CACHE: dict[tuple, Ruleset] = {}


def run_file(path: str | Path, show: bool = False) -> Report:
    """Load and run one scenario file; never raises for a bad file (the report says ERROR).
    With `show`, the report also holds the position after setup and each step's log (`shown`)."""
    try:
        scenario = load(path)
    except ScenarioError as err:
        return Report(str(path), Path(path).stem, error=str(err))
    return run(scenario, show)


def run(scenario: Scenario, show: bool = False) -> Report:
    """Run a loaded scenario and check its expectations."""
    report = Report(str(scenario.path), scenario.name)
    try:
        _Run(scenario, report, show).go()
    except ScenarioError as err:
        report.error = str(err)
    return report


def rules_for(scenario: Scenario, modules: tuple[str | Path, ...] | None = None) -> Ruleset:
    """The scenario's ruleset, or that of `modules` (cached: scenarios of one module share it)."""
    modules = modules or scenario.modules
    key = (tuple(str(Path(m).resolve()) if isinstance(m, Path) else m for m in modules), scenario.lang)
    if key not in _RULES_CACHE:
        try:
            _RULES_CACHE[key] = load_ruleset(*modules, lang=scenario.lang)
        except RulesError as err:
            raise ScenarioError(f"cannot load the modules: {rules_message(err)}", scenario.loc) from None
    return _RULES_CACHE[key]


def rules_message(err: RulesError) -> str:
    """A RulesError's text; diagnostics without a place are shown without `<string>:1:1: E000`."""
    parts = []
    for d in err.diagnostics:
        text = d.concise() if d.span.file != "<string>" else d.message
        parts.append(text + (f" ({d.help})" if d.help else ""))
    return "; ".join(parts) or str(err)


def position_lines(rules: Ruleset, game: Game) -> list[str]:
    """Every counter and every zone that holds something, with what lies there, face down or not
    (what a scenario's author needs to know: where the seed dealt the rooms, who drafted what)."""
    st = game.state
    lines = ["  counters: " + ", ".join(f"{rules.label(k)} {v}" for k, v in sorted(st.counters.items()))]
    for zone, members in st.zones.items():
        if members:
            names = [rules.label(st.entities[e][E_COMP] or e) + ("" if st.entities[e][E_FACE] else " (face down)")
                     for e in members]
            counted = Counter(names)  # in the zone's order, equal names once with their number
            lines.append(f"  {zone}: " + ", ".join(n if counted[n] == 1 else f"{n} ×{counted[n]}" for n in counted))
    return lines


def log_lines(rules: Ruleset, game: Game, start: int) -> list[str]:
    """The log from entry `start` on, as its texts read (every entry, whoever it is addressed to)."""
    return [f"  · {rules.message(e['msg'], e['args'])}" for e in game.state.log[start:]] or ["  (nothing logged)"]


class Stop(Exception):
    """A decision could not be taken: the scenario stops there (already reported)."""


class _Run:
    def __init__(self, scenario: Scenario, report: Report, show: bool = False) -> None:
        self.sc = scenario
        self.report = report
        self.show = show
        self.rules = rules_for(scenario)
        self.game: Game | None = None
        self.error: RulesError | None = None  # the error that stopped this step's decisions
        self.error_at: tuple[Loc, str] = (scenario.loc, "")
        self.log_mark = 0
        self.chance_loc: Loc | None = None

    def go(self) -> None:
        self.game = self._new_game()
        if self.show:
            self.report.shown += [f"position after setup (seed {self.sc.seed}):", *position_lines(self.rules, self.game)]
        try:
            for i, step in enumerate(self.sc.steps):
                self._step(step, first=i == 0)
                if self.show:
                    self.report.shown += [f"log of step {i + 1} (line {step.loc.line}):",
                                          *log_lines(self.rules, self.game, self.log_mark)]
        except Stop:
            return
        self._unused_chance()

    def _new_game(self) -> Game:
        sc = self.sc
        after = finished_game(sc) if sc.after else None
        try:
            if sc.run_until == "start":
                return unstarted_game(self.rules, sc.players, sc.seed, sc.options, after)
            return Game.new(self.rules, players=sc.players, seed=sc.seed, after=after, **sc.options)
        except RulesError as err:
            raise ScenarioError(f"cannot start the game: {rules_message(err)}", sc.loc) from None

    def _step(self, step: Step, first: bool) -> None:
        game = self.game
        self.error = None
        if not first:
            self.log_mark = len(game.state.log)
        apply_position(game, step.position)
        if step.chance:
            game.force(*step.chance)
            self.chance_loc = step.chance_loc
        if first and self.sc.run_until == "start":
            self._guard(step.loc, "starting the game", game.start)
        for d in step.decisions:
            if self.error is not None:
                break
            self._decide(d)
        self._check_all(step)

    def _guard(self, loc: Loc, what: str, action: Callable[[], None]) -> None:
        try:
            action()
        except RulesError as err:
            self.error = err
            self.error_at = (loc, what)

    def _decide(self, d: Entry) -> None:
        game = self.game
        if isinstance(d.node, int) and not isinstance(d.node, bool):
            self._guard(d.loc, f"decision {d.node}", lambda: game.apply(int(d.node)))
            return
        spec = plain(d.node, d.loc) if isinstance(d.node, dict) else {"choose": plain(d.node, d.loc)}
        if "index" in spec:
            self._assert_decider(spec, d.loc)
            self._guard(d.loc, f"decision {spec['index']!r}", lambda: game.apply(spec["index"]))
            return
        index = self._find_option(spec, d.loc)
        self._guard(d.loc, f"decision {_show(spec['choose'])}", lambda: game.apply(index))

    def _assert_decider(self, spec: dict[str, Any], loc: Loc) -> None:
        decision = self.game.decision
        what = f"decision {_show(spec.get('choose', spec.get('index')))}"
        if decision is None:
            self._stop(loc, what, "no decision is pending" + self._why_none())
        if "player" in spec:
            seat = seat_of(self.rules, self.game, spec["player"], loc)
            if decision.player != seat:
                self._stop(loc, what, f"expected player {_show_seat(self.game, seat)} to decide, "
                                      f"but {_show_seat(self.game, decision.player)} decides "
                                      f"({decision.prompt or 'no prompt'})")
        if "prompt" in spec and decision.prompt != spec["prompt"]:
            self._stop(loc, what, f"expected the prompt {spec['prompt']!r}, the decision's is "
                                  f"{decision.prompt!r}")

    def _why_none(self) -> str:
        result = self.game.result
        return f" (the game is over: {_show(result)})" if result is not None else ""

    def _find_option(self, spec: dict[str, Any], loc: Loc) -> int:
        self._assert_decider(spec, loc)
        decision = self.game.decision
        want = spec["choose"]
        matches = [o for o in decision.options if o.value == want and type(o.value) is type(want)]
        if not matches and isinstance(want, str):
            matches = [o for o in decision.options if o.label.casefold() == want.casefold()]
        if len(matches) != 1:
            trouble = "is not an option" if not matches else "matches several options"
            self._stop(loc, f"decision {_show(want)}",
                       f"{_show(want)} {trouble} of player {_show_seat(self.game, decision.player)}'s "
                       f"decision {decision.prompt!r}; options: {_show_options(decision)}")
        return matches[0].index

    def _stop(self, loc: Loc, what: str, message: str) -> None:
        self.report.checks.append(CheckResult(False, loc, what, message + "; the scenario stops here"))
        raise Stop

    def _check_all(self, step: Step) -> None:
        expected_error = any(e.key == "error" for e in step.expect)
        if self.error is not None and not expected_error:
            loc, what = self.error_at
            self._stop(loc, what, f"the game stopped with an error: {self.error}")
        for e in step.expect:
            ok, message = CHECKS[e.key][1](self, e)
            self.report.checks.append(CheckResult(ok, e.loc, _describe(e), message))

    def _unused_chance(self) -> None:
        left = self.game.state.forced
        if left and self.chance_loc is not None and self.error is None:
            self.report.checks.append(CheckResult(
                False, self.chance_loc, "chance",
                f"{len(left)} scripted outcome(s) never used: {_show(tuple(left))}"))


def unstarted_game(rules: Ruleset, players: int, seed: int, options: dict[str, Any],
                   after: Game | None = None) -> Game:
    """A game with its components placed whose entry procedure has not run yet."""
    return Game.new(rules, players=players, seed=seed, autostart=False, after=after, **options)


def finished_game(sc: Scenario) -> Game:
    """The finished game `after:` names: read from its save or played here with seeded random
    choices, then edited by its `position`."""
    af = sc.after
    rules = rules_for(sc, af.modules)
    try:
        game = _saved_game(rules, af) if af.save else _played_game(rules, af, af.players or sc.players)
    except RulesError as err:
        raise ScenarioError(f"`after`: cannot make the finished game: {rules_message(err)}", af.loc) from None
    apply_position(game, af.position)
    return game


def _saved_game(rules: Ruleset, af: After) -> Game:
    try:
        text = read_user_file(af.save, MAX_SAVE_BYTES).decode("utf-8")
    except UnreadableFile as err:
        raise ScenarioError(f"`after`: cannot read the save {af.save}: {err.message}", af.loc) from None
    except UnicodeDecodeError:
        raise ScenarioError(f"`after`: cannot read the save {af.save}: not UTF-8 text", af.loc) from None
    game = Game.from_json(rules, text)
    if not game.over:
        raise ScenarioError(f"`after`: the save {af.save} is a game still going on; it must be finished", af.loc)
    return game


def _played_game(rules: Ruleset, af: After, players: int) -> Game:
    """A game played to its end, each decision a seeded random choice (chance from the game's seed)."""
    game = Game.new(rules, players=players, seed=af.seed, **af.options)
    choices = random.Random(af.seed)
    for _ in range(RANDOM_PLAY_LIMIT):
        if game.over:
            return game
        game.apply(choices.randrange(len(game.decision.options)))
    raise ScenarioError(f"`after`: the game of seed {af.seed} has no result after {RANDOM_PLAY_LIMIT} decisions",
                        af.loc)


# ---- names: entities, zones, players ----
def entity(game: Game, eid: Any, loc: Loc) -> list:
    ent = game.state.entities.get(eid) if isinstance(eid, str) else None
    if ent is None:
        hint = did_you_mean(str(eid), game.state.entities)
        raise ScenarioError(f"no entity `{_show(eid)}`" + (f"; {hint}" if hint else ""), loc)
    return ent


def zone(game: Game, key: Any, loc: Loc) -> list[str]:
    z = game.state.zones.get(key) if isinstance(key, str) else None
    if z is None:
        hint = did_you_mean(str(key), game.state.zones)
        if not hint and isinstance(key, str) and "@" not in key:
            owned = sorted(k for k in game.state.zones if k.startswith(f"{key}@"))
            hint = f"it is a zone per owner: write e.g. `{owned[0]}`" if owned else ""
        raise ScenarioError(f"no zone `{_show(key)}`" + (f"; {hint}" if hint else ""), loc)
    return z


def seat_of(rules: Ruleset, game: Game, who: Any, loc: Loc) -> int:
    """A player given as a seat (an integer from 0, as in the API) or as a player entity id."""
    ids = rules.program.player_ids[:game.state.players]
    if isinstance(who, int) and not isinstance(who, bool) and 0 <= who < len(ids):
        return who
    if isinstance(who, str) and who in ids:
        return ids.index(who)
    hint = did_you_mean(str(who), ids) if isinstance(who, str) else ""
    raise ScenarioError(f"no player {_show(who)}: write a seat from 0 to {len(ids) - 1} or an id "
                        f"({', '.join(ids)})" + (f"; {hint}" if hint else ""), loc)


def _show_seat(game: Game, seat: int) -> str:
    ids = game.rules.program.player_ids
    return f"{seat} ({ids[seat]})" if 0 <= seat < len(ids) else str(seat)


def prop_type(rules: Ruleset, kind: str, prop: str) -> str | None:
    """The declared type of a kind's prop; None when the kind does not declare it."""
    if prop not in rules.program.kind_defaults.get(kind, {}):
        return None
    declared = rules.composition.kinds.get(kind)
    return declared.value.props.get(prop, "any") if declared is not None else "any"


def get_prop(game: Game, eid: str, prop: str, loc: Loc) -> Any:
    ent = entity(game, eid, loc)
    if prop in PSEUDO_PROPS:
        index = {"zone": E_ZONE, "face_up": E_FACE, "kind": E_KIND, "component": E_COMP}[prop]
        return ent[index]
    defaults = game.rules.program.kind_defaults.get(ent[E_KIND], {})
    if prop not in defaults:
        raise ScenarioError(_no_prop(eid, ent[E_KIND], prop, [*defaults, *PSEUDO_PROPS]), loc)
    return ent[E_PROPS].get(prop, defaults[prop])


def _no_prop(eid: str, kind: str, prop: str, known: Iterable[str]) -> str:
    known = list(known)
    hint = did_you_mean(prop, known) or f"its props: {', '.join(known) or 'none'}"
    return f"{eid} (a {kind}) has no prop `{prop}`; {hint}"


# ---- applying a position ----
def apply_position(game: Game, sections: list[Entry]) -> None:
    """Edit the state into the position: zones, then props, face, counters (all validated)."""
    order = {k: i for i, k in enumerate(POSITION_KEYS)}
    for section in sorted(sections, key=lambda s: order[s.key]):
        _SECTIONS[section.key](game, section)


def _place_zones(game: Game, section: Entry) -> None:
    plans = [_zone_plan(game, e) for e in entries(section.node, section.loc, "`position.zones`")]
    listed = _listed_once(plans)
    displaced = {p.key: _displaced(game, p, listed) for p in plans}
    for eid in listed:
        _take_out(game, eid)
    for p in plans:
        for eid in displaced[p.key]:
            _take_out(game, eid)
            _put(game, eid, p.rest, bottom=True)
    for p in plans:
        _fill(game, p)
    for p in plans:
        if p.only is not None and game.state.zones[p.key] != list(p.only):
            raise ScenarioError(f"zone `{p.key}` cannot hold exactly {_show(p.only)}: another zone's "
                                f"`rest` put {_show(tuple(game.state.zones[p.key]))} there", p.loc)


@attrs.frozen
class _ZonePlan:
    key: str
    loc: Loc
    only: tuple[str, ...] | None
    top: tuple[str, ...]
    bottom: tuple[str, ...]
    rest: str | None


def _zone_plan(game: Game, e: Entry) -> _ZonePlan:
    zone(game, e.key, e.loc)
    form = {"only": e.node} if not isinstance(e.node, dict) else e.node
    fields = entries(form, e.loc, f"zone `{e.key}`") if isinstance(e.node, dict) else [
        Entry("only", e.node, e.loc)]
    _check_keys(fields, ZONE_FORM_KEYS, f"zone `{e.key}`")
    got = {f.key: f for f in fields}
    if "only" in got and ("top" in got or "bottom" in got):
        raise ScenarioError(f"zone `{e.key}`: `only` sets the whole zone; it does not go with "
                            "`top`/`bottom`", e.loc)
    rest = plain(got["rest"].node, got["rest"].loc) if "rest" in got else None
    if rest is not None:
        zone(game, rest, got["rest"].loc)
        if rest == e.key:
            raise ScenarioError(f"zone `{e.key}`: `rest` names another zone for the entities it no "
                                "longer holds, not the zone itself", got["rest"].loc)
    return _ZonePlan(str(e.key), e.loc, _ids(game, got.get("only")) if "only" in got else None,
                     _ids(game, got.get("top")), _ids(game, got.get("bottom")), rest)


def _ids(game: Game, e: Entry | None) -> tuple[str, ...]:
    if e is None:
        return ()
    found = items(e.node, e.loc, f"`{e.key}`" if isinstance(e.key, str) else "a zone's list")
    for i in found:
        entity(game, i.node, i.loc)
    return tuple(str(i.node) for i in found)


def _listed_once(plans: list[_ZonePlan]) -> list[str]:
    seen: dict[str, str] = {}
    for p in plans:
        for eid in (*(p.only or ()), *p.top, *p.bottom):
            if eid in seen:
                raise ScenarioError(f"{eid} is placed twice (in `{seen[eid]}` and `{p.key}`)", p.loc)
            seen[eid] = p.key
    return list(seen)


def _displaced(game: Game, p: _ZonePlan, listed: list[str]) -> list[str]:
    if p.only is None:
        return []
    out = [eid for eid in game.state.zones[p.key] if eid not in listed]
    if out and p.rest is None:
        raise ScenarioError(
            f"zone `{p.key}` now holds {_show(tuple(out))}, which the position does not place: "
            f"list them in another zone, or say where they go with "
            f"`{p.key}: {{only: [...], rest: <zone>}}`", p.loc)
    return out


def _take_out(game: Game, eid: str) -> None:
    ent = game.state.entities[eid]
    if ent[E_ZONE] is not None:
        game.state.zones[ent[E_ZONE]].remove(eid)
        ent[E_ZONE] = None


def _put(game: Game, eid: str, key: str, bottom: bool) -> None:
    z = game.state.zones[key]
    z.append(eid) if bottom else z.insert(0, eid)
    game.state.entities[eid][E_ZONE] = key


def _fill(game: Game, p: _ZonePlan) -> None:
    for eid in p.only or ():
        _put(game, eid, p.key, bottom=True)
    for eid in reversed(p.top):
        _put(game, eid, p.key, bottom=False)
    for eid in p.bottom:
        _put(game, eid, p.key, bottom=True)


def _set_props(game: Game, section: Entry) -> None:
    for e in entries(section.node, section.loc, "`position.props`"):
        ent = entity(game, e.key, e.loc)
        for p in entries(e.node, e.loc, f"the props of {e.key}"):
            ent[E_PROPS][p.key] = _prop_value(game, str(e.key), ent[E_KIND], p)


def _prop_value(game: Game, eid: str, kind: str, p: Entry) -> Any:
    declared = prop_type(game.rules, kind, p.key)
    if declared is None:
        known = game.rules.program.kind_defaults.get(kind, {})
        extra = "; set `face_up` under `face:` and the zone under `zones:`" if p.key in PSEUDO_PROPS else ""
        raise ScenarioError(_no_prop(eid, kind, str(p.key), known) + extra, p.loc)
    value = plain(p.node, p.loc)
    if not _fits(game, declared, value):
        raise ScenarioError(f"prop `{p.key}` of {eid} is {declared}, got {_show(value)}", p.loc)
    return value


def _fits(game: Game, declared: str, value: Any) -> bool:
    comp = game.rules.composition
    return _fits_type(game, parse_type(declared, comp.kinds, {n: d.value for n, d in comp.types.items()})[0], value)


def _fits_type(game: Game, t: PropType, value: Any) -> bool:
    if value is None:
        return True
    if t.base == "list" and t.item is not None:
        return isinstance(value, tuple) and all(_fits_type(game, t.item, v) for v in value)
    if t.base == "set":
        return value in t.members
    if t.base in ("entity", "kind"):
        ok = isinstance(value, str) and value in game.state.entities
        return ok and (t.kind is None or game.state.entities[value][E_KIND] == t.kind)
    check = {"int": lambda v: isinstance(v, int) and not isinstance(v, bool),
             "bool": lambda v: isinstance(v, bool), "symbol": lambda v: isinstance(v, str),
             "str": lambda v: isinstance(v, str), "list": lambda v: isinstance(v, tuple)}
    return check.get(t.base, lambda v: True)(value)


def _set_face(game: Game, section: Entry) -> None:
    for e in entries(section.node, section.loc, "`position.face`"):
        ent = entity(game, e.key, e.loc)
        ent[E_FACE] = _face(e)


def _face(e: Entry) -> bool:
    if e.node in ("up", True):
        return True
    if e.node in ("down", False):
        return False
    raise ScenarioError(f"the face of {e.key} is `up` or `down`, got {_show(e.node)}", e.loc)


def _set_counters(game: Game, section: Entry) -> None:
    known = game.rules.program.counters
    for e in entries(section.node, section.loc, "`position.counters`"):
        if e.key not in known:
            hint = did_you_mean(str(e.key), known) or f"counters: {', '.join(known) or 'none'}"
            raise ScenarioError(f"no counter `{e.key}`; {hint}", e.loc)
        lo, hi = known[e.key][0], known[e.key][1]
        if isinstance(e.node, bool) or not isinstance(e.node, int) or not lo <= e.node <= hi:
            raise ScenarioError(f"counter `{e.key}` takes an integer from {lo} to {hi}, got "
                                f"{_show(e.node)}", e.loc)
        game.state.counters[str(e.key)] = int(e.node)


def _lay_links(game: Game, section: Entry) -> None:
    """`link: [a, b, label at a, label at b]` (labels optional): laid as `connect` lays it."""
    if not game.rules.program.grows:
        raise ScenarioError("these rules never lay a link in play (`connect`): no links to place", section.loc)
    runtime = vm.Runtime(game.rules.program, game.state)
    for e in entries(section.node, section.loc, "`position.links`"):
        row = plain(e.node, e.loc)
        if not isinstance(row, tuple) or not 2 <= len(row) <= 4:
            raise ScenarioError(f"link {e.key}: write `[a, b]` or `[a, b, label at a, label at b]`, got "
                                f"{_show(row)}", e.loc)
        a, b, label_a, label_b = (*row, None, None)[:4]
        try:
            runtime.lay_link(str(e.key), a, b, label_a, label_b)
        except ScriptError as err:
            raise ScenarioError(f"cannot lay {e.key}: {err}", e.loc) from None


_SECTIONS: dict[str, Callable[[Game, Entry], None]] = {
    "zones": _place_zones, "props": _set_props, "face": _set_face, "counters": _set_counters,
    "links": _lay_links,
}


# ---- expectations ----
Verdict = tuple[bool, str]


def _describe(e: Entry) -> str:
    if isinstance(e.node, dict) and len(e.node) == 1:
        return f"{e.key} {next(iter(e.node))}"
    return str(e.key)


def _compare(what: str, expected: Any, actual: Any) -> Verdict:
    if expected == actual and _same_types(expected, actual):
        return True, ""
    return False, f"{what}: expected {_show(expected)}, got {_show(actual)}"


def _same_types(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return all(_same_types(x, y) for x, y in zip(a, b, strict=False))
    return isinstance(a, bool) == isinstance(b, bool)


def _all(verdicts: Iterable[Verdict]) -> Verdict:
    bad = [m for ok, m in verdicts if not ok]
    return (not bad, "; ".join(bad))


def check_zone(run: _Run, e: Entry) -> Verdict:
    return _all(_compare(f"zone `{z.key}` (top first)", _ids(run.game, z),
                         tuple(zone(run.game, z.key, z.loc)))
                for z in entries(e.node, e.loc, "`zone`"))


def check_zone_size(run: _Run, e: Entry) -> Verdict:
    return _all(_compare(f"size of zone `{z.key}`", plain(z.node, z.loc), len(zone(run.game, z.key, z.loc)))
                for z in entries(e.node, e.loc, "`zone_size`"))


def check_contains(run: _Run, e: Entry, present: bool = True) -> Verdict:
    verdicts = []
    for z in entries(e.node, e.loc, f"`{e.key}`"):
        held = zone(run.game, z.key, z.loc)
        wrong = [eid for eid in _ids(run.game, z) if (eid in held) != present]
        if wrong:
            verdicts.append((False, f"zone `{z.key}` {'lacks' if present else 'holds'} "
                                    f"{_show(tuple(wrong))}; it holds {_show(tuple(held))}"))
    return _all(verdicts)


def check_excludes(run: _Run, e: Entry) -> Verdict:
    return check_contains(run, e, present=False)


def check_props(run: _Run, e: Entry) -> Verdict:
    verdicts = []
    for ent in entries(e.node, e.loc, "`props`"):
        for p in entries(ent.node, ent.loc, f"the props of {ent.key}"):
            actual = get_prop(run.game, ent.key, str(p.key), p.loc)
            verdicts.append(_compare(f"{ent.key}.{p.key}", plain(p.node, p.loc), actual))
    return _all(verdicts)


def check_face(run: _Run, e: Entry) -> Verdict:
    return _all(_compare(f"face of {f.key}", "up" if _face(f) else "down",
                         "up" if entity(run.game, f.key, f.loc)[E_FACE] else "down")
                for f in entries(e.node, e.loc, "`face`"))


def check_counters(run: _Run, e: Entry) -> Verdict:
    known = run.game.state.counters
    verdicts = []
    for c in entries(e.node, e.loc, "`counters`"):
        if c.key not in known:
            hint = did_you_mean(str(c.key), known) or f"counters: {', '.join(known) or 'none'}"
            raise ScenarioError(f"no counter `{c.key}`; {hint}", c.loc)
        verdicts.append(_compare(f"counter `{c.key}`", plain(c.node, c.loc), known[c.key]))
    return _all(verdicts)


def check_result(run: _Run, e: Entry) -> Verdict:
    result = run.game.result
    if e.node is None:
        return _compare("result", None, result)
    want = _expected_result(run, e)
    if result is None:
        return False, f"expected the game to end with {_show(want)}, but it is not over"
    return _all(_compare(f"result {k}" + (" (seats)" if k == "winners" else ""), v, tuple(result[k])
                         if k == "winners" else result[k]) for k, v in want.items())


def _expected_result(run: _Run, e: Entry) -> dict[str, Any]:
    want: dict[str, Any] = {}
    for f in entries(e.node, e.loc, "`result`"):
        _check_keys([f], ("reason", "winners"), "`result`")
        if f.key == "reason":
            want["reason"] = plain(f.node, f.loc)
        else:
            want["winners"] = tuple(sorted(seat_of(run.rules, run.game, w.node, w.loc)
                                           for w in items(f.node, f.loc, "`winners`")))
    return want


def check_over(run: _Run, e: Entry) -> Verdict:
    verdict = _compare("game over", bool(e.node), run.game.over)
    if not verdict[0] and run.game.over:
        return False, verdict[1] + f" (result {_show(run.game.result)})"
    return verdict


def check_decision(run: _Run, e: Entry) -> Verdict:
    d = run.game.decision
    if e.node is None:
        return (True, "") if d is None else (False, f"expected no decision, got {_show_decision(run.game)}")
    if d is None:
        return False, "expected a decision, but none is pending" + run._why_none()
    fields = entries(e.node, e.loc, "`decision`")
    _check_keys(fields, ("player", "prompt", "options", "includes", "excludes", "optional", "unavailable"),
                "`decision`")
    return _all(_decision_field(run, d, f) if f.key != "unavailable" else _unavailable(run, d, f) for f in fields)


def _unavailable(run: _Run, d: Any, f: Entry) -> Verdict:
    """`unavailable: {action: text}`: the action is listed as not offered with a reason holding
    the text (in the scenario's language); `action: null`: it is not listed."""
    listed = {u["action"]: u["reason"] for u in unavailable_actions(run.game, d.player)}
    verdicts = []
    for item in entries(f.node, f.loc, "`unavailable`"):
        want = plain(item.node, item.loc)
        got = listed.get(item.key)
        ok = got is None if want is None else got is not None and str(want).lower() in got.lower()
        verdicts.append((ok, "" if ok else f"unavailable {item.key}: expected {_show(want)}, got {_show(got)}; "
                                          f"listed: {_show(listed)}"))
    return _all(verdicts)


def _decision_field(run: _Run, d: Any, f: Entry) -> Verdict:
    values = tuple(o.value for o in d.options[:len(d.options) - d.optional])
    want = plain(f.node, f.loc)
    if f.key == "player":
        return _compare("deciding player (seat)", seat_of(run.rules, run.game, want, f.loc), d.player)
    if f.key == "prompt":
        return _compare("decision prompt", want, d.prompt)
    if f.key == "optional":
        return _compare("decision optional (may pass)", want, d.optional)
    if f.key == "options":
        return _compare("decision options", want, values)
    present = f.key == "includes"
    wrong = tuple(v for v in (want if isinstance(want, tuple) else (want,)) if (v in values) != present)
    return (not wrong, f"decision options {'lack' if present else 'include'} {_show(wrong)}; "
                       f"they are {_show(values)}" if wrong else "")


def _show_decision(game: Game) -> str:
    d = game.decision
    return f"player {_show_seat(game, d.player)} deciding {d.prompt!r} among {_show_options(d)}"


def check_log(run: _Run, e: Entry, present: bool = True) -> Verdict:
    log = run.game.log[run.log_mark:]
    verdicts = []
    for item in items(e.node, e.loc, f"`{e.key}`"):
        want = plain(item.node, item.loc)
        _log_matches({"msg": "", "args": {}, "text": ""}, want, item.loc)  # check its shape
        found = any(_log_matches(entry, want, item.loc) for entry in log)
        if found != present:
            verdicts.append((False, f"{'no' if present else 'a'} log entry matches {_show(want)}; "
                                    f"the log of this step: {_show_log(log)}"))
    return _all(verdicts)


def check_log_excludes(run: _Run, e: Entry) -> Verdict:
    return check_log(run, e, present=False)


def _log_matches(entry: dict[str, Any], want: Any, loc: Loc) -> bool:
    if isinstance(want, str):
        return entry["msg"] == want or want in entry["text"]
    if not isinstance(want, dict) or not set(want) <= {"msg", "args", "text"}:
        raise ScenarioError("a log entry to find is a text, a message key, or a mapping of "
                            "`msg`, `args`, `text`", loc)
    args = want.get("args") or {}
    return (want.get("msg", entry["msg"]) == entry["msg"] and want.get("text", "") in entry["text"]
            and all(entry["args"].get(k) == v for k, v in args.items()))


def _show_log(log: list[dict[str, Any]]) -> str:
    if not log:
        return "(empty)"
    shown = [f"{x['msg']}: {x['text']!r}" for x in log[-8:]]
    return ("..., " if len(log) > 8 else "") + "; ".join(shown)


def check_error(run: _Run, e: Entry) -> Verdict:
    if run.error is None:
        return False, f"expected an error containing {e.node!r}, but the decisions ran without one"
    if str(e.node) in str(run.error):
        return True, ""
    return False, f"expected an error containing {e.node!r}, got: {run.error}"


def check_links(run: _Run, e: Entry) -> Verdict:
    """`link: [a, b, label at a, label at b]` laid so (labels optional), or `link: null`: not laid."""
    laid = {row[0]: row[1:] for row in run.game.state.links}
    verdicts = []
    for c in entries(e.node, e.loc, "`links`"):
        want = plain(c.node, c.loc)
        got = laid.get(str(c.key))
        if want is not None and isinstance(want, tuple) and got is not None:
            got = got[:len(want)]
        verdicts.append(_compare(f"link {c.key}", want, got))
    return _all(verdicts)


CHECKS: dict[str, tuple[str, Callable[[_Run, Entry], Verdict]]] = {
    "zone": ("map", check_zone),
    "zone_size": ("map", check_zone_size),
    "contains": ("map", check_contains),
    "excludes": ("map", check_excludes),
    "props": ("map", check_props),
    "face": ("map", check_face),
    "counters": ("map", check_counters),
    "links": ("map", check_links),
    "result": ("map?", check_result),
    "over": ("bool", check_over),
    "decision": ("map?", check_decision),
    "log_contains": ("list", check_log),
    "log_excludes": ("list", check_log_excludes),
    "error": ("str", check_error),
}


# ---- showing values ----
def _show(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_show(v)}" for k, v in value.items()) + "}"
    return str(value)


def _show_options(decision: Any) -> str:
    return ", ".join(f"{o.index}: {_show(o.value)}" + (f" ({o.label})" if o.label != _show(o.value) else "")
                     for o in decision.options)
