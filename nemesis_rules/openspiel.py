"""Rulesets as OpenSpiel games: integer actions, a chance player, returns, seat views.

`SpielState` is the shape OpenSpiel users know, over a `Game`, and needs no `pyspiel`:

    state = SpielState.new(rules, players=3, seed=7)   # chance nodes explicit
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    state.returns()          # 1.0 for each winner, else 0.0

Actions are option indices at a decision and outcome indices at a chance node (the outcomes in
the order `Game.chance_outcomes()` gives them). Observations are built from the seat's view only
(`Game.view`), so an agent sees what a player may see and no more: as JSON text, or as a
fixed-length vector (`ViewEncoder`).

With the `openspiel` extra installed, importing this module registers one pyspiel Python game per
playable root module under `rulesets/` (`nemesis` for base, `nemesis_lockdown`,
`nemesis_retaliation`) and `nemesis_modules` for any module list (`register_games()`); the
expansions, players, mode and options are game parameters (docs/research.md):

    pyspiel.load_game("nemesis(players=4,modules=aftermath+carnomorphs,mode=coop)")
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import attrs

from nemesis_rules.api import Game, Ruleset, load_ruleset
from nemesis_rules.dsl.diagnostics import IllegalMoveError, RulesError
from nemesis_rules.engine.view import view as redact
from nemesis_rules.paths import rulesets_dir
from nemesis_rules.rewards import Shaping
from nemesis_rules.ruleset.load import load_manifest
from nemesis_rules.ruleset.records import SpielSpec

CHANCE_PLAYER = -1
TERMINAL_PLAYER = -4  # pyspiel.PlayerId.TERMINAL
MAX_ACTIONS = 256  # default bound on a decision's options and a chance node's outcomes
MAX_GAME_LENGTH = 100_000  # default bound on the decisions of one game
SHAPED_BOUND = 1000.0  # the utility bound OpenSpiel is told when shaped rewards are on (a loose guess)


class SpielState:
    def __init__(self, game: Game) -> None:
        self.game = game

    @classmethod
    def new(cls, rules: Ruleset, players: int, seed: int = 0, **options: Any) -> SpielState:
        """A new game whose rolls, picks and random draws are chance nodes."""
        return cls(Game.new(rules, players, seed, explicit_chance=True, **options))

    def num_players(self) -> int:
        return self.game.state.players

    def current_player(self) -> int:
        if self.game.over:
            return TERMINAL_PLAYER
        if self.game.is_chance_node:
            return CHANCE_PLAYER
        return self.game.decision.player

    def is_terminal(self) -> bool:
        return self.game.over

    def is_chance_node(self) -> bool:
        return self.game.is_chance_node

    def legal_actions(self) -> list[int]:
        if self.game.over:
            return []
        if self.game.is_chance_node:
            return list(range(len(self.game.chance_outcomes())))
        return [o.index for o in self.game.decision.options]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(action, probability) for each outcome of the pending chance node."""
        return [(i, p) for i, (_, p) in enumerate(self.game.chance_outcomes())]

    def apply_action(self, action: int) -> None:
        """Take option `action`, or outcome `action` at a chance node (IllegalMoveError if it is
        neither; the state is then unchanged)."""
        if self.game.is_chance_node:
            outcomes = self.game.chance_outcomes()
            if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < len(outcomes):
                raise IllegalMoveError(f"{action!r} is not an outcome: choose from 0 to {len(outcomes) - 1}")
            self.game.apply_chance(outcomes[action][0])
        else:
            self.game.apply(action)

    def action_to_string(self, player: int, action: int) -> str:
        """The action's label; copies that read alike (two tokens of one kind) are told apart by
        a count, `Token (2)`, since OpenSpiel wants each action of a state named differently."""
        if self.game.is_chance_node:
            labels = [self.game.rules.label(value) for value, _ in self.game.chance_outcomes()]
        else:
            labels = [o.label for o in self.game.decision.options]
        label = labels[action]
        if labels.count(label) == 1:
            return label
        return f"{label} ({labels[:action + 1].count(label)})"

    def returns(self) -> list[float]:
        """1.0 for each winning seat, 0.0 for the others; all 0.0 before the end."""
        result = self.game.result if self.game.over else None
        winners = set(result["winners"]) if result else set()
        return [1.0 if seat in winners else 0.0 for seat in range(self.num_players())]

    def observation_string(self, player: int) -> str:
        """The seat's view of the position now, without the log (JSON)."""
        seen = self.game.view(player)
        del seen["log"]
        return _text(seen)

    def information_state_string(self, player: int, own_actions: list[int] = ()) -> str:
        """All the seat has seen: its view with the log of what it was told, and the actions it
        took itself (JSON)."""
        return _text({"view": self.game.view(player), "own_actions": list(own_actions)})

    def history(self) -> list[int]:
        """The option indices taken so far (chance outcomes are not moves)."""
        return list(self.game.state.moves)

    def clone(self) -> SpielState:
        return SpielState(self.game.clone())

    def __deepcopy__(self, memo: dict) -> SpielState:  # pyspiel clones a state's attributes so
        return self.clone()                             # (the rules are shared, never copied)

    def __reduce__(self):  # pyspiel serializes a state's attributes by pickling: the save goes
        rules = self.game.rules
        return _restore, (*_LOADED_AS.get(rules, (rules.modules, rules.lang)), self.game.to_json())

    def __str__(self) -> str:
        return self.game.to_json()


