"""The interpreter: runs steps until a player must decide or the game ends.

The game's place is `state.stack`, a list of frames `[code, pc, locals, returns]`; `returns` says
whether the frame's result goes to the caller's CALL step (1) or is dropped (0, a trigger). No
Python frame outlives `run()`: a decision stores itself in `state.pending` and returns.
"""

from __future__ import annotations

from typing import Any

from nemesis_rules.dsl.diagnostics import Diagnostic, RefusedError, RulesError, Span
from nemesis_rules.engine import limits, rng
from nemesis_rules.engine.limits import MAX_CHANCE_OUTCOMES, MAX_MADE, LimitError
from nemesis_rules.engine.primitives import (
    GRAPH_KEY,
    MADE_KEY,
    Refusal,
    ScriptError,
    entity_record,
    graph_of,
)
from nemesis_rules.engine.program import (
    CALL,
    CHANCE,
    CHOOSE,
    EMIT,
    EVAL,
    FOR_NEXT,
    JUMP,
    JUMP_IF_NOT,
    RETURN,
    STORE,
    ActionInfo,
    Code,
    Program,
)
from nemesis_rules.engine.state import E_COMP, E_KIND, E_PROPS, E_ZONE, GameState, read_record
from nemesis_rules.engine.straight import GameEnded, Suspend

DEFAULT_STEP_BUDGET = 2_000_000
MAX_MEMO = 200_000  # remembered function results kept at most (checked at each run)
MAX_DEPTH = 200
_RUNTIME_ERRORS = (ScriptError, LimitError, TypeError, ValueError, KeyError, IndexError, ZeroDivisionError,
                   AttributeError, RecursionError, OverflowError, MemoryError)


