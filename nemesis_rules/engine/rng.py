"""Seeded randomness as one integer of state (SplitMix64): the same in every process."""

from __future__ import annotations

_MASK = (1 << 64) - 1


def seed_state(seed: int) -> int:
    return seed & _MASK


def next64(state: int) -> tuple[int, int]:
    """The next state and a 64-bit output."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return state, z ^ (z >> 31)


def below(state: int, n: int) -> tuple[int, int]:
    """The next state and an unbiased integer in [0, n)."""
    if n <= 0:
        raise ValueError("below() needs a positive bound")
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        state, z = next64(state)
        if z < limit:
            return state, z % n
