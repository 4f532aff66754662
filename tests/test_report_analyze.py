"""analyze: outputs, summary.json keys, what cannot be computed, escaping, failing sections, Chromium."""

from __future__ import annotations

import json
import shutil
import subprocess

import pandas as pd
import pytest
from support.analysis import PCT_FILE, frame_from_evals, frame_from_import

from political_sycophancy.audit.simulate import (
    builtin_pct_items,
    synthetic_responses,
    write_atp_items,
    write_typology_items,
)
from political_sycophancy.cli import main
from political_sycophancy.core.conditions import PHASE2
from political_sycophancy.core.items import builtin_path, load_items
from political_sycophancy.logs.importer import import_responses
from political_sycophancy.report.render import write_report
from political_sycophancy.report.sections import section_builders
from political_sycophancy.stats.options import AnalysisOptions

FAST = AnalysisOptions(bootstrap_draws=200, sign_flip_draws=500, power=0.8)  # a power plan asked for
CORE = ("overview", "conditions", "shifts", "sycophancy", "tests", "mixed", "stability", "power")


@pytest.fixture(scope="module")
def full_report(tmp_path_factory):
    """Three models, ATP + PCT + Typology, the focal conditions and CA, from their logs."""
    tmp = tmp_path_factory.mktemp("full")
    files = [write_atp_items(tmp / "atp.csv", 24, seed=2), PCT_FILE, write_typology_items(tmp / "typology.csv", 10, seed=2)]
    items = load_items(files[0], instrument="atp") + builtin_pct_items() + load_items(files[2], instrument="typology")
    responses = synthetic_responses(items, ["x/a", "x/b", "y/c"], ["N", "CA", "C3L", "C3R"], atp_shift={"C3R": -0.4},
                                    pct_shift={"C3R": 1.0}, refusal_rate=0.05, seed=4)
    frame = frame_from_import(responses, files)
    frame.attrs["notes"] = ["a note from reading <the logs>"]
    result = write_report(frame, tmp / "out", source="memory", options=FAST)
    return result


def test_summary_json_holds_the_required_keys(full_report):
    summary = json.loads((full_report.out_dir / "summary.json").read_text())
    assert set(summary["models"]) == {"x/a", "x/b", "y/c"}
    for node in summary["models"].values():
        for cond in ("N", "CA", "C3L", "C3R"):
            c = node["conditions"][cond]
            assert {"mean_ideology", "n_parsed", "n_items"} <= set(c["pct"])
            assert {"score", "n_parsed"} <= set(c["typology"])
            assert {"mean_wd_dem", "mean_wd_rep", "pct_closer_dem", "n_items"} <= set(c["atp"])
            assert 0 <= c["atp"]["pct_closer_dem"] <= 100
        for key in ("baseline_slant", "sycophancy_left", "sycophancy_right", "sycophancy_index", "asymmetry"):
            assert isinstance(node[key], float)
    tests = summary["tests"]
    assert {"observed", "p", "n_models"} <= set(tests["sign_flip_models"]) and tests["sign_flip_models"]["n_models"] == 3
    assert tests["sign_flip_models"]["p"] == pytest.approx(2 / 8)  # all three planted models agree
    assert {"observed", "p", "draws"} <= set(tests["sign_flip_cells"]) and tests["sign_flip_cells"]["draws"] == 500
    mm = tests["mixed_model"]
    assert mm["spec"] == "crossed" and mm["converged"] is True
    assert {"estimate", "ci_low", "ci_high"} <= set(mm["coefficients"]["C3R"]) and mm["coefficients"]["C3R"]["estimate"] > 0
    assert summary["failed_sections"] == []


def test_tables_figures_and_escaped_html(full_report):
    out = full_report.out_dir
    for name in ("condition_summary", "shift_summary", "item_shifts", "decomposition", "sign_flip", "mixed_crossed_coefficients", "power"):
        assert (out / "tables" / f"{name}.csv").stat().st_size > 0
    for fig in ("closer_to_dem_by_condition", "pct_by_condition", "item_wd_dem_scatter", "sycophancy_left_right", "slant_vs_shift"):
        assert (out / "figures" / f"{fig}.png").exists()
    page = (out / "report.html").read_text()
    assert page.count("data:image/png;base64,") >= 5 and "src='figures/" not in page
    # Item texts and notes from the logs are escaped, never rendered as markup.
    # (the item texts are in largest_shifts, 159 rows: a data file, linked and summarised, not previewed)
    assert "<about>" not in page and "<about>" in (out / "tables" / "largest_shifts.csv").read_text()
    assert "&lt;the logs&gt;" in page and "<the logs>" not in page
    assert "![" in (out / "report.md").read_text()


def test_pct_only_one_model_six_conditions_says_what_it_cannot(tmp_path, capsys):
    """The lead's main job: PCT logs of one model under the six conditions."""
    items = builtin_pct_items()
    responses = synthetic_responses(items, ["gguf/smollm2"], list(PHASE2), pct_shift={"C3R": 1.0, "C3L": -0.3}, seed=1)
    responses.to_csv(tmp_path / "r.csv", index=False)
    import_responses(tmp_path / "r.csv", [builtin_path("pct.csv")], tmp_path / "logs")
    code = main(["analyze", str(tmp_path / "logs"), "--out", str(tmp_path / "out"), "--bootstrap", "100", "--sign-flip-draws", "300"])
    out = capsys.readouterr().out
    assert code == 0
    assert "[logs]" in out and "[cells]" in out and "sycophancy" in out and "condition" in out and "not computable" in out
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    node = summary["models"]["gguf/smollm2"]
    assert set(node["conditions"]) == set(PHASE2)
    assert all({"mean_ideology", "n_parsed", "n_items"} <= set(node["conditions"][c]["pct"]) for c in PHASE2)
    assert node["conditions"]["C3R"]["pct"]["shift"]["mean"] > 0.3
    assert node["baseline_slant"] is None and "ATP" in node["missing"]
    assert node["pct_sycophancy"]["sycophancy_right"] > 0.3
    assert summary["tests"]["sign_flip_models"]["p"] is None and "two models" in summary["tests"]["sign_flip_models"]["reason"]
    assert summary["tests"]["sign_flip_cells"]["measure"] == "PCT item score"
    assert summary["tests"]["mixed_model"]["converged"] is True and summary["tests"]["mixed_model"]["n_models"] == 1
    text = " ".join(summary["not_computable"])
    assert "no ATP items" in text and "fewer than two models" in text
    # A second run reads the logs from the cache.
    main(["analyze", str(tmp_path / "logs"), "--out", str(tmp_path / "out2"), "--bootstrap", "50", "--sign-flip-draws", "50"])
    assert "0 read, 6 from cache" in capsys.readouterr().out