class Runtime:
    """The state plus the compiled rules: what primitives and closures act on."""

    __slots__ = ("program", "state", "budget", "seats", "memo", "by_kind", "static_memo", "setup", "reads",
                 "readers", "exposed", "depth", "grown", "replacing")

    def __init__(self, program: Program, state: GameState, budget: int = DEFAULT_STEP_BUDGET) -> None:
        self.program = program
        self.state = state
        self.budget = budget
        self.seats = program.seats  # player id -> seat (compile.py)
        # Function results (compile.py `_fn`), kept until something they read changes: while a
        # function is computed, `reads` collects the keys of what it reads (`read_key`: an entity,
        # a zone, a counter, the entities made, or another function's result), and `readers` maps
        # each key to the results that read it. A change of the state (`changed`) forgets the
        # results that read what changed, and the results that read those.
        self.memo: dict[tuple, Any] = {}
        self.reads: list | None = None
        self.readers: dict[Any, set] = {}
        # Whether the state may be changed from outside (someone holds it: api.Game.state). Then
        # every run forgets every result first, as a change made so cannot be seen.
        self.exposed = True
        self.by_kind: dict[str, tuple] = {}  # entities(kind), while no entity is made (primitives.py)
        # Results of functions that read no changing state (compile.py `_static_fns`): they hold
        # while the game's setup (players, options) is the one they were computed for.
        self.static_memo: dict[tuple, Any] = {}
        self.setup: tuple = ()
        self.depth = 0  # procedures running as functions, nested (straight.py), not on the stack
        # the `instead of` bodies running as functions, innermost last (straight.py); one that
        # waits leaves its frame on the stack instead, so this is empty between runs (`replacing`)
        self.replacing: list[str] = []
        self.grown = None  # (state.links, the graph with them) once a graph read needed it (primitives.graph_of)

    def fresh(self) -> None:
        """Forget what the state may no longer say (it may have been edited since the last run)."""
        self.reads = None
        st = self.state
        if self.exposed or len(self.memo) > MAX_MEMO:
            self.memo.clear()
            self.readers.clear()
        if self.setup != (st.players, st.options):
            self.static_memo.clear()
            self.memo.clear()
            self.readers.clear()
            self.setup = (st.players, dict(st.options))

    def remember(self, key: tuple, value: Any, reads: list) -> None:
        """A function's result, computed with `reads` (see `memo`)."""
        self.memo[key] = value
        if self.exposed:  # all is forgotten at the next change or run: who read what is not needed
            return
        readers = self.readers
        for k in reads:
            got = readers.get(k)
            if got is None:
                readers[k] = {key}
            else:
                got.add(key)

    def changed(self, key) -> None:
        """What `key` names changed: forget the results that read it, and those that read them."""
        if self.exposed:
            self.memo.clear()
            return
        readers = self.readers
        if key not in readers:
            return
        memo = self.memo
        todo = [key]
        while todo:
            for k in readers.pop(todo.pop(), ()):
                memo.pop(k, None)
                todo.append(k)

    def entity(self, e) -> list:
        try:
            return self.state.entities[e]
        except (KeyError, TypeError):
            raise ScriptError(f"{e!r} is not an entity") from None

    def get_attr(self, e, name: str) -> Any:
        try:  # self.entity(e), inline and read only (no copy of a record a clone shares)
            ent = read_record(self.state.entities, e)
        except (KeyError, TypeError):
            raise ScriptError(f"{e!r} is not an entity") from None
        props = ent[E_PROPS]
        if name in props:
            value = props[name]
        else:
            defaults = self.program.kind_defaults.get(ent[E_KIND])
            if defaults is None or name not in defaults:
                raise ScriptError(f"{e} (a {ent[E_KIND]}) has no property `{name}`")
            value = defaults[name]
        if self.reads is not None:
            self.reads.append((e, name))  # a prop's key (`memo`): its entity and name
        return value

    def set_attr(self, e, name: str, value: Any) -> None:
        ent = self.entity(e)
        if name == "face_up":
            if ent[3] is not bool(value):
                ent[3] = bool(value)
                self.changed(e)
            return
        if name not in self.program.kind_defaults.get(ent[E_KIND], {}):
            raise ScriptError(f"{e} (a {ent[E_KIND]}) has no property `{name}` to set")
        props = ent[E_PROPS]
        old = props[name] if name in props else self.program.kind_defaults[ent[E_KIND]][name]
        props[name] = value
        if old is not value and not same_value(old, value):  # what get_attr reads changed
            self.changed((e, name))

    def move(self, e, to, bottom: bool = False) -> None:
        ent = self.entity(e)
        zones = self.state.zones
        if to not in zones:
            raise ScriptError(f"{to!r} is not a zone")
        self.state.known.pop(e, None)  # where it goes, nobody has looked at it yet
        old = ent[E_ZONE]
        readers = self.readers
        if self.exposed or e in readers or old in readers or to in readers:  # else nothing read them
            self.changed(e)
            self.changed(old)
            self.changed(to)
        if old is not None:
            zones[old].remove(e)
        if bottom:
            zones[to].append(e)
        else:
            zones[to].insert(0, e)
        ent[E_ZONE] = to

    def create(self, component: str, to: str | None) -> str:
        template = self.program_template(component)
        st = self.state
        eid = None
        while eid is None or eid in st.entities:  # never a starting copy's id (`card#1`) or any other
            if st.next_id >= MAX_MADE:
                raise LimitError(f"more than {MAX_MADE:,} entities made in one game")
            st.next_id += 1
            eid = f"{component}#{st.next_id}"
        self.changed(MADE_KEY)
        kind, props, face = template
        st.entities[eid] = [kind, None, dict(props), face, component]
        for z in self.program.kind_zones.get(kind, ()):
            st.zones[f"{z}@{eid}"] = []
        if to is not None:
            self.move(eid, to, True)
        return eid

    # ---- the graph laid in play ----
    def lay_link(self, link, a, b, label_a, label_b) -> None:
        """Lay `link` between `a` and `b` (primitive `connect`), refusing what would make the graph
        say two things at once."""
        p, st = self.program, self.state
        kind = entity_record(self, link)[E_KIND]
        if kind not in p.link_kinds:
            raise ScriptError(f"{link} is a {kind}, not of a link kind")
        for end in (a, b):
            entity_record(self, end)
        if len({link, a, b}) < 3:
            raise ScriptError(f"a link joins two other entities: connect({a}, {b}, {link})")
        if link in p.graph.ends or any(row[0] == link for row in st.links):
            raise ScriptError(f"{link} is laid already")
        graph = graph_of(self)
        for end, label in ((a, label_a), (b, label_b)):
            for x in link_labels(label):
                taken = graph.by_label.get((end, x))
                if taken is not None:
                    raise ScriptError(f"{end} already has the link {taken} labelled {x!r}")
        st.links = (*st.links, (link, a, b, label_a, label_b))
        self.changed(GRAPH_KEY)

    def lift_link(self, link) -> None:
        """Take a link laid in play off the graph (primitive `disconnect`)."""
        if link in self.program.graph.ends:
            raise ScriptError(f"{link} is a printed link: only a link laid in play can be lifted")
        laid = self.state.links
        kept = tuple(row for row in laid if row[0] != link)
        if len(kept) == len(laid):
            raise ScriptError(f"{link!r} is not a link laid in play")
        self.state.links = kept
        self.changed(GRAPH_KEY)

    def program_template(self, component: str):
        try:
            return self.program.templates[component]
        except (KeyError, TypeError):
            raise ScriptError(f"unknown component {component!r}") from None

    def seat_of(self, player) -> int:
        try:
            return self.seats[player]
        except (KeyError, TypeError):
            raise ScriptError(f"{player!r} is not a player") from None

    # ---- counters, log, end ----
    def set_counter(self, name: str, value) -> None:
        lo, hi, _, clamp = self.program.counters[name]
        if not isinstance(value, int) or isinstance(value, bool):
            raise ScriptError(f"counter `{name}` takes an integer, got {value!r}")
        if not lo <= value <= hi:
            if not clamp:
                raise ScriptError(f"counter `{name}` would be {value}, outside {lo}..{hi}")
            value = max(lo, min(hi, value))
        counters = self.state.counters
        if counters.get(name) != value:  # the same value changes nothing a function or a view reads
            counters[name] = value
            self.changed(name)

    def add_log(self, message: str, to, args: dict) -> None:
        if to is None:
            seats = None
        elif isinstance(to, tuple):
            seats = tuple(sorted(self.seat_of(p) for p in to))
        else:
            seats = (self.seat_of(to),)
        self.state.log.append({"msg": message, "args": args, "to": seats})

    def end_game(self, reason: str, winners) -> None:
        seats = tuple(sorted({self.seat_of(p) for p in (winners or ())}))
        self.state.result = {"reason": reason, "winners": seats}

    # ---- randomness ----
    def below(self, n: int) -> int:
        self.state.rng, value = rng.below(self.state.rng, n)
        return value

    # ---- actions and scripts ----
    def available_actions(self, actor) -> tuple[str, ...]:
        p = self.program
        if p.available_actions is not None:
            return p.available_actions(self, actor)
        return tuple(a.name for a in p.actions if a.allowed(self, actor))  # each action's own test

    def action_available(self, action: str, actor) -> bool:
        """Whether `action` is one of `available_actions(actor)`, testing that action alone."""
        return self._action_info(action).allowed(self, actor)

    def action_cost(self, action: str, actor) -> int:
        info = self._action_info(action)
        return info.cost(self, [actor]) if info.cost else 0

    def action_target(self, action) -> str:
        self._action_info(action)
        return f"action:{action}"

    def _action_info(self, action) -> ActionInfo:
        info = self.program.action_index.get(action)
        if info is None:
            raise ScriptError(f"unknown action {action!r}")
        return info

    def in_play_target(self, e) -> str:
        """The procedure `e`'s kind names to put one of its components into play (`in_play:`)."""
        kind = entity_record(self, e)[E_KIND]
        if kind not in self.program.kind_in_play:
            raise ScriptError(f"kind `{kind}` names no `in_play:` procedure: {e} cannot be put into play")
        return self.program.kind_in_play[kind]

    def call_fn_script(self, e, field: str, args: list):
        """Evaluate an entity's expression field (`functions:` of its kind) with `this` = e."""
        name = f"{entity_record(self, e)[E_COMP]}.{field}"  # read only: no copy of a shared record
        fn = self.program.fns.get(name)
        if fn is None:
            raise ScriptError(f"{e} has no script `{field}`")
        return fn(self, [e, *args])

    def script_target(self, e, script: str) -> str:
        name = f"{entity_record(self, e)[E_COMP]}.{script}"
        if name not in self.program.procs:
            raise ScriptError(f"{e} has no script `{script}`")
        return name



