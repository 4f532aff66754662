"""One rule for the numbers the report writes in words: p-values, rounded values and counts.

- A p-value shows three significant digits down to 0.001, four decimals down to 0.0001,
  and "< 0.0001" below: never scientific notation ("1.00e-04", "0.00e+00"). A test whose
  smallest attainable p (its floor: an exact test over few models) is reached shows the
  floor and says so ("0.125, the smallest this test can give"), never "< 0.001".
- A number rounded to zero shows no sign ("0.00", never "-0.00" or "+0.00").
- A count takes its noun's singular or plural form ("1 was left out", "2 were").

Every Headline and Findings sentence, and the report's own lines, format through these
(`shared.summary_reading` quotes with them); `tests/test_report_numbers.py` greps a built
report for the forbidden forms.
"""

from __future__ import annotations

import math

P_FLOOR_SHOWN = 1e-4  # below it a p-value shows as "< 0.0001"
FLOOR_WORDS = "the smallest this test can give"


def fixed(value: float, digits: int, *, signed: bool = False, scale: float = 1.0, thousands: bool = False) -> str:
    """`value x scale` at `digits` decimals, with a sign when `signed`, and none when it rounds to zero.

    Why: f"{-0.0004:.2f}" is "-0.00", which reads as a direction the number does not have.
    """
    v = value * scale
    shown = f"{v:{'+' if signed else ''}{',' if thousands else ''}.{digits}f}"
    if math.isfinite(v) and round(v, digits) == 0:
        shown = f"{0.0:{',' if thousands else ''}.{digits}f}"
    return shown


def p_text(p: float) -> str:
    """A p-value's shown number: "0.0312", "0.0004", or "< 0.0001" below 0.0001 (never 1e-04)."""
    if not math.isfinite(p):
        return "n/a"
    if p < P_FLOOR_SHOWN:
        return f"< {P_FLOOR_SHOWN:.4f}"
    if p < 1e-3:
        return f"{p:.4f}"
    return f"{p:.3g}"


def at_floor(p: float, floor: float | None) -> bool:
    """Whether `p` is its exact test's smallest attainable value (within rounding)."""
    return floor is not None and math.isfinite(floor) and p <= floor * (1 + 1e-9)


def p_clause(p: float, floor: float | None = None) -> str:
    """The p-value as a clause: "p = 0.031", "p < 0.0001", or "p = 0.125, the smallest this test can give"."""
    shown = p_text(p)
    if at_floor(p, floor):
        return f"p = {p_text(float(floor or p))}, {FLOOR_WORDS}"
    return f"p {shown}" if shown.startswith("<") else f"p = {shown}"


def plural(n: int, singular: str, plural_form: str | None = None) -> str:
    """`n` with its noun (or verb) in the right number: `plural(1, "model")` is "1 model"."""
    word = singular if n == 1 else (plural_form or singular + "s")
    return f"{n:,} {word}"


def were(n: int) -> str:
    """The verb for `n`: "was" for one, "were" otherwise ("1 was left out", "3 were left out")."""
    return "was" if n == 1 else "were"
