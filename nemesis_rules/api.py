"""The public surface: load rules, play a game, see it as a player, save and load it.

    rules = load_ruleset("base", lang="pl")
    game = Game.new(rules, players=4, seed=7)
    while not game.over:
        game.apply(game.decision.options[0])
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from nemesis_rules.dsl import template as template_text
from nemesis_rules.dsl.diagnostics import (
    Diagnostic,
    IllegalMoveError,
    RulesError,
    brief,
    did_you_mean,
)
from nemesis_rules.engine import rng, savecheck, savefmt, vm
from nemesis_rules.engine.compile import build_program
from nemesis_rules.engine.limits import MAX_FIELD_TEXT
from nemesis_rules.engine.program import Program
from nemesis_rules.engine.state import (
    DIGEST_KEY,
    E_COMP,
    E_FACE,
    E_KIND,
    E_PROPS,
    E_ZONE,
    LONG_NUMBER,
    GameState,
    canonical_json,
    digest,
    parse_json,
)
from nemesis_rules.engine.view import view as redact
from nemesis_rules.ruleset import cache as ruleset_cache
from nemesis_rules.ruleset import load as load_mod
from nemesis_rules.ruleset.compose import Composition, compose
from nemesis_rules.ruleset.records import OptionSpec, PlayerRange
from nemesis_rules.ruleset.validate import BASE_LANG, validate


@attrs.define(eq=False)
class Ruleset:
    """Composed, checked and compiled modules, with the message catalog of one language."""

    modules: tuple[str, ...]
    lang: str
    program: Program
    # the composition, or a function giving it (a warm load reads it from the cache when asked)
    _composition: Composition | Callable[[], Composition] = attrs.field(alias="composition", repr=False)
    players: PlayerRange
    options: dict[str, OptionSpec]
    fingerprint: str
    warnings: list[Diagnostic]
    names: dict[str, str]
    messages: dict[str, str]
    readings: dict[str, str]  # how a call of a procedure or function reads in a card's text (catalog `readings:`)
    # message texts already written, by key and the repr of their arguments (a repr tells True from
    # 1, as `label` does): every view writes the whole log again. A change to `names` or
    # `messages` after texts were written is not seen by those texts.
    _texts: dict[tuple[str, str], str] = attrs.field(factory=dict, init=False, repr=False)
    # what a card's face reads (cli/render.with_text), by component, kind and label: every update
    # of `nemesis serve` reads the seat's cards again, and their scripts do not change
    faces: dict[tuple, str] = attrs.field(factory=dict, init=False, repr=False, eq=False)

    @property
    def composition(self) -> Composition:
        """The modules as composed and checked (their declarations, scripts and catalogs)."""
        if not isinstance(self._composition, Composition):
            self._composition = self._composition()
        return self._composition

    def label(self, value: Any) -> str:
        """A value as a player reads it, in this ruleset's language."""
        if value is None:
            return self.names.get("pass", "pass")
        if isinstance(value, bool):
            return self.names.get(str(value).lower(), str(value).lower())
        if isinstance(value, int):
            return str(value)
        if isinstance(value, tuple):
            return ", ".join(self.label(v) for v in value)
        text = str(value)
        if text in self.names:
            return self.names[text]
        if text in self.program.player_ids:
            return f"{self.names.get('player', 'Player')} {text.removeprefix('player')}"
        base, _, number = text.partition("#")  # a copy reads as its component: the number is no name
        if number.isdigit() and base:  # `#5` alone is a number to show, no copy
            return self.names.get(base) or base.replace("_", " ")
        return text.replace("_", " ")

    def message(self, key: str, args: dict[str, Any] | None = None) -> str:
        """The text of a message (`messages`), its `{name}` fields filled with the arguments'
        labels; a key with no text reads as its label and arguments."""
        if not isinstance(key, str) or not (args is None or isinstance(args, dict)):
            raise RulesError(f"message takes a key (text) and its arguments (a dict or None), got {brief(key)}, {brief(args)}")
        known = (key, repr(args))
        text = self._texts.get(known)
        if text is None:
            if len(self._texts) >= MAX_TEXTS:
                self._texts.clear()
            text = self._texts[known] = self._message(key, args)
        return text

    def _message(self, key: str, args: dict[str, Any] | None) -> str:
        template = self.messages.get(key)
        if template is None:
            return self.label(key) if not args else f"{key}: " + ", ".join(
                f"{k}={self.label(v)}" for k, v in args.items())
        args = args or {}

        def fill(m: re.Match) -> str:
            name, choices = m.group(1), m.group(2)
            if name is None:
                return m.group()[0]  # `{{` and `}}` stand for one brace
            if name not in args:
                return m.group()
            text = template_text.choose_text(args[name], choices) if choices else self.label(args[name])
            return text if len(text) <= MAX_FIELD_TEXT else text[:MAX_FIELD_TEXT] + "…"

        # only `{name}` and `{name|key=text|text}`: no attribute, index or format spec can reach
        # Python (lint E603 says so)
        return template_text.FIELD.sub(fill, template)