def same_value(a: Any, b: Any) -> bool:
    """Equal as game values (True is not 1, inside tuples too)."""
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is tuple:
        return len(a) == len(b) and all(map(same_value, a, b))
    return a == b


def new_frame(code: Code, args: list, returns: int) -> list:
    """A procedure's frame at its first step, `args` its first locals (a list it takes over)."""
    pad = code.nlocals - len(args)
    return [code.name, 0, args + [None] * pad if pad > 0 else args, returns]


def push(rt: Runtime, name: str, args: list, returns: int) -> None:
    if len(rt.state.stack) >= MAX_DEPTH:
        too_deep(name)
    rt.state.stack.append(new_frame(rt.program.procs[name], args, returns))


def start(rt: Runtime) -> None:
    push(rt, rt.program.entry, [], 0)
    run(rt)


def resume(rt: Runtime, value: Any) -> None:
    """Deliver a decision's (or chance's) value to the waiting step, then run on."""
    frame = rt.state.stack[-1]
    op = rt.program.procs[frame[0]].ops[frame[1]]
    dest = op[-1]
    if dest >= 0:
        frame[2][dest] = value
    frame[1] += 1
    rt.state.pending = None
    run(rt)


def run(rt: Runtime) -> None:
    """Run until a decision is pending, the game ends, or the stack empties."""
    st = rt.state
    stack = st.stack
    procs = rt.program.procs
    rt.fresh()
    limits.work[0] = 0
    steps = 0
    budget = rt.budget
    frame = code = None
    pc = resume_at = 0
    in_block = False
    rt.depth = 0
    rt.replacing.clear()
    try:
        while stack and st.result is None:
            frame = stack[-1]
            code = procs[frame[0]]
            ops = code.ops
            blocks = code.blocks
            L = frame[2]
            pc = frame[1]
            try:
                while True:
                    block = blocks[pc]
                    if block is not None and steps + block[2] <= budget:  # else step by step, to count exactly
                        in_block = True
                        pc, done, ended = block[1][block[0](rt, L)]
                        in_block = False
                        steps += done
                        if ended and st.result is not None:
                            break
                        continue
                    steps += 1
                    if steps > budget:
                        raise ScriptError(f"more than {budget} steps without a decision (an endless loop?)")
                    op = ops[pc]
                    kind = op[0]
                    if kind == EVAL:
                        op[1](rt, L)
                        pc += 1
                        if st.result is not None:
                            break
                    elif kind == STORE:
                        L[op[1]] = op[2](rt, L)
                        pc += 1
                    elif kind == JUMP_IF_NOT:
                        pc = pc + 1 if op[1](rt, L) else op[2]
                    elif kind == JUMP:
                        pc = op[1]
                    elif kind == FOR_NEXT:
                        items, i = L[op[2]], L[op[3]]
                        if i < len(items):
                            L[op[1]] = items[i]
                            L[op[3]] = i + 1
                            pc += 1
                        else:
                            pc = op[4]
                    elif kind == CALL:  # the procedure's function: no frame unless it suspends (straight.py)
                        frame[1] = resume_at = pc
                        target = op[1] if isinstance(op[1], str) else op[1](rt, L)
                        args = op[2](rt, L)  # a fresh list: it becomes the callee's locals
                        callee = procs[target]
                        value = callee.direct(rt, args)
                        if op[3] >= 0:
                            L[op[3]] = value
                        pc += 1
                        if st.result is not None:  # where a return to this frame would stop
                            break
                    elif kind == RETURN:
                        value = op[1](rt, L) if op[1] is not None else None
                        stack.pop()
                        if frame[3] and stack:
                            caller = stack[-1]
                            dest = procs[caller[0]].ops[caller[1]][3]
                            if dest >= 0:
                                caller[2][dest] = value
                            caller[1] += 1
                        break
                    elif kind == EMIT:
                        pc += 1
                        frame[1] = resume_at = pc
                        emit(rt, op[1], op[2](rt, L))
                    elif kind == CHOOSE:
                        frame[1] = pc
                        got = choose(rt, op[1](rt, L))
                        if got is WAIT:
                            return
                        dest = op[2]
                        if dest >= 0:
                            L[dest] = got
                        pc += 1
                    elif kind == CHANCE:
                        frame[1] = pc
                        value = chance(rt, op[1], op[2](rt, L))
                        if value is WAIT:
                            return
                        if op[3] >= 0:
                            L[op[3]] = value
                        pc += 1
            except Suspend as suspended:  # a procedure called as a function waits (straight.py)
                frame[1] = suspended.nemesis_pc if in_block else resume_at  # the step that called
                in_block = False
                stack.extend(reversed(suspended.frames))  # its frames, and those of its callers
                rt.depth = 0
                if st.pending is not None:
                    return
                continue
            if frame is not None and stack and stack[-1] is frame:
                frame[1] = pc
    except GameEnded:  # a step of a procedure running as a function ended the game
        pass
    except _RUNTIME_ERRORS as err:
        where = getattr(err, "nemesis_where", None)  # in a procedure running as a function: its own step
        if where is not None:
            raise _located(err, procs[where[0]], where[1]) from None
        raise _located(err, code, getattr(err, "nemesis_pc", pc) if in_block else pc) from None
    if st.result is not None:
        st.stack.clear()
        st.pending = None


