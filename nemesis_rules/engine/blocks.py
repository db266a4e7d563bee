"""Straight runs of steps as one generated Python function each (a "block"), so the interpreter
dispatches once per run instead of once per step.

A block starts at a step the interpreter can land on (a procedure's start, a jump's target, the
step after a call, a decision or an event) and runs the steps EVAL, STORE, JUMP_IF_NOT, FOR_NEXT
and CALL (the procedure's function, straight.py; one that reaches a decision suspends through the
block) in order, with their expressions inlined (`step_lines`, which procedures' functions write
their steps with too), until an unconditional jump or a step the interpreter takes itself
(RETURN, EMIT, CHOOSE, CHANCE). It returns the number of the exit it took; `exits[i]` is (next
pc, steps done, whether the game may have ended). The steps stay the program's truth: the game's place is still (procedure, pc, locals), a block only runs between two
places the interpreter would have stopped at anyway. A fault inside a block carries the pc of its
step (`nemesis_pc`) for the error's line.
"""

from __future__ import annotations

from collections.abc import Callable

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

PAUSING = (RETURN, EMIT, CHOOSE, CHANCE)  # the steps the interpreter takes itself (a call runs in line)
MAX_STEPS = 40  # steps in one block (a longer run goes on in the next block)


def add_blocks(code: Code, gen) -> None:
    """Fill `code.blocks`: for each pc, None or (function, exits, most steps one call does)."""
    ops = code.ops
    starts = {0} | jump_targets(ops)
    # and after each step the interpreter takes itself, or a call that suspended (straight.py)
    starts.update(pc + 1 for pc, op in enumerate(ops) if op[0] in PAUSING or op[0] == CALL)
    code.blocks = [None] * len(ops)
    for pc in sorted(starts):
        if 0 <= pc < len(ops) and ops[pc][0] not in PAUSING:
            code.blocks[pc] = _block(code, pc, gen)


def jump_targets(ops: list[tuple]) -> set[int]:
    """The steps a jump may land on (where a block, or a branch of a procedure's function, starts)."""
    targets = set()
    for op in ops:
        if op[0] == JUMP:
            targets.add(op[1])
        elif op[0] in (JUMP_IF_NOT, FOR_NEXT):
            targets.add(op[-1])
    return targets


def _block(code: Code, start: int, gen):
    ops = code.ops
    lines: list[str] = []
    exits: list[tuple[int, int, bool]] = []
    done = 0

    def leave(to: int, ended: bool = False, indent: str = "        ") -> list[str]:
        exits.append((to, done, ended))
        return [f"{indent}return {len(exits) - 1}"]

    pc = start
    while True:
        if pc >= len(ops) or pc - start >= MAX_STEPS or ops[pc][0] in PAUSING:
            done = pc - start
            lines += leave(pc)
            break
        op = ops[pc]
        done = pc - start + 1
        lines.append(f"        _i = {pc}")
        if op[0] == JUMP:
            lines += leave(op[1])
            break
        step = step_lines(op, pc, "        ", gen, leave)
        if step is None:  # an unknown step: the interpreter does it
            done = pc - start
            lines += leave(pc)
            break
        lines += step
        pc += 1
    name = f"_block_{start}"
    source = "\n".join([f"def {name}(rt, L):", "    _i = 0", "    try:", *lines,
                        "    except BaseException as _e:", "        _e.nemesis_pc = _i", "        raise", ""])
    gen.define(source)
    return gen.ns.pop(name), tuple(exits), max(done for _, done, _ in exits)


def step_lines(op: tuple, pc: int, pad: str, gen, leave: Callable[..., list[str]]) -> list[str] | None:
    """The Python lines, indented by `pad`, of a step that generated code runs in line: EVAL,
    STORE, JUMP_IF_NOT, FOR_NEXT and CALL (straight.py). `leave(to,
    ended, indent)` writes the lines that go on at step `to` (`ended`: the game may have ended
    there); None for any other step. Blocks and procedures' functions both write their steps so."""
    src, inner, kind = gen.step_source, pad + "    ", op[0]
    if kind == EVAL:
        return [f"{pad}{src(op[1])}", f"{pad}if rt.state.result is not None:", *leave(pc + 1, True, inner)]
    if kind == STORE:
        return [f"{pad}L[{op[1]}] = {src(op[2])}"]
    if kind == JUMP_IF_NOT:
        return [f"{pad}if not {src(op[1])}:", *leave(op[2], False, inner)]
    if kind == FOR_NEXT:
        var, items, index, end = op[1:]
        return [f"{pad}_n = L[{index}]", f"{pad}if _n >= len(L[{items}]):", *leave(end, False, inner),
                f"{pad}L[{var}] = L[{items}][_n]", f"{pad}L[{index}] = _n + 1"]
    if kind == CALL:  # the interpreter stops after a call that ended the game
        call = call_source(op, gen)
        return [f"{pad}L[{op[3]}] = {call}" if op[3] >= 0 else f"{pad}{call}",
                f"{pad}if rt.state.result is not None:", *leave(pc + 1, True, inner)]
    return None


def call_source(op: tuple, gen) -> str:
    """A CALL step's call of its procedure's function (straight.py): by its name, or through
    `vm.call_by_value` when the step works the procedure out (a card's script)."""
    args = gen.step_source(op[2])
    if isinstance(op[1], str):
        return f"{gen.proc_idents[op[1]]}(rt, {args})"
    return f"_call(rt, {gen.step_source(op[1])}, {args})"