def _text(data: Any) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


_LOADED_AS: dict[Ruleset, tuple[tuple[str, ...], str]] = {}  # the arguments that loaded it


@cache
def cached_rules(modules: tuple[str, ...], lang: str = "en") -> Ruleset:
    """One loaded ruleset per module list, shared by every game made from it (loading is slow)."""
    rules = load_ruleset(*modules, lang=lang)
    _LOADED_AS[rules] = (modules, lang)
    return rules


def _restore(modules: tuple[str, ...], lang: str, save: str) -> SpielState:
    return SpielState(Game.from_json(cached_rules(tuple(modules), lang), save))


class ViewEncoder:
    """A seat's view as a fixed-length vector of floats, for learners that want tensors.

    The layout comes from the rules and the player count only (never from hidden state), in five
    parts (`parts`): the seat (one-hot), each counter's value, each zone's size as the seat sees
    it (-1: it may not even count it), where the seat sees each component (its zone's place in
    `zones` plus one; 0: not seen), and the decision (1 if the seat is to choose, the number of
    its options). Every bound is finite: a counter's declared range, a zone's size up to the number
    of entities, a decision's options up to `max_actions`."""

    def __init__(self, game: Game, max_actions: int = MAX_ACTIONS) -> None:
        self.players = game.state.players
        self.counters = sorted(game.state.counters)
        self.zones = sorted(game.state.zones)
        self.entities = sorted(game.state.entities)
        self._zone_at = {z: i for i, z in enumerate(self.zones)}
        self.parts = {"seat": self.players, "counters": len(self.counters), "zones": len(self.zones),
                      "entities": len(self.entities), "decision": 2}
        self.size = sum(self.parts.values())
        limits = game.rules.program.counters
        counters = [(float(limits[c][0]), float(limits[c][1])) for c in self.counters]
        most = float(len(self.entities))  # a zone holds at most every entity
        self.low = ([0.0] * self.players + [lo for lo, _ in counters]
                    + [-1.0] * len(self.zones) + [0.0] * len(self.entities) + [0.0, 0.0])
        self.high = ([1.0] * self.players + [max(hi, lo + 1) for lo, hi in counters]
                     + [most] * len(self.zones) + [float(len(self.zones))] * len(self.entities)
                     + [1.0, float(max_actions)])

    def encode_seat(self, game: Game, seat: int) -> list[float]:
        """The vector of what `seat` sees in `game` (its view without the log, which it skips)."""
        return self.encode(redact(game.rules.program, game.state, seat, with_log=False))

    def encode(self, seen: dict[str, Any]) -> list[float]:
        """The vector of a view from `Game.view(seat)`."""
        seat = [0.0] * self.players
        if seen["seat"] is not None:
            seat[seen["seat"]] = 1.0
        counters = [float(seen["counters"].get(c, 0)) for c in self.counters]
        zones = [float(seen["zones"][z]["size"]) if z in seen["zones"] else -1.0 for z in self.zones]
        shown = seen["entities"]
        entities = [float(self._zone_at.get(shown[e]["zone"], -1) + 1) if e in shown else 0.0
                    for e in self.entities]
        d = seen["decision"]
        mine = d is not None and "options" in d
        decision = [1.0 if mine else 0.0, float(len(d["options"]) + d["optional"]) if mine else 0.0]
        return seat + counters + zones + entities + decision