MAX_TEXTS = 50_000  # message texts a Ruleset keeps (about a hundred games' worth of log lines)


def load_ruleset(*modules: str | Path, lang: str = "en", search: list[Path] | None = None,
                 absolute_requires: bool = False) -> Ruleset:
    """Load, compose, check and compile modules (ids under rulesets/ or folder paths, or one list of them).

    A module's `requires:` names module ids or folders relative to it; absolute paths only
    with `absolute_requires=True`.

    Raises:
        RulesError: with every error diagnostic, if any module has errors.
    """
    if len(modules) == 1 and isinstance(modules[0], (list, tuple)):
        modules = tuple(modules[0])  # load_ruleset(["base", "aftermath"]) is load_ruleset("base", "aftermath")
    if not modules:
        raise RulesError("load_ruleset() needs at least one module, e.g. load_ruleset(\"base\")")
    wrong = [m for m in modules if not isinstance(m, (str, Path))]
    if wrong:
        raise RulesError(f"load_ruleset() takes module ids or folders, not {wrong[0]!r}, "
                         'e.g. load_ruleset("base", "aftermath") or load_ruleset(["base", "aftermath"])')
    if not isinstance(lang, str):
        raise RulesError(f"lang must be a language code such as \"en\" or \"pl\", got {lang!r}")
    try:
        return _load(modules, lang, search, absolute_requires)
    except RulesError:
        raise
    except Exception as err:  # a bug of ours must still reach the caller as a clear error
        raise RulesError(Diagnostic("E999", f"internal error while loading {list(map(str, modules))}: "
                                    f"{type(err).__name__}: {err}", help="please report this")) from err


def _load(modules, lang: str, search: list[Path] | None, absolute_requires: bool = False) -> Ruleset:
    """Compose, check and compile; a warm load takes the built program from the disk cache
    (ruleset/cache.py) while the module files are unchanged, and the composition when asked."""
    with ruleset_cache.collector_paused():
        return _load_unpaused(list(modules), lang, search, absolute_requires)


def _load_unpaused(modules: list, lang: str, search: list[Path] | None, absolute_requires: bool) -> Ruleset:
    editing = load_mod._EDITING.get() is not None  # an editor's unsaved text is not on disk
    cached = None if editing else ruleset_cache.load(modules, search, absolute_requires)
    if cached is not None:
        head, program, comp = cached.head, cached.program, cached.composition
    else:
        started = time.time_ns()
        comp = _checked(modules, search, absolute_requires)
        program = build_program(comp, comp.players.max)
        head = _head(comp)
        if not editing:
            ruleset_cache.store(modules, search, absolute_requires, comp, program, head, started)
    langs = set(head["catalogs"]) | {BASE_LANG}
    if lang not in langs:
        raise RulesError(Diagnostic("E309", f"no `{lang}` translation for {', '.join(head['ids'])}",
                                    help=did_you_mean(lang, langs) or f"languages: {', '.join(sorted(langs))}"))
    names, messages, readings = catalog_sections(head["catalogs"], lang)
    return Ruleset(
        modules=head["ids"], lang=lang, program=program, composition=comp, players=head["players"],
        options=dict(head["options"]), fingerprint=head["fingerprint"], warnings=list(head["warnings"]),
        names=names, messages=messages, readings=readings,
    )


