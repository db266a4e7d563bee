"""Procedures as generated Python functions: straight ones, which can never wait, and direct ones,
which may (the regenerator technique: a function that suspends leaves its frame as data).

A procedure whose steps make no decision, draw no chance, announce no event that anyone hooks
and call only other such procedures, by name and never themselves, is *straight*: it runs from
its first step to its return without the game's place ever being saved in between. Every other
procedure is *direct*: it runs the same way until a step must wait (a decision, an explicit
chance) and then raises `Suspend`. On the way out each procedure it passes through adds its
frame, `[name, pc, locals, returns]` at the step where the interpreter goes on (a call's own step;
the step after an event), to `Suspend.frames`, and the interpreter puts them on its stack: the
very frames it would have built stepping through the same calls itself (vm.run). It resumes them
as it resumes any frame, so a call costs a Python call and no frame unless a decision comes.

A CALL step (or the block it sits in, blocks.py) calls the procedure's function with the argument
list as its locals and stores what it returns; an event calls its handlers' functions in turn
(vm.emit). The function is the procedure's steps as Python: one branch per run of steps between
jump targets, the expressions inlined as blocks inline them, the calls it makes direct in turn.

The steps stay the program's truth: each procedure keeps its `Code`, which the interpreter runs
for the first procedure of a run and for frames resumed after a decision. The same steps run in
the same order, so a game plays exactly as before. What differs:
* the steps of a called procedure count as work (limits.py), as a function's do, not against the
  interpreter's step budget;
* a fault carries `nemesis_where` = (procedure, step) for its line, the innermost procedure's;
* a step that ends the game raises `GameEnded` (after an EVAL step, a call or an event, where
  the interpreter would have stopped), which the interpreter takes as the end of its run;
* procedures running as functions count towards the nesting limit with those on the stack
  (`Runtime.depth`);
* the body of an `instead of` running as a function is marked running in `Runtime.replacing`, as
  its frame on the stack marks it once it waits (vm.replacing: it does not replace a call again).
"""

from __future__ import annotations

from nemesis_rules.engine.blocks import jump_targets, step_lines
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
    Code,
    Program,
)


class GameEnded(Exception):
    """A step of a procedure running as a function ended the game (see the module's docstring)."""


class Suspend(Exception):  # noqa: N818 (not an error: a procedure's way out to the interpreter)
    """A procedure called as a function reached a decision (or an explicit chance): on the way out,
    each procedure it passes adds its frame to `frames`, innermost first, and the interpreter puts
    them on its stack (see the module's docstring)."""

    def __init__(self) -> None:
        super().__init__("a decision waits")
        self.frames: list[list] = []


STRAIGHT_STEPS = (EVAL, STORE, JUMP, JUMP_IF_NOT, FOR_NEXT, RETURN)


def straight_names(program: Program, gen) -> list[str]:
    """The straight procedures, each after every straight procedure it calls."""
    procs = program.procs
    found: dict[str, None] = {}
    pending = {name: _callees(code, gen) for name, code in procs.items()}
    pending = {name: callees for name, callees in pending.items() if callees is not None}
    while True:
        ready = [name for name, callees in pending.items() if all(c in found for c in callees)]
        if not ready:
            return list(found)
        for name in ready:
            found[name] = None
            del pending[name]


def _callees(code: Code, gen) -> set[str] | None:
    """The procedures the steps call by name, or None when a step may wait or calls by value."""
    callees: set[str] = set()
    for op in code.ops:
        if op[0] == CALL:
            if not isinstance(op[1], str):
                return None
            callees.add(op[1])
        elif op[0] not in STRAIGHT_STEPS:
            return None
    return None if code.name in callees else callees


def add_straight(program: Program, gen) -> None:
    """Give each procedure its function, `Code.direct` (one that may wait suspends), and the
    straight ones `Code.straight` too. Every name is known before any source is written, as
    procedures call each other by it."""
    straight = set(straight_names(program, gen))
    for i, name in enumerate(program.procs):
        gen.proc_idents[name] = f"_{'sp' if name in straight else 'dp'}{i}"
    for name, code in program.procs.items():
        ident = gen.proc_idents[name]
        gen.define(_source(code, ident, gen, name not in straight))
        code.direct = gen.ns[ident]
        if name in straight:
            code.straight = code.direct


