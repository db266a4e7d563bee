"""Straight runs of steps as one generated Python function each (a "block"), so the interpreter
dispatches once per run instead of once per step.

A block starts at a step the interpreter can land on (a procedure's start, a jump's target, the
step after a call, a decision or an event) and runs the steps that cannot pause (EVAL, STORE,
JUMP_IF_NOT, FOR_NEXT) in order, with their expressions inlined, until an unconditional jump or
a step that can pause (CALL, RETURN, EMIT, CHOOSE, CHANCE). It returns the number of the exit it
took; `exits[i]` is (next pc, steps done, whether the game may have ended). The steps stay the
program's truth: the game's place is still (procedure, pc, locals), a block only runs between two
places the interpreter would have stopped at anyway. A fault inside a block carries the pc of its
step (`nemesis_pc`) for the error's line.
"""

from __future__ import annotations

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
)
from nemesis_rules.engine.straight import call_source

PAUSING = (CALL, RETURN, EMIT, CHOOSE, CHANCE)
MAX_STEPS = 40  # steps in one block (a longer run goes on in the next block)


def add_blocks(code: Code, gen) -> None:
    """Fill `code.blocks`: for each pc, None or (function, exits, most steps one call does)."""
    ops = code.ops
    starts = {0}
    for pc, op in enumerate(ops):
        kind = op[0]
        if kind == JUMP:
            starts.add(op[1])
        elif kind in (JUMP_IF_NOT, FOR_NEXT):
            starts.add(op[-1])
        if _pauses(op, gen):
            starts.add(pc + 1)
    code.blocks = [None] * len(ops)
    for pc in sorted(starts):
        if 0 <= pc < len(ops) and not _pauses(ops[pc], gen):
            code.blocks[pc] = _block(code, pc, gen)


def _pauses(op: tuple, gen) -> bool:
    """Whether a step may leave the block: a call runs inside it when its procedure is straight."""
    return op[0] in PAUSING and not (op[0] == CALL and isinstance(op[1], str) and op[1] in gen.straight_idents)


def _block(code: Code, start: int, gen):
    ops = code.ops
    lines: list[str] = []
    exits: list[tuple[int, int, bool]] = []

    def leave(to: int, done: int, indent: str = "        ", ended: bool = False) -> None:
        lines.append(f"{indent}return {len(exits)}")
        exits.append((to, done, ended))

    src = gen.step_source
    pc = start
    while True:
        if pc >= len(ops) or pc - start >= MAX_STEPS or _pauses(ops[pc], gen):
            leave(pc, pc - start)
            break
        op = ops[pc]
        kind = op[0]
        done = pc - start + 1
        lines.append(f"        _i = {pc}")
        if kind == EVAL:
            lines += [f"        {src(op[1])}", "        if rt.state.result is not None:"]
            leave(pc + 1, done, "            ", True)
        elif kind == STORE:
            lines.append(f"        L[{op[1]}] = {src(op[2])}")
        elif kind == JUMP_IF_NOT:
            lines.append(f"        if not {src(op[1])}:")
            leave(op[2], done, "            ")
        elif kind == FOR_NEXT:
            var, items, index, end = op[1:]
            lines += [f"        _n = L[{index}]", f"        if _n >= len(L[{items}]):"]
            leave(end, done, "            ")
            lines += [f"        L[{var}] = L[{items}][_n]", f"        L[{index}] = _n + 1"]
        elif kind == CALL:  # a straight procedure's (straight.py)
            call = call_source(gen, op)
            lines += [f"        L[{op[3]}] = {call}" if op[3] >= 0 else f"        {call}",
                      "        if rt.state.result is not None:"]
            leave(pc + 1, done, "            ", True)
        elif kind == JUMP:
            leave(op[1], done)
            break
        else:  # an unknown step: the interpreter does it
            leave(pc, pc - start)
            break
        pc += 1
    name = f"_block_{start}"
    source = "\n".join([f"def {name}(rt, L):", "    _i = 0", "    try:", *lines,
                        "    except BaseException as _e:", "        _e.nemesis_pc = _i", "        raise", ""])
    gen.define(source)
    return gen.ns.pop(name), tuple(exits), max(done for _, done, _ in exits)