def parse_options(text: str) -> dict[str, Any]:
    """`name:value;name:value` as game options (pyspiel parameters allow no `=` or `,` inside
    a value); each value matched to one the ruleset declares by `Game.new`'s check."""
    options: dict[str, Any] = {}
    for pair in filter(None, (p.strip() for p in text.split(";"))):
        name, sep, value = pair.partition(":")
        if not sep:
            raise RulesError(f"options take name:value pairs separated by `;`, got {pair!r}")
        options[name.strip()] = _option_value(value.strip())
    return options


def _option_value(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text)
    except ValueError:
        return text


GENERIC_GAME = "nemesis_modules"  # any module list, a mod's folder or a test fixture among them


@attrs.frozen
class RootGame:
    """A playable root module (its module.yaml names an `entry`) as one OpenSpiel game: the
    expansions, player count and options are the game's parameters."""

    name: str  # the pyspiel short name: `nemesis` for base, `nemesis_<id>` for the others
    module: str  # its module id
    options: dict[str, Any]  # its declared options with the game's default values


def root_games() -> list[RootGame]:
    """The module ids under rulesets/ that are playable on their own (an `entry` procedure),
    each as an OpenSpiel game (named and given defaults by its module.yaml `openspiel:`);
    libraries, expansions and adapters are loaded through them."""
    games = []
    for folder in sorted(rulesets_dir().iterdir()):
        manifest = load_manifest(folder) if folder.is_dir() else None
        if manifest is None or manifest.entry is None:
            continue
        spiel = manifest.openspiel or SpielSpec()
        options = {name: spec.default for name, spec in manifest.options.items()} | spiel.options
        games.append(RootGame(spiel.name or f"nemesis_{manifest.id}", manifest.id, options))
    return games


def game_modules(root: str | None, extra: str) -> tuple[str, ...]:
    """The modules a game parameter `modules` names (ids or folders joined by `+`), on top of the
    root game's module; the generic game (no root) needs at least one."""
    named = tuple(m.strip() for m in extra.split("+") if m.strip())
    if root is None and not named:
        raise RulesError(f"{GENERIC_GAME} needs modules, e.g. {GENERIC_GAME}(modules=base)")
    return named if root is None else (root, *named)


try:
    import numpy as np
    import pyspiel
except ImportError:  # the `openspiel` extra is not installed: SpielState still works
    pyspiel = None


def register_games() -> list[str]:
    """Register each root game (`root_games()`) and the generic game `nemesis_modules` with pyspiel
    (once); returns their names.

    Parameters (docs/research.md): `players`, `modules` (expansions and variants on top of the
    root, ids or folders joined by `+`; the generic game's whole list), one parameter per option
    the root module declares (`mode`, `board`), `options` (any other option, `name:value;...`),
    `seed` (shuffles; rolls and draws are chance nodes), `shaped_rewards` (the module's `rewards:`
    terms at every move, nemesis_rules/rewards.py), `lang`, `max_actions` (bound on options
    and outcomes) and `max_game_length`.

    Raises:
        RulesError: pyspiel is not installed (`pip install 'nemesis-rules[openspiel]'`).
    """
    if pyspiel is None:
        raise RulesError("OpenSpiel is not installed: pip install 'nemesis-rules[openspiel]'")
    known = {g.short_name for g in pyspiel.registered_games()}
    games = [*root_games(), RootGame(GENERIC_GAME, "", {})]
    for root in games:
        if root.name not in known:
            cls = type(f"NemesisSpielGame_{root.name}", (NemesisSpielGame,), {"root": root})
            pyspiel.register_game(_game_type(root), cls)
    return [root.name for root in games]


def _game_type(root: RootGame, shaped: bool = False):
    """The game's type; with shaped rewards, rewards at every move (MCTS and other algorithms ask
    for rewards at the end only, the default)."""
    params = {"players": 2, "modules": "base" if not root.module else "", **root.options, "options": "",
              "seed": 0, "lang": "en", "shaped_rewards": False, "max_actions": MAX_ACTIONS, "max_game_length": MAX_GAME_LENGTH}
    return pyspiel.GameType(
        short_name=root.name, long_name=f"nemesis-rules {root.module or 'modules'}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.REWARDS if shaped else pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=8, min_num_players=1,  # the ruleset's own range is checked on loading
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=params)