def _head(comp: Composition) -> dict[str, Any]:
    """What a Ruleset needs of its composition besides the program (kept beside it by the cache)."""
    return {"ids": comp.ids, "catalogs": comp.catalogs, "players": comp.players, "options": comp.options,
            "fingerprint": _fingerprint(comp), "warnings": [d for d in comp.diagnostics if not d.is_error]}


def _checked(modules: list, search: list[Path] | None, absolute_requires: bool) -> Composition:
    comp = compose(modules, search, absolute_requires=absolute_requires)
    validate(comp)
    errors = [d for d in comp.diagnostics if d.is_error]
    if errors:
        raise RulesError(errors)
    return comp


def catalog_sections(catalogs: dict, lang: str) -> tuple[dict[str, str], ...]:
    """The catalog of `lang` over the English one: its names, messages and readings."""
    merged = {k: d.value for k, d in catalogs.get(BASE_LANG, {}).items()}
    merged.update({k: d.value for k, d in catalogs.get(lang, {}).items()})
    return tuple({k.split(".", 1)[1]: v for k, v in merged.items() if k.startswith(f"{section}.")}
                 for section in ("names", "messages", "readings"))


def _fingerprint(comp: Composition) -> str:
    digest = hashlib.sha256()
    for m in comp.modules:
        digest.update(m.id.encode())
        for path in sorted(m.sources):
            if "/i18n/" not in path:
                digest.update(m.sources[path].encode())
    return f"{'+'.join(comp.ids)}@{digest.hexdigest()[:16]}"


class _Frozen:
    """Immutable records whose texts (labels) are worked out at their first read: a bot that reads
    only values never pays for them. They compare and print as the attrs records they were."""

    __slots__ = ()
    _eq: tuple[str, ...] = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise attrs.exceptions.FrozenInstanceError

    def __delattr__(self, name: str) -> None:
        raise attrs.exceptions.FrozenInstanceError

    def _fields(self) -> tuple:
        return tuple(getattr(self, name) for name in self._eq)

    def __eq__(self, other: object) -> bool:
        return other.__class__ is self.__class__ and self._fields() == other._fields()

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self._shown)})"

    def __reduce__(self):
        return (type(self), tuple(getattr(self, n) for n in self._shown))


class Option(_Frozen):
    """One option of a decision: its stable index, its value (the machine form) and its label (the
    value as a player reads it; `rules.label(value)` when not given)."""

    __slots__ = ("index", "value", "_label", "_rules")
    _eq = _shown = ("index", "value", "label")

    def __init__(self, index: int, value: Any, label: str | None = None, rules: Ruleset | None = None) -> None:
        init = object.__setattr__
        init(self, "index", index)
        init(self, "value", value)
        init(self, "_label", label)
        init(self, "_rules", rules)

    @property
    def label(self) -> str:
        if self._label is None:
            object.__setattr__(self, "_label", self._rules.label(self.value))
        return self._label