WAIT = object()


def emit(rt: Runtime, handlers: tuple[str, ...], args: list) -> None:
    """An event: its handlers' functions in turn (straight.py). When one suspends, the handlers
    after it go on the stack below its frames, as fresh frames that return nothing."""
    procs = rt.program.procs
    for i, name in enumerate(handlers):
        code = procs[name]
        try:
            code.direct(rt, list(args))
        except Suspend as suspended:
            suspended.frames[-1][3] = 0  # the handler's own frame: what it returns is dropped
            suspended.frames += [new_frame(procs[later], list(args), 0) for later in handlers[i + 1:]]
            raise
        if rt.state.result is not None:
            raise GameEnded


def call_by_value(rt: Runtime, target: Any, args: list) -> Any:
    """A CALL step whose procedure is worked out as it runs (a card's script): its function."""
    code = rt.program.procs[target]
    return code.direct(rt, args)


def replacing(rt: Runtime, handler: str) -> bool:
    """Whether the `instead of` body `handler` is running: as a function now, or as a frame on the
    stack (one that waited for a decision, so the mark is saved and copied with the game)."""
    return handler in rt.replacing or any(frame[0] == handler for frame in rt.state.stack)


def too_deep(name: str) -> None:
    raise ScriptError(f"procedures nested deeper than {MAX_DEPTH} (endless recursion in `{name}`?)")


