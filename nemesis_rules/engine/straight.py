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

from nemesis_rules.engine.blocks import step_lines
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
        gen.define(_source(code, ident, gen))
        code.straight = gen.ns[ident]


def _source(code: Code, ident: str, gen) -> str:
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
        out += step_lines(op, pc, pad, gen, _go)  # a straight procedure has no other steps
        pc += 1
    # each run of steps is work, as a function call is: an endless loop stops at the work budget
    return [f"{pad}_work[0] += {done}", f"{pad}if _work[0] > _limits.MAX_WORK:", f"{pad}    _charge(0)", *out]