class Decision(_Frozen):
    """Who decides (a seat), the prompt (a message key), its text (`rules.message(prompt)` when not
    given), the options and whether passing is allowed (then the last option, of value None).
    `len(decision)` is the number of options, `value_of(i)` the value of the i-th."""

    __slots__ = ("player", "prompt", "_text", "_options", "_values", "optional", "_rules")
    _eq = ("player", "prompt", "text", "optional")  # not the options (as before)
    _shown = ("player", "prompt", "text", "options", "optional")

    def __init__(self, player: int, prompt: str, text: str | None, options, optional: bool = False,
                 rules: Ruleset | None = None) -> None:
        options = tuple(options)
        self._init(player, prompt, text, options, tuple(o.value for o in options[:len(options) - bool(optional)]),
                   optional, rules)

    def _init(self, player, prompt, text, options, values, optional, rules) -> None:
        init = object.__setattr__
        init(self, "player", player)
        init(self, "prompt", prompt)
        init(self, "_text", text)
        init(self, "_options", options)
        init(self, "_values", values)
        init(self, "optional", optional)
        init(self, "_rules", rules)

    @classmethod
    def pending(cls, rules: Ruleset, player: int, prompt: str, values: tuple, optional: bool) -> Decision:
        """A decision whose texts and `Option`s are made at their first read (most bots read only
        how many options there are)."""
        decision = cls.__new__(cls)
        decision._init(player, prompt, None, None, values, optional, rules)
        return decision

    @property
    def text(self) -> str:
        if self._text is None:
            object.__setattr__(self, "_text", self._rules.message(self.prompt) if self.prompt else "")
        return self._text

    @property
    def options(self) -> tuple[Option, ...]:
        if self._options is None:
            rules, values = self._rules, self._values
            options = [Option(i, v, None, rules) for i, v in enumerate(values)]
            if self.optional:
                options.append(Option(len(values), None, None, rules))
            object.__setattr__(self, "_options", tuple(options))
        return self._options

    def __len__(self) -> int:
        return len(self._values) + bool(self.optional)

    def __bool__(self) -> bool:  # a decision is true, as before `len` (never 0 anyway)
        return True

    def value_of(self, index: int) -> Any:
        """The value of option `index` (a valid index: None for the pass).

        Raises:
            RulesError: `index` is not the index of an option.
        """
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(self):
            raise RulesError(f"no option {brief(index)}: the decision has options 0 to {len(self) - 1}")
        return self._values[index] if index < len(self._values) else None


