"""Procedures that can never wait, as one generated Python function each ("straight" procedures).

A procedure whose steps make no decision, draw no chance, announce no event that anyone hooks
and call only other such procedures, by name and never themselves, runs from its first step to
its return without the game's place ever being saved in between. So a call to it needs no frame
on the interpreter's stack: the caller's CALL step (or the block it sits in, blocks.py) calls
its function directly, with the argument list as its locals, and stores what it returns. The
function is the procedure's steps as Python: one branch per run of steps between jump targets,
the expressions inlined as blocks inline them, the calls it makes direct in turn.

The steps stay the program's truth: the procedure keeps its `Code`, which the interpreter runs
when something reaches it other than a CALL by name (`perform`, a script field). The same
steps run in the same order, so a game plays exactly as before. What differs:
* the steps of a straight procedure count as work (limits.py), as a function's do, not against
  the interpreter's step budget;
* a fault carries `nemesis_where` = (procedure, step) for its line, the innermost procedure's;
* a step that ends the game raises `GameEnded` (after an EVAL step or a call, where the
  interpreter would have stopped), which the interpreter takes as the end of its run.
"""

from __future__ import annotations

from nemesis_rules.engine.program import (
    CALL,
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
    """A step of a straight procedure ended the game (see the module's docstring)."""


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
            if not isinstance(op[1], str) or op[2] not in gen.made:
                return None
            callees.add(op[1])
        elif op[0] not in STRAIGHT_STEPS:
            return None
    return None if code.name in callees else callees


def add_straight(program: Program, gen) -> None:
    """Give each straight procedure's `Code` its function (`Code.straight`)."""
    for name in straight_names(program, gen):
        code = program.procs[name]
        ident = f"_sp{len(gen.straight_idents)}"
        gen.straight_idents[name] = ident
        gen.define(_source(program, code, ident, gen))
        code.straight = gen.ns[ident]


def call_source(gen, op: tuple) -> str:
    """A CALL step to a straight procedure as an expression: its function on the argument list."""
    return f"{gen.straight_idents[op[1]]}(rt, {gen.made[op[2]]})"


def _source(program: Program, code: Code, ident: str, gen) -> str:
    ops = code.ops
    starts = {0}
    for op in ops:
        if op[0] == JUMP:
            starts.add(op[1])
        elif op[0] in (JUMP_IF_NOT, FOR_NEXT):
            starts.add(op[-1])
    # L: the arguments, a fresh list the function keeps as its locals (the interpreter's frame)
    lines = [f"def {ident}(rt, L):", "    _i = 0", "    try:", f"        if len(L) < {code.nlocals}:",
             f"            L += [None] * ({code.nlocals} - len(L))", "        _pc = 0", "        while True:"]
    branch = "if"
    for start in sorted(s for s in starts if s < len(ops)):
        lines.append(f"            {branch} _pc == {start}:")
        branch = "elif"
        lines += _run(code, start, starts, gen)
    lines += ["    except BaseException as _e:", "        if not hasattr(_e, 'nemesis_where'):",
              f"            _e.nemesis_where = ({gen.constant(code.name)}, _i)", "        raise", ""]
    return "\n".join(lines)


def _run(code: Code, start: int, starts: set[int], gen) -> list[str]:
    """The branch for the steps from `start` to the next jump, return or branch start."""
    ops, pad = code.ops, "                "
    out: list[str] = []

    src = gen.step_source
    def go(to: int, indent: str = pad) -> None:
        out.extend([f"{indent}_pc = {to}", f"{indent}continue"])

    pc, done = start, 0
    while True:
        if pc >= len(ops):
            out.append(f"{pad}return None")
            break
        if pc != start and pc in starts:
            go(pc)
            break
        op = ops[pc]
        kind = op[0]
        done += 1
        out.append(f"{pad}_i = {pc}")
        if kind == EVAL:
            out += [f"{pad}{src(op[1])}", f"{pad}if rt.state.result is not None:", f"{pad}    raise _GameEnded"]
        elif kind == STORE:
            out.append(f"{pad}L[{op[1]}] = {src(op[2])}")
        elif kind == JUMP_IF_NOT:
            out.append(f"{pad}if not {src(op[1])}:")
            go(op[2], pad + "    ")
        elif kind == FOR_NEXT:
            var, items, index, end = op[1:]
            out += [f"{pad}_n = L[{index}]", f"{pad}if _n >= len(L[{items}]):"]
            go(end, pad + "    ")
            out += [f"{pad}L[{var}] = L[{items}][_n]", f"{pad}L[{index}] = _n + 1"]
        elif kind == CALL:  # the interpreter stops after a call that ended the game: so does this
            call = call_source(gen, op)
            out += [f"{pad}L[{op[3]}] = {call}" if op[3] >= 0 else f"{pad}{call}",
                    f"{pad}if rt.state.result is not None:", f"{pad}    raise _GameEnded"]
        elif kind == RETURN:
            out.append(f"{pad}return {src(op[1]) if op[1] is not None else 'None'}")
            break
        elif kind == JUMP:
            go(op[1])
            break
        pc += 1
    # each run of steps is work, as a function call is: an endless loop stops at the work budget
    return [f"{pad}_work[0] += {done}", f"{pad}if _work[0] > _limits.MAX_WORK:", f"{pad}    _charge(0)", *out]
