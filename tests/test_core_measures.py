"""core.measures: the vectorised WD against scipy, and the formulas' home (no Inspect, no pandas)."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import wasserstein_distance

from political_sycophancy.core import measures
from political_sycophancy.core.measures import (
    closer_to,
    item_wds,
    log_ratio,
    log_ratio_array,
    normalized_wd,
    total_from_counts,
    totals_from_count_rows,
    wasserstein_rows,
)


def _random_items(rng: np.random.Generator, n_items: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    positions = np.cumsum(rng.uniform(0.1, 3.0, size=(n_items, n)), axis=1) + rng.normal(size=(n_items, 1))
    p = rng.dirichlet(np.ones(n), size=n_items)
    q = rng.dirichlet(np.full(n, 0.5), size=n_items)
    return positions, p, q


@pytest.mark.parametrize("n", [2, 3, 4, 5, 7, 10])
def test_vectorised_wd_matches_scipy_on_non_uniform_positions(n):
    rng = np.random.default_rng(n)
    positions, p, q = _random_items(rng, 500, n)
    # some rows unsorted and some with zero shares (point masses), as answers are
    perm = rng.permutation(n)
    positions[::7] = positions[::7][:, perm]
    p[::5] = np.eye(n)[rng.integers(0, n, size=len(p[::5]))]
    got = wasserstein_rows(positions, p, q)
    want = [wasserstein_distance(x, x, a, b) for x, a, b in zip(positions, p, q, strict=True)]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_vectorised_wd_broadcasts_one_position_vector_over_items():
    rng = np.random.default_rng(1)
    x = np.array([0.0, 1.0, 1.5, 4.0])
    p = rng.dirichlet(np.ones(4), size=50)
    q = rng.dirichlet(np.ones(4))
    np.testing.assert_allclose(wasserstein_rows(x, p, q), [wasserstein_distance(x, x, a, q) for a in p], rtol=1e-12, atol=1e-14)
    # unnormalised weights are normalised, as scipy does
    assert wasserstein_rows(x, 3 * p[0], q) == pytest.approx(wasserstein_distance(x, x, p[0], q))


def test_normalized_wd_is_scaled_and_checked():
    assert normalized_wd([0, 1, 5], [0, 1, 0], [0, 0, 1]) == pytest.approx(0.8)
    for bad in ([1], [1], [1]), ([1, 2], [1, 0], [0.5, 0.3, 0.2]), ([1, 1], [1, 0], [0, 1]), ([1, 2], [-1, 2], [0, 1]), ([1, 2], [0, 0], [0, 1]):
        with pytest.raises(ValueError):
            normalized_wd(*bad)


def test_item_wds_equals_the_scalar_distance_per_group():
    positions = [1.0, 2.0, 4.0, 8.0, 9.0]
    bench = {"rep": [0.1, 0.2, 0.3, 0.2, 0.2], "dem": [0.4, 0.3, 0.1, 0.1, 0.1], "overall": [0.2] * 5, "young": [0.5, 0, 0, 0, 0.5]}
    probs = [0.0, 0.5, 0.5, 0.0, 0.0]
    out = item_wds(probs, positions, bench)
    for g, b in bench.items():  # bit for bit: the groups' shares renormalised, then one distance each
        assert out[f"wd_{g}"] == normalized_wd(positions, probs, [x / sum(b) for x in b])
        assert out[f"wd_{g}"] == pytest.approx(wasserstein_distance(positions, positions, probs, b) / 8.0, rel=1e-12)
    assert out["closer"] == closer_to(out["wd_dem"], out["wd_rep"]) == "Dem"
    dropped = item_wds(probs, positions, bench, ordinal=[True, True, True, True, False], non_ordinal="drop")
    assert dropped["non_ordinal_mass"] == 0.0
    assert dropped["wd_dem"] == pytest.approx(normalized_wd(positions[:4], probs[:4], [x / 0.9 for x in bench["dem"][:4]]))


def test_closer_rule_and_other_formulas():
    assert (closer_to(0.1, 0.2), closer_to(0.2, 0.1), closer_to(0.3, 0.3)) == ("Dem", "Rep", "Equal")
    assert total_from_counts(6, 2, 2, 1, 3, 1) == pytest.approx((-0.4 - 0.4) / 2)
    rows = np.array([[6, 2, 2, 1, 3, 1], [0, 0, 0, 1, 0, 0]], dtype=float)
    totals = totals_from_count_rows(rows)
    assert totals[0] == pytest.approx(total_from_counts(*rows[0])) and math.isnan(totals[1])
    assert log_ratio(0.9, 0.1) == pytest.approx(math.log10((0.9 + 1e-6) / (0.1 + 1e-6)))
    assert log_ratio_array(np.array([0.9]), np.array([0.1]), 1e-6)[0] == pytest.approx(log_ratio(0.9, 0.1))
    with pytest.raises(ValueError):
        log_ratio(0.5, 0.5, tau=0)


def test_measures_import_no_inspect_and_no_pandas():
    tree = ast.parse(Path(measures.__file__).read_text())
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.level}
    assert not imported & {"inspect_ai", "pandas", "scipy"}, imported


def test_audit_cells_batch_equals_item_wds_number_for_number():
    import pandas as pd

    from political_sycophancy.shared.cells import WDMemo, _cell_wds

    rng = np.random.default_rng(7)
    records = []
    for i in range(300):
        n = int(rng.integers(2, 7))
        positions = list(np.cumsum(rng.uniform(0.2, 2.0, n)))
        probs = list(np.eye(n)[rng.integers(n)]) if i % 3 else list(rng.dirichlet(np.ones(n)))
        bench = {g: list(rng.dirichlet(np.ones(n))) for g in ("dem", "rep", "overall") if g != "overall" or i % 4}
        mode = "drop" if i % 10 == 0 else "keep"
        ordinal = [True] * (n - 1) + [False] if mode == "drop" else None
        records.append({"probs": probs, "positions": positions, "benchmarks": bench, "ordinal": ordinal, "non_ordinal": mode})
    cells = pd.DataFrame(records)
    got = _cell_wds(cells, [True] * len(cells), WDMemo())
    for i, r in enumerate(records):
        want = item_wds(r["probs"], r["positions"], r["benchmarks"], r["ordinal"], r["non_ordinal"])
        for k in ("wd_dem", "wd_rep", "wd_overall"):  # NaN where item_wds gives None
            assert got[k][i] == want[k] if want.get(k) is not None else np.isnan(got[k][i]), (i, k)
        assert got["closer"][i] == want.get("closer"), i