class Game:
    """One game: a ruleset and a state. Create with `Game.new` or `Game.from_json`."""

    def __init__(self, rules: Ruleset, state: GameState) -> None:
        self.rules = rules
        self._state = state
        self._runtime = vm.Runtime(rules.program, state)  # its state may be edited from outside
        self._decision: Decision | None = None
        self._broken: RulesError | None = None

    @classmethod
    def _of(cls, rules: Ruleset, state: GameState) -> Game:
        """A game of a state nobody else holds: its runtime keeps function results from one
        run to the next (vm.Runtime.exposed) until someone reads `state`."""
        game = cls(rules, state)
        game._runtime.exposed = False
        return game

    @property
    def state(self) -> GameState:
        """The game's state. Whoever has it may change it between moves: from now on every run
        computes the rules' functions afresh (vm.Runtime.exposed)."""
        self._runtime.exposed = True
        return self._state

    @property
    def move_count(self) -> int:
        """How many decisions have been taken (len(state.moves), without reading `state`)."""
        return len(self._state.moves)

    # ---- making games ----
    @classmethod
    def new(cls, rules: Ruleset, players: int = 4, seed: int = 0, explicit_chance: bool = False,
            autostart: bool = True, ask_forced: bool = False, after: Game | None = None,
            put_in_play: tuple[str, ...] = (), **options: Any) -> Game:
        """A new game, run up to its first decision.

        With `explicit_chance`, every die roll, pick and random draw waits as a chance node
        (`chance_outcomes()`, `apply_chance()`) instead of using the seeded generator; shuffles
        still use the generator. With `autostart=False` the components are placed but the entry
        procedure has not run: edit the position or `force()` outcomes, then call `start()`.
        With `ask_forced`, a choice with a single option waits like any other (a frontend that
        shows every step); by default it is taken without asking.
        With `after` (a finished game, of these rules or of rules they build on), the new game
        continues that game's final state: every entity both games have keeps its zone (where this
        game has that zone), props and face, and every counter both have keeps its value; the
        players are new (the old ones' props stay readable with `prior_players(prop)`, the old
        result with `prior_result()`). The entry procedure then runs as usual (docs/saves.md).
        With `put_in_play` (component ids), the rules put one of each into play once setup is done
        (`asked_in_play()`, `put_in_play(e)`: the procedure its kind names under `in_play:`), so a
        test exercises a card (`nemesis simulate --with`).

        Raises:
            RulesError: bad player count, seed or option; `after` not a finished game; or a rules
                error during setup.
        """
        if not isinstance(rules, Ruleset):
            raise RulesError(f"Game.new takes the rules from load_ruleset(...), got {brief(rules)}")
        _check_players(rules, players)
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= savecheck.MAX_SEED:
            raise RulesError(f"seed must be an integer from 0 to 2**64 - 1, got {brief(seed)}")
        state = GameState(players, seed, _options(rules, options), rules.fingerprint)
        state.rng = rng.seed_state(seed)
        state.explicit_chance = bool(explicit_chance)
        state.ask_forced = bool(ask_forced)
        state.asked = _asked(rules, put_in_play)
        savefmt.place_components(rules.program, state)
        if after is not None:
            _carry_over(rules.program, after, state)
        game = cls._of(rules, state)
        if autostart:
            game.start()
        return game

    def start(self) -> None:
        """Run the entry procedure of a game made with `autostart=False`, up to its first decision.

        Raises:
            IllegalMoveError: the game has already started.
            RulesError: a rules error during setup.
        """
        if self._state.stack or self._state.pending or self._state.result or self._state.log:
            raise IllegalMoveError("the game has already started")
        self._guarded(vm.start)

    @classmethod
    def from_json(cls, rules: Ruleset, text: str | bytes, verify: str = "digest") -> Game:
        """A game saved with `to_json`, continuing exactly where it stopped.

        Every save is checked field by field against the rules first (entities and zones agree,
        the interpreter's frames fit the procedures, the pending decision is the one the rules ask,
        counters are in bounds). `verify` says what else proves it genuine (see docs/saves.md):

        * `"digest"` (default): its `_digest` seal must match, so a bit flip or a hand edit is
          refused. Right for a player's own save file.
        * `"replay"`: its recorded moves are replayed from its seed and the result must be this
          very state (the digest is not needed). The authoritative check for a server.
        * `"structure"`: the field checks only; for tools and tests that edit positions on purpose.

        Raises:
            RulesError: the text is not a saved game of these rules, or not a genuine one.
        """
        if not isinstance(rules, Ruleset):
            raise RulesError(f"Game.from_json takes the rules from load_ruleset(...), got {brief(rules)}")
        if verify not in VERIFY_MODES:
            raise RulesError(f"verify must be one of {', '.join(VERIFY_MODES)}, got {verify!r}")
        state = _load_checked(rules, text, verify == "digest")
        if verify == "replay":
            _check_replay(rules, state)
        return cls._of(rules, state)

    def clone(self) -> Game:
        """A copy that plays on on its own; a copy of a game the rules broke stays broken."""
        twin = Game._of(self.rules, self._state.clone())
        twin._broken = self._broken
        return twin

    def to_json(self) -> str:
        """The compact save (docs/saves.md), canonical JSON: equal states give equal text.

        Raises:
            RulesError: the rules failed while running on (`apply`): the game stopped inside a
                step, a place no save can hold (its checks would refuse it).
        """
        if self._broken is not None:
            raise RulesError(f"a game the rules broke cannot be saved: {self._broken}")
        return savefmt.encode(self.rules.program, self._state)

    # ---- playing ----
    @property
    def over(self) -> bool:
        return self._state.result is not None or (not self._state.stack and self._state.pending is None)

    @property
    def result(self) -> dict[str, Any] | None:
        """How the game ended (a copy), or None while it goes on."""
        if self._state.result is None and self.over:
            return {"reason": "ended", "winners": ()}
        return dict(self._state.result) if self._state.result is not None else None

    @property
    def is_chance_node(self) -> bool:
        return self._state.pending is not None and self._state.pending["player"] == -1

    def chance_outcomes(self) -> list[tuple[Any, float]]:
        """At a chance node: each possible outcome with its probability (else an empty list)."""
        if not self.is_chance_node:
            return []
        outcomes = self._state.pending["options"]
        counts: dict[Any, int] = {}
        for value in outcomes:
            counts[value] = counts.get(value, 0) + 1
        return [(value, n / len(outcomes)) for value, n in counts.items()]

    def apply_chance(self, outcome: Any) -> None:
        """Resolve the chance node with one of its outcomes.

        Raises:
            IllegalMoveError: not at a chance node, or not a possible outcome; nothing changes.
        """
        if self._broken is not None:
            raise self._broken
        if not self.is_chance_node:
            raise IllegalMoveError("not at a chance node: " + ("the game is over" if self.over else
                                   "a player decides here (use apply)"))
        outcomes = self._state.pending["options"]
        index = next((i for i, v in enumerate(outcomes) if _same(v, outcome)), None)
        if index is None:
            raise IllegalMoveError(f"{brief(outcome)} is not an outcome of the pending chance node")
        self._state.chances.append(index)
        self._guarded(vm.resume, outcomes[index])

    @property
    def decision(self) -> Decision | None:
        pending = self._state.pending
        if pending is None or self.over or pending["player"] == -1:
            return None
        if self._decision is None:
            self._decision = self._make_decision(pending)
        return self._decision

    def _make_decision(self, pending: dict[str, Any]) -> Decision:
        return Decision.pending(self.rules, pending["player"], pending["prompt"], pending["options"],
                                pending["optional"])

    def apply(self, option: Option | int) -> None:
        """Take an option of the current decision (an `Option` or its index).

        Raises:
            IllegalMoveError: not an option of the current decision; the game is unchanged.
            RulesError: the rules failed while running on (the game cannot go on).
        """
        d = self.decision
        if self._broken is not None:
            raise self._broken
        if d is None:
            if self.is_chance_node:
                raise IllegalMoveError("this is a chance node: resolve it with apply_chance(outcome)")
            raise IllegalMoveError("the game is over: there is no decision to take")
        index = option.index if isinstance(option, Option) else option
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(d):
            raise IllegalMoveError(f"{option!r} is not an option: choose an index from 0 to {len(d) - 1}")
        if isinstance(option, Option) and option != d.options[index]:
            raise IllegalMoveError(f"{option!r} is not an option of the current decision")
        value = d.value_of(index)
        self._state.moves.append(index)
        self._decision = None
        self._guarded(vm.resume, value)

    def _guarded(self, step, *args) -> None:
        try:
            step(self._runtime, *args)
        except RulesError as err:
            self._broken = err
            raise

    # ---- seeing ----
    def view(self, player: int | None, log_from: int = 0) -> dict[str, Any]:
        """What `player` (a seat from 0; None for a spectator) may see, JSON-ready. `log_from`
        leaves out the log entries before that index of the whole log (`len(game.log)` when the
        caller last looked), for a caller that reads the log as it grows."""
        if player is not None and not (isinstance(player, int) and not isinstance(player, bool)
                                       and 0 <= player < self._state.players):
            raise RulesError(f"no player {brief(player)}: seats are 0 to {self._state.players - 1}")
        if not (isinstance(log_from, int) and not isinstance(log_from, bool) and log_from >= 0):
            raise RulesError(f"log_from must be a log index (0 or more), got {brief(log_from)}")
        data = redact(self.rules.program, self._state, player, log_from=log_from)
        data["log"] = [self._entry(e) for e in data["log"]]
        if data["result"] is not None:
            data["result"] = dict(data["result"])
        return data

    @property
    def log(self) -> list[dict[str, Any]]:
        """Every log entry with its text in the ruleset's language (unredacted; copies)."""
        return [self._entry(e) for e in self._state.log]

    def _entry(self, e: dict[str, Any]) -> dict[str, Any]:
        """A log entry for the outside: a copy (its values are immutable), with its text."""
        return {"msg": e["msg"], "args": dict(e["args"]), "to": e["to"], "text": self.rules.message(e["msg"], e["args"])}

    def force(self, *outcomes: Any) -> None:
        """Script the next chance outcomes (die faces, picks, drawn entities), first used first."""
        self._state.forced.extend(outcomes)