def choose(rt: Runtime, args: tuple) -> Any:
    player, options, prompt, optional = args
    if not isinstance(options, tuple):
        raise ScriptError(f"choose() needs a list of options, got {options!r}")
    if not options:
        if optional:
            return None
        raise ScriptError("choose() with no options and optional=false: nothing can be chosen")
    if len(options) == 1 and not optional and not rt.state.ask_forced:
        return options[0]
    rt.state.pending = {"player": rt.seat_of(player), "options": options, "prompt": prompt,
                        "optional": bool(optional)}
    return WAIT


def link_labels(label) -> tuple:
    """The labels one end of a link carries: none, a number, a name, or a list of numbers or of
    names (ScriptError for anything else)."""
    several = label if isinstance(label, tuple) else (label,) if label is not None else ()
    if not several and isinstance(label, tuple):
        raise ScriptError("a link's labels at one end: an empty list")
    kinds = {type(x) for x in several}
    if not kinds <= {int, str} or len(kinds) > 1:
        raise ScriptError(f"a link's label is a number, a name, none, or a list of numbers or of names; got {label!r}")
    return several


def chance(rt: Runtime, prim, args: tuple) -> Any:
    st = rt.state
    if st.forced:
        value = st.forced.pop(0)
        allowed = chance_outcomes(rt, prim.name, args)
        if allowed is not None and value not in allowed:
            raise ScriptError(f"scripted outcome {value!r} is impossible for {prim.name} (possible: "
                              f"{', '.join(map(repr, sorted(set(allowed), key=repr)))})")
        return value
    if st.explicit_chance:
        outcomes = chance_outcomes(rt, prim.name, args)
        if outcomes:
            st.pending = {"player": -1, "options": outcomes, "prompt": prim.name, "optional": False}
            return WAIT
    return prim.impl(rt, *args)


def chance_outcomes(rt: Runtime, name: str, args: tuple) -> tuple | None:
    """Every outcome a chance primitive could give (with repeats for weight), where finite."""
    if name == "roll":
        return rt.program.dice.get(args[0])
    if name == "pick":
        return args[0]
    if name == "draw_random":
        return tuple(rt.state.zones.get(args[0], ()))
    if name == "random_int":  # a wide range is drawn from the generator, not listed
        return tuple(range(args[0], args[1] + 1)) if args[1] - args[0] < MAX_CHANCE_OUTCOMES else None
    return None


def call_function(rt: Runtime, name: str, args: list) -> Any:
    """The value of the module's function `name` for `args` on `rt.state`, called from outside a
    run (a report, a tool); a function cannot change the state. A fault is a RulesError naming it."""
    limits.work[0] = 0
    rt.fresh()
    try:
        return rt.program.fns[name](rt, list(args))
    except _RUNTIME_ERRORS as err:
        raise _located(err, None, 0, f"function {name}") from None


def _located(err: Exception, code, pc: int, where: str | None = None) -> RulesError:
    span = code.spans[pc] if code is not None and 0 <= pc < len(code.spans) else Span()
    if isinstance(err, Refusal):
        return RefusedError(Diagnostic("R101", str(err), span, help="the rules refuse this game as asked"))
    if isinstance(err, ScriptError | LimitError):
        message = str(err)
    elif isinstance(err, MemoryError):
        message = "out of memory (a list or string too large?)"
    elif isinstance(err, RecursionError):
        message = "functions nested too deep (an endless recursion?)"
    else:
        message = f"{type(err).__name__}: {err}"
    where = where or (code.name if code is not None else "?")
    return RulesError(Diagnostic("R100", f"{message} (in `{where}`)", span,
                                 help="a rules error: the module's script did something impossible"))