def _source(code: Code, ident: str, gen, waits: bool) -> str:
    """The function of a procedure; `waits`: it may suspend (a direct one), so on the way out it
    adds its frame, at the step where the interpreter would go on, to the `Suspend`'s frames."""
    ops = code.ops
    starts = {0} | jump_targets(ops)
    name = gen.constant(code.name)
    # L: the arguments, a fresh list the function keeps as its locals (the interpreter's frame)
    head = [f"def {ident}(rt, L):"]
    if waits:  # nested as deep as frames on the stack would be; the caller's step is the one at fault
        head += ["    if rt.depth >= _MAX_DEPTH - len(rt.state.stack):", f"        _too_deep({name})",
                 "    rt.depth += 1"]
    if code.replaces:  # marked as running until it returns or leaves its frame on the stack (vm.replacing)
        head.append(f"    rt.replacing.append({name})")
    lines = [*head, "    _i = 0", "    try:", f"        if len(L) < {code.nlocals}:",
             f"            L += [None] * ({code.nlocals} - len(L))", "        _pc = 0", "        while True:"]
    branch = "if"
    for start in sorted(s for s in starts if s < len(ops)):
        lines.append(f"            {branch} _pc == {start}:")
        branch = "elif"
        lines += _run(code, start, starts, gen)
    if waits:
        emits = gen.constant(frozenset(pc for pc, op in enumerate(ops) if op[0] == EMIT))
        lines += ["    except _Suspend as _s:  # this frame goes on at its call, or after its event",
                  f"        _s.frames.append([{name}, _i + 1 if _i in {emits} else _i, L, 1])", "        raise"]
    lines += ["    except BaseException as _e:", "        if not hasattr(_e, 'nemesis_where'):",
              f"            _e.nemesis_where = ({name}, _i)", "        raise"]
    ends = (["        rt.depth -= 1"] if waits else []) + (["        rt.replacing.pop()"] if code.replaces else [])
    if ends:
        lines += ["    finally:", *ends]
    return "\n".join([*lines, ""])


def _go(to: int, ended: bool = False, indent: str = "") -> list[str]:
    """Lines that go on at step `to` (the `leave` of blocks.step_lines), or end the run."""
    return [f"{indent}raise _GameEnded"] if ended else [f"{indent}_pc = {to}", f"{indent}continue"]


def _run(code: Code, start: int, starts: set[int], gen) -> list[str]:
    """The branch for the steps from `start` to the next jump, return or branch start."""
    ops, pad = code.ops, "                "
    out: list[str] = []
    pc, done = start, 0
    while True:
        if pc >= len(ops):
            out.append(f"{pad}return None")
            break
        if pc != start and pc in starts:
            out += _go(pc, indent=pad)
            break
        op = ops[pc]
        done += 1
        out.append(f"{pad}_i = {pc}")
        if op[0] == RETURN:
            out.append(f"{pad}return {gen.step_source(op[1]) if op[1] is not None else 'None'}")
            break
        if op[0] == JUMP:
            out += _go(op[1], indent=pad)
            break
        step = step_lines(op, pc, pad, gen, _go)
        out += step if step is not None else _waiting_step(op, pc, pad, gen)
        pc += 1
    # each run of steps is work, as a function call is: an endless loop stops at the work budget
    return [f"{pad}_work[0] += {done}", f"{pad}if _work[0] > _limits.MAX_WORK:", f"{pad}    _charge(0)", *out]


def _waiting_step(op: tuple, pc: int, pad: str, gen) -> list[str]:
    """A step that may wait, in a direct procedure: a decision or an explicit chance suspends (the
    interpreter resumes this frame at this step, as it does one it ran itself); an event calls its
    handlers in turn (vm.emit)."""
    src, inner, kind = gen.step_source, pad + "    ", op[0]
    if kind == EMIT:
        return [f"{pad}_emit(rt, {gen.constant(op[1])}, {src(op[2])})"]
    if kind == CHOOSE:
        got, dest = f"_choose(rt, {src(op[1])})", op[2]
    elif kind == CHANCE:
        got, dest = f"_chance(rt, {gen.constant(op[1])}, {src(op[2])})", op[3]
    else:
        raise AssertionError(f"no step {kind} in a procedure")
    return [f"{pad}_g = {got}", f"{pad}if _g is _WAIT:", f"{inner}raise _Suspend()",
            *([f"{pad}L[{dest}] = _g"] if dest >= 0 else [])]