def _same(a: Any, b: Any) -> bool:
    """Equal as game values: True is not 1, 1.0 is not 1 (and inside tuples likewise)."""
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


def _check_players(rules: Ruleset, players: Any) -> None:
    lo, hi = rules.players.min, rules.players.max
    if isinstance(players, bool) or not isinstance(players, int) or not lo <= players <= hi:
        raise RulesError(f"players must be from {lo} to {hi}, got {players!r}")


def _asked(rules: Ruleset, components: Any) -> tuple[str, ...]:
    """The components to put into play: each a component whose kind says how (`in_play:`)."""
    if isinstance(components, str) or not isinstance(components, (tuple, list)):
        raise RulesError(f"put_in_play takes a list of component ids, got {brief(components)}")
    program = rules.program
    for cid in components:
        if not isinstance(cid, str) or cid not in program.templates:
            hint = did_you_mean(cid, program.templates) if isinstance(cid, str) else ""
            raise RulesError(f"no component {brief(cid)} to put into play{f' ({hint})' if hint else ''}")
        kind = program.templates[cid][0]
        if kind not in program.kind_in_play:
            raise RulesError(f"{cid} cannot be put into play: its kind `{kind}` names no `in_play:` procedure "
                             f"in its module's kinds")
    return tuple(components)