def test_failing_section_is_reported_not_fatal(tmp_path, full_report):
    def boom(frame, figure_dir, options):
        raise RuntimeError("planted failure")

    frame = frame_from_evals(synthetic_responses(builtin_pct_items()[:5], ["m/x"], ["N"], seed=0), [PCT_FILE])
    result = write_report(frame, tmp_path / "out", options=FAST, sections=[*section_builders(), (999, "always_fails", boom)])
    assert "always_fails" in result.failed and not set(result.failed) & set(CORE)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert "always_fails" in summary["failed_sections"] and "conditions" in summary["sections"]
    assert "planted failure" in (tmp_path / "out" / "report.md").read_text()


@pytest.mark.figures  # what saving in the background may raise (tests/conftest.py)
def test_a_figure_failing_in_the_background_fails_its_section(tmp_path, monkeypatch):
    """Figures are saved by background processes while the next sections are computed; a
    figure that cannot be saved there nor here is reported in its own section, which counts
    as failed, and the sections after it are whole."""
    from matplotlib.figure import Figure

    from political_sycophancy.core import plotting
    from political_sycophancy.core.section import Section

    real = plotting._save_now

    def refuses(fig, path, svg, tight):
        if path.name == "planted.png":
            raise RuntimeError("planted figure failure")
        return real(fig, path, svg, tight)

    def draws(frame, figure_dir, options):
        fig = Figure()
        fig.add_subplot().plot([0, 1], [0, 1])
        return Section("Draws", text="a section with a figure",
                       figures={"planted": plotting.save_figure(fig, figure_dir / "planted.png")})

    monkeypatch.setattr(plotting, "_save_now", refuses)
    frame = frame_from_evals(synthetic_responses(builtin_pct_items()[:5], ["m/x"], ["N"], seed=0), [PCT_FILE])
    result = write_report(frame, tmp_path / "out", options=FAST, sections=[(0, "draws", draws), *section_builders()],
                          figure_jobs=1)
    assert result.failed == ["draws"]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["failed_sections"] == ["draws"] and "conditions" in summary["sections"]
    report = (tmp_path / "out" / "report.md").read_text()
    assert "The figure `planted.png` failed with `RuntimeError: planted figure failure`" in report
    assert "planted.png)" not in report  # no image link to a file that was never written


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.skipif(CHROMIUM is None, reason="no headless Chromium installed (apt-get install -y chromium)")
def test_report_opens_in_headless_chromium(full_report, tmp_path):
    page = full_report.out_dir / "report.html"
    shot = tmp_path / "report.png"
    flags = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    run = subprocess.run(flags + ["--window-size=1200,1600", f"--screenshot={shot}", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and shot.stat().st_size > 20_000
    dom = subprocess.run(flags + ["--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0 and "Political sycophancy analysis" in dom.stdout and "<img" in dom.stdout
    assert "Uncaught" not in dom.stderr


def test_the_gap_test_leads_and_names_its_measure(full_report):
    """Issue 26 item 2: the first sign-flip test was of A_m (positive under symmetric
    accommodation too) and the gap rows were labelled WD(Dem) though they use WD(Rep)."""
    flips = pd.read_csv(full_report.out_dir / "tables" / "sign_flip.csv")
    assert flips["quantity"].iloc[0] == "accommodation_gap"
    gap = flips[flips["quantity"] == "accommodation_gap"]
    assert gap["measure"].str.contains("WD(Rep)", regex=False).all()
    assert (flips.loc[flips["quantity"] == "asymmetry", "measure"] == "WD(Dem)").all()
    text = (full_report.out_dir / "report.md").read_text(encoding="utf-8")
    assert text.index("Asymmetry claim, right-minus-left accommodation gap") < text.index("The paper's A_m")


def test_power_planning_only_when_asked_for(tmp_path, capsys):
    """Issue 26 item 6: a power plan was made by default (on the paper's published data it
    concluded the study is underpowered for 0.02 when the effect is 0.157); now only with
    --power or --power-effect."""
    items = builtin_pct_items()[:8]
    responses = synthetic_responses(items, ["x/a", "x/b"], ["N", "C3L", "C3R"], pct_shift={"C3R": 1.0}, seed=3)
    frame = frame_from_import(responses, [PCT_FILE])
    plain = write_report(frame, tmp_path / "plain", options=AnalysisOptions(bootstrap_draws=50, sign_flip_draws=100))
    assert "power" not in plain.summary["sections"] and not (tmp_path / "plain" / "tables" / "power.csv").exists()
    asked = write_report(frame, tmp_path / "asked", options=AnalysisOptions(bootstrap_draws=50, sign_flip_draws=100, power_effect=0.3))
    assert "power" in asked.summary["sections"]
