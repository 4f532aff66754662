"""The check on items answered under every condition (issue 46 item 8): a condition a model
often refuses is compared on fewer, and other, items than the rest; the table gives its
values on the items answered everywhere beside those on every answered item."""

from __future__ import annotations

import pandas as pd
import pytest

from political_sycophancy.shared.summaries import all_answered_check, answered_everywhere


def _cells() -> pd.DataFrame:
    """One model, four ATP items under N and C3R; item i3 refused under C3R. Under C3R the
    refused item is the one closest to Democrats under N, so dropping it moves N's share."""
    rows = []
    closer = {("N", "i0"): "Dem", ("N", "i1"): "Rep", ("N", "i2"): "Dem", ("N", "i3"): "Dem",
              ("C3R", "i0"): "Rep", ("C3R", "i1"): "Rep", ("C3R", "i2"): "Dem", ("C3R", "i3"): None}
    for (cond, item), side in closer.items():
        answered = side is not None
        rows.append({"model": "m", "instrument": "atp", "condition": cond, "item_id": item, "scoring": "wd",
                     "n_samples": 1, "n_answered": int(answered), "n_refusal": int(not answered), "n_unparsed": 0,
                     "n_no_logprobs": 0, "n_error": 0, "answered": answered, "has_benchmarks": True,
                     "wd_dem": 0.1 if side == "Dem" else 0.3 if answered else None,
                     "wd_rep": 0.3 if side == "Dem" else 0.1 if answered else None, "wd_overall": 0.2 if answered else None,
                     "closer": side, "direction": 0, "axis": None})
    return pd.DataFrame(rows)


def test_shares_on_items_answered_under_every_condition_beside_the_full_ones():
    cells = _cells()
    assert answered_everywhere(cells).tolist() == [True, True, True, False] * 2
    t = all_answered_check(cells).set_index("condition")
    assert t.loc["N", "n_answered"] == 4 and t.loc["C3R", "n_answered"] == 3
    assert (t["n_all_answered"] == 3).all() and t.loc["N", "share_all_answered"] == pytest.approx(0.75)
    assert t.loc["N", "pct_closer_dem"] == pytest.approx(75.0)  # 3 of 4
    assert t.loc["N", "pct_closer_dem (all answered)"] == pytest.approx(200 / 3)  # 2 of the 3 answered everywhere
    assert t.loc["C3R", "pct_closer_dem"] == t.loc["C3R", "pct_closer_dem (all answered)"] == pytest.approx(100 / 3)
