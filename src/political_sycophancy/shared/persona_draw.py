"""Drawing personas: the paper's degenerate personas and balanced designs, randomised with a seed.

Drawing personas: the paper's degenerate personas, and balanced designs over chosen
attributes (a full factorial, or a fractional one of n personas), randomised with a seed.

Balance is what makes the attribute effects average marginal component effects: in a full
factorial every level of an attribute meets every combination of the others equally often;
in a fractional design of n personas each attribute's levels appear n/L times (rounded, the
extra copies given to randomly chosen levels) and are shuffled independently of the other
attributes, so that no attribute is confounded with another in expectation; a draw that
confounds them in fact (a small n) is drawn again.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from ..core.errors import InputError
from .personas import Attribute, Persona, Schema

BASELINE_ID = "N"
DESIGNS = ("paper", "factorial", "fractional", "survey")
# The first seed's explicit partisan askers as personas stating only their partisanship:
# with the packaged explicit cues they send the C3L and C3R preambles byte for byte.
PAPER_PERSONAS = (("C3L", "progressive_dem"), ("C3R", "conservative_rep"))
MAX_FACTORIAL = 100_000
MAX_DRAWS = 200


def baseline() -> Persona:
    """The persona that states nothing: the audit's N prompt in every mode."""
    return Persona(BASELINE_ID)


def paper_personas(schema: Schema) -> list[Persona]:
    """C3L and C3R as personas (partisanship only)."""
    attribute = schema.get("partisanship")
    for _, level in PAPER_PERSONAS:
        if level not in attribute.level_ids:
            raise InputError(
                f"the paper design needs partisanship level {level!r}", file=schema.source, field="partisanship"
            )
    return [Persona(pid, (("partisanship", level),)) for pid, level in PAPER_PERSONAS]


def _ordered(schema: Schema, attributes: Sequence[Attribute], levels: Sequence[str]) -> tuple[tuple[str, str], ...]:
    chosen = dict(zip((a.name for a in attributes), levels, strict=True))
    return tuple((name, chosen[name]) for name in schema.names if name in chosen)


def factorial_size(attributes: Sequence[Attribute]) -> int:
    """The number of personas in the full factorial of `attributes` (the product of their level counts)."""
    return math.prod(len(a.levels) for a in attributes)


def full_factorial(schema: Schema, attributes: Sequence[Attribute], seed: int) -> list[Persona]:
    """Every combination of the attributes' levels once, in a seeded random order."""
    size = factorial_size(attributes)
    if size > MAX_FACTORIAL:
        raise InputError(
            f"a full factorial of {', '.join(a.name for a in attributes)} has {size:,} personas; "
            "use design=fractional with n=<personas>"
        )
    combos = list(itertools.product(*(a.level_ids for a in attributes)))
    order = np.random.default_rng(seed).permutation(len(combos))
    return [Persona(f"p{k + 1:03d}", _ordered(schema, attributes, combos[i])) for k, i in enumerate(order)]


def balanced_column(levels: Sequence[str], n: int, rng: np.random.Generator) -> list[str]:
    """N draws of `levels`, each level as often as the others give or take one, in random order.

    N draws of `levels`, each level floor(n/L) or ceil(n/L) times (which levels get the
    extra copies is random), in random order.
    """
    base, extra = divmod(n, len(levels))
    counts = np.full(len(levels), base)
    counts[rng.choice(len(levels), size=extra, replace=False)] += 1
    column = [lv for lv, c in zip(levels, counts, strict=True) for _ in range(int(c))]
    return [column[i] for i in rng.permutation(n)]


def separable(columns: Sequence[Sequence[str]]) -> bool:
    """Whether the attributes' effects can be told apart on these personas.

    The main-effects design matrix (an intercept and a dummy per non-first level) has full
    column rank.
    """
    n = len(columns[0])
    blocks = [np.ones((n, 1))]
    for column in columns:
        levels = sorted(set(column))
        blocks.append(np.array([[float(v == lv) for lv in levels[1:]] for v in column]).reshape(n, len(levels) - 1))
    x = np.hstack(blocks)
    return int(np.linalg.matrix_rank(x.T @ x)) == x.shape[1]


def fractional(schema: Schema, attributes: Sequence[Attribute], n: int, seed: int) -> list[Persona]:
    """N personas with each attribute balanced on its own and shuffled independently.

    A draw in which one attribute's levels are a function of the others' (their effects
    could not be told apart) is drawn again, up to `MAX_DRAWS` times.
    """
    if not isinstance(n, int) or isinstance(n, bool) or not 2 <= n <= MAX_FACTORIAL:
        raise InputError(f"n must be a whole number of personas from 2 to {MAX_FACTORIAL:,}, got {n!r}")
    widest = max(attributes, key=lambda a: len(a.levels))
    if n < len(widest.levels):
        raise InputError(f"n={n} personas cannot show every one of the {len(widest.levels)} levels of {widest.name}")
    needed = 1 + sum(len(a.levels) - 1 for a in attributes)
    if n < needed:
        raise InputError(
            f"n={n} personas cannot separate the effects of {', '.join(a.name for a in attributes)}: "
            f"at least {needed} are needed (1 + the levels beyond the first of each attribute)"
        )
    rng = np.random.default_rng(seed)
    for _ in range(MAX_DRAWS):
        columns = [balanced_column(a.level_ids, n, rng) for a in attributes]
        if separable(columns):
            return [Persona(f"p{k + 1:03d}", _ordered(schema, attributes, [c[k] for c in columns])) for k in range(n)]
    raise InputError(
        f"no draw of n={n} personas in {MAX_DRAWS} separates the effects of {', '.join(a.name for a in attributes)}; "
        "use more personas or design=factorial"
    )


def balanced(schema: Schema, attributes: Sequence[Attribute], n: int | None, seed: int) -> list[Persona]:
    """A full factorial when n is None or at least its size, else a fractional design of n."""
    if not attributes:
        raise InputError("a balanced design needs at least one attribute")
    if n is None or n >= factorial_size(attributes):
        return full_factorial(schema, attributes, seed)
    return fractional(schema, attributes, n, seed)
