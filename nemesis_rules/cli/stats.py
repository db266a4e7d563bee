"""The few statistics the simulation reports need: Wilson intervals of a proportion, and the
difference of two proportions or two means with a 95% interval and a two-sided p-value.

Our own code on purpose (the standard library): scipy is not a dependency, and the same figures
come out on every install. Two proportions are tested with Fisher's exact test (two-sided: the
tables with the same margins no more likely than the one seen), exact for the rare events bots
give (a win in 1% of games), where a z-test's p goes wrong; their interval is Newcombe's, from the
two Wilson intervals. Two means are compared with Welch's normal approximation (fine for the
hundreds of games a comparison plays; with a few dozen the p-value is a rough guide).
"""

from __future__ import annotations

import math
import statistics
from statistics import NormalDist

import attrs

Z95 = NormalDist().inv_cdf(0.975)  # 1.96
SIGNIFICANT = 0.05


def wilson(hits: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The 95% Wilson score interval of hits/n ((0, 1) when n is 0)."""
    if n == 0:
        return 0.0, 1.0
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low = 0.0 if hits == 0 else max(0.0, centre - half)  # exact at the ends, not 1e-17 off
    high = 1.0 if hits == n else min(1.0, centre + half)
    return low, high


@attrs.frozen
class Difference:
    """B's value minus A's, its 95% interval and the test's two-sided p-value."""

    a: float
    b: float
    low: float
    high: float
    p: float

    @property
    def delta(self) -> float:
        return self.b - self.a

    @property
    def significant(self) -> bool:
        return self.p < SIGNIFICANT


def _two_sided(z: float) -> float:
    return 2 * (1 - NormalDist().cdf(abs(z)))


def proportions(hits_a: int, n_a: int, hits_b: int, n_b: int) -> Difference:
    """pb - pa: Newcombe's interval (from the two Wilson intervals) and Fisher's exact test."""
    pa, pb = hits_a / n_a if n_a else 0.0, hits_b / n_b if n_b else 0.0
    la, ha = wilson(hits_a, n_a)
    lb, hb = wilson(hits_b, n_b)
    delta = pb - pa
    low = delta - math.sqrt((pb - lb) ** 2 + (ha - pa) ** 2)
    high = delta + math.sqrt((hb - pb) ** 2 + (pa - la) ** 2)
    return Difference(pa, pb, low, high, fisher(hits_a, n_a, hits_b, n_b))


def fisher(hits_a: int, n_a: int, hits_b: int, n_b: int) -> float:
    """Fisher's exact test of hits_a/n_a against hits_b/n_b, two-sided."""
    hits, n = hits_a + hits_b, n_a + n_b
    if not n_a or not n_b or hits in (0, n):
        return 1.0

    def log_p(k: int) -> float:  # the hypergeometric chance of k hits in A, the margins fixed
        return _log_comb(n_a, k) + _log_comb(n_b, hits - k) - _log_comb(n, hits)

    seen = log_p(hits_a)
    total = sum(math.exp(lp) for k in range(max(0, hits - n_b), min(hits, n_a) + 1)
                if (lp := log_p(k)) <= seen + 1e-9)
    return min(1.0, total)


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def means(a: list[float], b: list[float]) -> Difference:
    """mean(b) - mean(a): Welch's standard error, a normal interval and z-test."""
    ma = statistics.fmean(a) if a else 0.0
    mb = statistics.fmean(b) if b else 0.0
    va = statistics.variance(a) / len(a) if len(a) > 1 else 0.0
    vb = statistics.variance(b) / len(b) if len(b) > 1 else 0.0
    se = math.sqrt(va + vb)
    delta = mb - ma
    if se == 0:
        return Difference(ma, mb, delta, delta, 1.0 if delta == 0 or not (a and b) else 0.0)
    return Difference(ma, mb, delta - Z95 * se, delta + Z95 * se, _two_sided(delta / se))