if pyspiel is not None:

    class NemesisSpielGame(pyspiel.Game):
        """A root game (`root`) with its parameters' modules, players, seed and options (a
        subclass per root game is registered)."""

        root = RootGame(GENERIC_GAME, "", {})

        def __init__(self, params: dict[str, Any]) -> None:
            modules = game_modules(self.root.module or None, str(params["modules"]))
            rules = cached_rules(modules, params["lang"])
            options = {name: params[name] for name in self.root.options} | parse_options(params["options"])
            self.initial = SpielState.new(rules, params["players"], params["seed"], **options)
            self.encoder = ViewEncoder(self.initial.game, params["max_actions"])
            self.shaping = Shaping(rules) if params["shaped_rewards"] else None
            bound = SHAPED_BOUND if self.shaping else 0.0  # shaped returns have no bound the rules give
            info = pyspiel.GameInfo(
                num_distinct_actions=params["max_actions"], max_chance_outcomes=params["max_actions"],
                num_players=params["players"], min_utility=-bound, max_utility=1.0 + bound, utility_sum=None,
                max_game_length=params["max_game_length"])
            super().__init__(_game_type(self.root, self.shaping is not None), info, params)

        def new_initial_state(self) -> NemesisSpielState:
            return NemesisSpielState(self, self.initial.clone())

        def make_py_observer(self, iig_obs_type=None, params=None) -> ViewObserver:
            recall = iig_obs_type is not None and iig_obs_type.perfect_recall
            return ViewObserver(self.encoder, recall)

    class NemesisSpielState(pyspiel.State):
        """A pyspiel state holding a `SpielState`; with shaped rewards, the seats' potentials at
        the start and the last move's changes (plain floats: pyspiel pickles the attributes)."""

        def __init__(self, game: NemesisSpielGame, spiel: SpielState) -> None:
            super().__init__(game)
            self.spiel = spiel
            self._bound = game.num_distinct_actions()
            self._start = self._potentials()
            self._last = [0.0] * game.num_players()

        def _potentials(self) -> list[float]:
            shaping = self.get_game().shaping  # on the game: a state's attributes are pickled
            if shaping is None:
                return [0.0] * self.spiel.num_players()
            return shaping.potentials(self.spiel.game)

        def current_player(self) -> int:
            return self.spiel.current_player()

        def _legal_actions(self, player: int) -> list[int]:
            return self._bounded(self.spiel.legal_actions())

        def chance_outcomes(self) -> list[tuple[int, float]]:
            return self._bounded(self.spiel.chance_outcomes())

        def _bounded(self, actions: list) -> list:
            if len(actions) > self._bound:
                raise RulesError(f"{len(actions)} actions at one step, more than max_actions={self._bound}: "
                                 "load the game with a larger max_actions")
            return actions

        def _apply_action(self, action: int) -> None:
            before = self._potentials()
            self.spiel.apply_action(int(action))
            self._last = [now - was for now, was in zip(self._potentials(), before, strict=True)]

        def _action_to_string(self, player: int, action: int) -> str:
            return self.spiel.action_to_string(player, action)

        def is_terminal(self) -> bool:
            return self.spiel.is_terminal()

        def rewards(self) -> list[float]:
            """The last move's: its shaped rewards (0.0 without them), and the end's 1.0 to each winner."""
            return [shaped + end for shaped, end in zip(self._last, self.spiel.returns(), strict=True)]

        def returns(self) -> list[float]:
            """1.0 to each winner at the end, plus the change of the shaped potentials since the start."""
            shaped = [now - start for now, start in zip(self._potentials(), self._start, strict=True)]
            return [s + end for s, end in zip(shaped, self.spiel.returns(), strict=True)]

        def __str__(self) -> str:
            return str(self.spiel)

    class ViewObserver:
        """pyspiel's observer interface over a seat's view: `string_from` gives the observation
        (or, with perfect recall, the information state) as JSON, `set_from` the vector."""

        def __init__(self, encoder: ViewEncoder, recall: bool) -> None:
            self.encoder, self.recall = encoder, recall
            self.tensor = None if recall else np.zeros(encoder.size, np.float32)
            self.dict = {}
            if self.tensor is not None:
                at = 0
                for name, size in encoder.parts.items():
                    self.dict[name] = self.tensor[at:at + size]
                    at += size

        def set_from(self, state: NemesisSpielState, player: int) -> None:
            if self.tensor is not None:
                self.tensor[:] = self.encoder.encode_seat(state.spiel.game, player)

        def string_from(self, state: NemesisSpielState, player: int) -> str:
            if not self.recall:
                return state.spiel.observation_string(player)
            own = [a for p, a in ((h.player, h.action) for h in state.full_history()) if p == player]
            return state.spiel.information_state_string(player, own)

    register_games()  # as OpenSpiel's own Python games do on import