def _options(rules: Ruleset, given: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for name, value in given.items():
        spec = rules.options.get(name)
        if spec is None:
            raise RulesError(f"unknown option `{name}`" + (f"; {h}" if (h := did_you_mean(name, rules.options)) else
                                                          f" (options: {', '.join(rules.options) or 'none'})"))
        if value not in spec.values or type(value) is not type(next((v for v in spec.values if v == value), value)):
            raise RulesError(f"option `{name}` takes one of {list(spec.values)}, got {value!r}")
        out[name] = value
    for name, spec in rules.options.items():
        out.setdefault(name, spec.default if spec.default is not None else spec.values[0])
    return out


def _carry_over(program: Program, after: Any, st: GameState) -> None:
    """Start `st` from the final state of the finished game `after` (Game.new(after=...))."""
    if not isinstance(after, Game) or after.state.result is None:
        raise RulesError(f"`after` must be a finished Game, got {brief(after) if not isinstance(after, Game) else 'a game still going on'}")
    old = after.state
    carried = {eid for eid, e in dict.items(old.entities)
               if e[E_KIND] != "player" and eid in st.entities and st.entities[eid][E_COMP] == e[E_COMP]
               and (e[E_ZONE] is None or e[E_ZONE] in st.zones)}
    for z in st.zones.values():  # the carried entities leave where setup placed them ...
        z[:] = [eid for eid in z if eid not in carried]
    for name, z in old.zones.items():  # ... and lie where the old game left them, in its order
        if name in st.zones:
            st.zones[name][:0] = [eid for eid in z if eid in carried]
    for eid in carried:
        e = old.entities[eid]
        st.entities[eid] = [e[E_KIND], e[E_ZONE], dict(e[E_PROPS]), e[E_FACE], e[E_COMP]]
    st.public = [eid for eid in old.public if eid in carried]
    for name, value in old.counters.items():
        if name in st.counters:
            lo, hi, _, _ = program.counters[name]
            st.counters[name] = max(lo, min(hi, value)) if lo is not None and hi is not None else value
    st.prior = {"players": tuple(dict(old.entities[pid][E_PROPS]) for pid in program.player_ids[: old.players]),
                "result": dict(old.result)}


VERIFY_MODES = ("digest", "replay", "structure")


def _load_checked(rules: Ruleset, text: str | bytes, check_seal: bool) -> GameState:
    """The state a save describes, every field checked (and its `_digest` seal, when `check_seal`)."""
    data = _parse_save(text)
    sealed = data.pop(DIGEST_KEY, None)
    try:
        state = _checked_state(rules, data)
    except savecheck.SaveError:
        if not LONG_NUMBER.search(text if isinstance(text, str) else text.decode("utf-8")):
            raise
        data = _parse_save(text, exact=True)  # the fast parser read a number past 64 bits as a float
        sealed = data.pop(DIGEST_KEY, None)
        state = _checked_state(rules, data)
    if check_seal:
        if sealed is None:
            raise RulesError("the save has no integrity digest (`_digest`): it was not written by "
                             "to_json(); load it with verify=\"replay\" to prove it from its moves")
        if sealed != _sealed_digest(text, sealed, data):
            raise RulesError("the save was changed after it was written (its `_digest` does not match)")
    return state


def _checked_state(rules: Ruleset, data: dict[str, Any]) -> GameState:
    return savecheck.check_state(
        rules.program, data, players=(rules.players.min, rules.players.max),
        options={name: tuple(spec.values) for name, spec in rules.options.items()},
        fingerprint=rules.fingerprint)


def _parse_save(text: Any, exact: bool = False) -> dict[str, Any]:
    """The save's JSON object (json refuses nesting too deep with a RecursionError, cleanly)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise RulesError("not a saved game: not UTF-8 text") from None
    if not isinstance(text, str):
        raise RulesError(f"not a saved game: expected JSON text, got {type(text).__name__}")
    try:
        data = parse_json(text, exact)
    except (ValueError, RecursionError) as err:
        raise RulesError(f"not a saved game: {err}") from None
    if not isinstance(data, dict):
        raise RulesError("not a saved game: expected a JSON object")
    return data


def _sealed_digest(text: str | bytes, sealed: Any, data: dict[str, Any]) -> str:
    """The digest of the save's content: straight from the text when it is as to_json wrote it
    (the seal first, the canonical body after), else from the parsed data written canonically."""
    if isinstance(text, str) and isinstance(sealed, str):
        head = f'{{"{DIGEST_KEY}":"{sealed}",'
        if text.startswith(head) and digest("{" + text[len(head):]) == sealed:
            return sealed
    return digest(canonical_json(data))


def _check_replay(rules: Ruleset, state: GameState) -> None:
    """Replay the state's moves (and chance outcomes) from its seed; the result must be `state`."""
    if state.prior is not None:
        raise RulesError("refused: a game that continues another (Game.new(after=...)) cannot be replayed "
                         "from its seed alone; load it with verify=\"digest\"")
    try:
        game = Game.new(rules, state.players, state.seed, explicit_chance=state.explicit_chance,
                        ask_forced=state.ask_forced, **state.options)
        moves, chances = iter(state.moves), iter(state.chances)
        for _ in range(len(state.moves) + len(state.chances)):
            if game.over:
                break
            if game.is_chance_node:
                game.apply_chance(game._state.pending["options"][next(chances)])
            else:
                game.apply(next(moves))
    except (RulesError, StopIteration, IndexError) as err:
        raise RulesError(f"refused: the save's moves do not replay from its seed ({err or 'too few moves'})") from None
    # compared as canonical JSON, not with `==`, for which True == 1 and a forged flag would pass
    mine, theirs = game._state.to_dict(), state.to_dict()
    if canonical_json(mine) != canonical_json(theirs):
        fields = [k for k in {**mine, **theirs} if canonical_json(mine.get(k)) != canonical_json(theirs.get(k))]
        raise RulesError("refused: the save is not the game its moves make from its seed "
                         f"(it differs in {', '.join(fields)})")
