"""Sign-flip permutation tests of a mean against zero.

Null hypothesis: each unit's value is symmetric about zero (for the paper's asymmetry:
the C3L and C3R labels are exchangeable within a model, which flips the sign of
(C3R - N) - (C3L - N)). Test statistic: |mean|; two-sided p = share of sign patterns whose
|mean| is at least the observed |mean| (a relative tolerance of 1e-9 absorbs rounding).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

EXACT_MAX_UNITS = 20
DEFAULT_DRAWS = 10_000
DEFAULT_SEED = 20260
_TOL = 1e-9
# bytes of a sign pattern summed per pass of `sign_flip_draws` (their table: 64 x 256 floats, 128 KiB)
TABLE_BLOCK = 64


def _at_least(stat: np.ndarray, observed: float) -> np.ndarray:
    return stat >= observed - _TOL * max(1.0, abs(observed))


def sign_flip_exact(values: ArrayLike) -> dict[str, Any]:
    """Exact sign-flip test over all 2^M sign patterns of M unit values (e.g. per-model asymmetries).

    p = #{s in {-1, 1}^M : |mean(s * x)| >= |mean(x)|} / 2^M.

    Also returns `min_p`, the smallest p any data could reach with these M units
    (2 / 2^M: only the observed pattern and its mirror reach the maximum |mean| when all
    values are nonzero), so a reader can see when M is too small for a given alpha.
    """
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    m = len(x)
    out = {
        "observed": float(x.mean()) if m else math.nan,
        "p": math.nan,
        "n_units": m,
        "n_patterns": 2**m if m else 0,
        "min_p": 2.0 / 2**m if m else math.nan,
        "n_positive": int((x > 0).sum()),
        "n_negative": int((x < 0).sum()),
    }
    if m == 0:
        return out
    if m > EXACT_MAX_UNITS:
        raise ValueError(f"exact enumeration over {m} units (2^{m} patterns) is too large; use sign_flip_draws")
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=m)))
    stat = np.abs(signs @ x) / m
    out["p"] = float(_at_least(stat, abs(out["observed"])).mean())
    return out


def sign_flip_draws(values: ArrayLike, *, draws: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED) -> dict[str, Any]:
    """Sign-flip test with `draws` random sign patterns (seeded).

    p = (1 + #{draws with |mean(s * x)| >= |mean(x)|}) / (1 + draws), which is never 0
    and is a valid p-value for a Monte Carlo test; `exceed` is the raw count.

    A pattern is drawn as random bytes, one bit per unit (+1 where set): with s = 2b - 1,
    sum(s * x) = 2 sum(b * x) - sum(x), and sum(b * x) is a sum of one table entry per
    byte (the 256 partial sums of the byte's 8 units), an eighth of the additions of
    multiplying out every sign.
    """
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    n = len(x)
    out = {
        "observed": float(x.mean()) if n else math.nan,
        "p": math.nan,
        "n_units": n,
        "draws": draws,
        "seed": seed,
        "exceed": 0,
        "min_p": 1.0 / (1 + draws),
        "n_positive": int((x > 0).sum()),
        "n_negative": int((x < 0).sum()),
    }
    if n == 0:
        return out
    rng = np.random.default_rng(seed)
    observed = abs(out["observed"])
    n_bytes = -(-n // 8)
    units = np.zeros(n_bytes * 8)
    units[:n] = x
    bits = (np.arange(256)[:, None] >> np.arange(8)) & 1  # byte value x bit (least significant first)
    table = units.reshape(n_bytes, 8) @ bits.T  # [j, v]: the sum of byte j's units whose bit is set in v
    # the table is read in blocks of TABLE_BLOCK bytes, a block's entries staying in the CPU's cache
    offsets = np.arange(TABLE_BLOCK) * 256
    total = x.sum()
    exceed = 0
    chunk = max(1, 4_000_000 // n_bytes)
    for start in range(0, draws, chunk):
        k = min(chunk, draws - start)
        patterns = rng.integers(0, 256, size=(k, n_bytes), dtype=np.uint8)
        sums = np.zeros(k)
        for j in range(0, n_bytes, TABLE_BLOCK):
            block = patterns[:, j : j + TABLE_BLOCK].astype(np.intp)
            block += offsets[: block.shape[1]]
            sums += table[j : j + TABLE_BLOCK].ravel()[block].sum(axis=1)
        stat = np.abs(2.0 * sums - total) / n
        exceed += int(_at_least(stat, observed).sum())
    out["exceed"] = exceed
    out["p"] = (1 + exceed) / (1 + draws)
    return out
