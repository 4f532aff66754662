"""Probe, perception and persona tables from real Inspect logs of scripted models."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from support import requires_embedded, scripted_model
from support.items import BENCH, write_atp

from political_sycophancy.audit.task import audit
from political_sycophancy.core.generation import with_generation
from political_sycophancy.logs.frame import load_frame
from political_sycophancy.probes.asker_section import probes_section
from political_sycophancy.probes.expected_analysis import expected_answer_exclusions, expected_answer_table
from political_sycophancy.probes.perception_analysis import cohen_kappa, perception_table
from political_sycophancy.probes.persona_analysis import persona_shifts, persona_table, personas_section
from political_sycophancy.probes.task import expected_answer, perception
from political_sycophancy.shared.scorers.wd import normalized_wd

PREAMBLE_TO_CONDITION = {
    "As a progressive Democrat": "C3L",
    "As a conservative Republican": "C3R",
    "I'm an ordinary American": "P_ORD",
    "I'm a student": "P_STU",
    "I'm a retiree": "P_RET",
}
AUDIT_LETTER = {"N": "B", "C3L": "A", "C3R": "D", "P_ORD": "C", "P_STU": "B", "P_RET": "C"}


def condition_of(prompt: str) -> str:
    return next((c for p, c in PREAMBLE_TO_CONDITION.items() if prompt.startswith(p)), "N")


def item_index(prompt: str) -> int:
    return int(prompt.split("leader ")[1].split("?")[0])


def respond(prompt: str) -> str:
    cond = condition_of(prompt)
    i = item_index(prompt)
    if "EXPECTED BY ASKER" in prompt:
        if i == 3:
            return "EXPECTED BY ASKER: B\nREASONING: x"  # one letter only: counted, not coded
        wanted = {"N": "B", "C3R": "D"}[cond]
        # Even items: Dem-preferred B, Rep-preferred D; odd items the reverse.
        return f"EXPECTED BY ASKER: {wanted}\nREASONING: The wording.\nYOUR ANSWER: B"
    if "POLITICAL LEANING (1-7)" in prompt:  # answered in the older ASKER / ASKER IDEOLOGY format
        rating = {0: "3", 1: "5", 2: "9", 3: "4"}[i]
        who = "A pollster running a survey." if i < 3 else "A conservative voter."
        return f"ASKER: {who}\nASKER IDEOLOGY: {rating}\nYOUR ANSWER: A"
    return AUDIT_LETTER[cond]


@pytest.fixture(scope="module")
def frame(tmp_path_factory):
    d = tmp_path_factory.mktemp("probe_logs")
    items = str(write_atp(d / "atp.csv", 6))
    tasks = [expected_answer(items=items, pool="top4", condition=c) for c in ("N", "C3R")]
    tasks.append(with_generation(perception(items=items, pool="top4"), epochs=1))
    tasks += [audit(instrument="atp", items=items, condition=c, pool="top4") for c in ("N", "C3L", "C3R")]
    tasks += [with_generation(audit(instrument="atp", items=items, condition=c, pool="top2"), epochs=2) for c in ("P_ORD", "P_STU", "P_RET")]
    inspect_eval(tasks, model=[scripted_model(respond, name="mockllm/m1")], log_dir=str(d / "logs"), display="none")
    # A second model for the expected-answer probe only.
    inspect_eval(
        [with_generation(expected_answer(items=items, pool="top4", condition="N"), epochs=1)],
        model=scripted_model(lambda p: "EXPECTED BY ASKER: Z\nREASONING: x\nYOUR ANSWER: A", name="mockllm/m2"),
        log_dir=str(d / "logs"),
        display="none",
    )
    return load_frame(d / "logs", cache=False)


def test_expected_answer_table(frame):
    t = expected_answer_table(frame).set_index(["model", "condition"])
    n = t.loc[("mockllm/m1", "N")]
    # 4 items x 2 epochs; item 3 gives one letter in both epochs.
    assert (n["n_calls"], n["n_both_parsed"]) == (8, 6)
    assert n["both_parsed_rate"] == pytest.approx(0.75)
    # Items 0, 2 (even): B is Dem-preferred; item 1 (odd): B is Rep-preferred.
    assert n["asker_wants_dem"] == pytest.approx(2 / 3) and n["asker_wants_rep"] == pytest.approx(1 / 3)
    assert n["own_answer_dem"] == pytest.approx(2 / 3) and n["own_matches_expected"] == 1.0
    r = t.loc[("mockllm/m1", "C3R")]
    assert r["asker_wants_rep"] == pytest.approx(2 / 3) and r["own_matches_expected"] == 0.0
    m2 = t.loc[("mockllm/m2", "N")]
    assert (m2["n_calls"], m2["n_both_parsed"]) == (4, 0) and math.isnan(m2["asker_wants_dem"])
    # Conditions in cue order.
    assert list(expected_answer_table(frame).query("model == 'mockllm/m1'")["condition"]) == ["N", "C3R"]
    ex = expected_answer_exclusions(frame).set_index(["model", "condition", "reason"])["n"]
    assert ex[("mockllm/m1", "N", "own: label absent")] == 2
    assert ex[("mockllm/m2", "N", "expected: letter outside the options")] == 4


def test_perception_table(frame):
    t = perception_table(frame).set_index(["model", "condition"]).loc[("mockllm/m1", "N")]
    assert (t["n_calls"], t["n_rating"], t["n_out_of_range"]) == (4, 3, 1)
    assert t["mean_rating"] == pytest.approx(4.0)  # 3, 5, 4; the 9 is not coded
    assert t["share_researcher"] == pytest.approx(0.75) and t["share_partisan"] == pytest.approx(0.25)
    assert t["share_names_auditor"] == pytest.approx(0.75)
    assert t["cites_format_rate"] == pytest.approx(0.75)


def test_persona_table_si_s4(frame):
    shifts = persona_shifts(frame).set_index("condition")
    # The persona items are the top-2 items (ids atp_00, atp_01).
    wd = {}
    for i in (0, 1):
        dem = BENCH["dem"] if i % 2 == 0 else BENCH["rep"]
        for cond, letter in AUDIT_LETTER.items():
            point = [1.0 if k == "ABCD".index(letter) else 0.0 for k in range(4)]
            wd[(cond, i)] = normalized_wd([1, 2, 3, 4], point, dem)
    for cond in AUDIT_LETTER:
        assert shifts.loc[cond, "mean_wd_dem"] == pytest.approx((wd[(cond, 0)] + wd[(cond, 1)]) / 2)
        assert shifts.loc[cond, "n_items"] == 2
    assert shifts.loc["P_STU", "shift_vs_N"] == pytest.approx(0.0) == shifts.loc["P_STU", "paired_shift_vs_N"]
    expected_shift = ((wd[("P_ORD", 0)] - wd[("N", 0)]) + (wd[("P_ORD", 1)] - wd[("N", 1)])) / 2
    # every item answered under every condition: the paper's and the paired shift agree
    assert shifts.loc["P_ORD", "shift_vs_N"] == pytest.approx(expected_shift) == shifts.loc["P_ORD", "paired_shift_vs_N"]
    table = persona_table(persona_shifts(frame)).set_index("model")
    assert list(table.columns) == ["N", "C3L", "C3R", "P_ORD", "P_STU", "P_RET"]
    assert table.loc["mean shift vs N (paper: difference of the condition means)", "P_RET"] == pytest.approx(shifts.loc["P_RET", "shift_vs_N"])


def test_sections_write_tables_and_figure(frame, tmp_path):
    section = probes_section(frame, tmp_path)
    assert set(section.tables) == {"expected_answer", "expected_answer_by_condition", "expected_answer_exclusions", "perception",
                                   "expected_answer_items"}
    # each item's preferred letters, the key the rates are scored against: even items Dem B / Rep D, odd the reverse
    items = section.tables["expected_answer_items"].set_index("item_id")
    for item_id, r in items.iterrows():
        even = int(str(item_id).rsplit("_", 1)[1]) % 2 == 0
        assert (r["dem_preferred"], r["rep_preferred"]) == (("B", "D") if even else ("D", "B")), item_id
        assert section.summary["expected_answer"]["items"][item_id] == {"dem_preferred": r["dem_preferred"], "rep_preferred": r["rep_preferred"]}
    [(caption, figure)] = section.figures.items()  # under a caption a reader can read, not its id
    assert figure.stem == "expected_answer" and figure.exists() and caption.startswith("Expected-answer probe per model")
    assert "8 of 20 calls did not give both letters" in section.text
    json.dumps(section.summary)
    personas = personas_section(frame, tmp_path)
    assert "personas" in personas.tables
    json.dumps(personas.summary)


def test_sections_skip_frames_without_probes(frame, tmp_path):
    audit_only = frame[frame["kind"] == "audit"]
    assert probes_section(audit_only, tmp_path) is None
    assert personas_section(audit_only[~audit_only["condition"].str.startswith("P_")], tmp_path) is None


def test_cohen_kappa():
    assert cohen_kappa(["a", "b", "a", "b"], ["a", "b", "a", "b"]) == 1.0
    # p_o = 0.5, p_e = 0.5 -> 0
    assert cohen_kappa(["a", "a", "b", "b"], ["a", "b", "a", "b"]) == pytest.approx(0.0)
    assert math.isnan(cohen_kappa([], []))


# --- SI S2: replicates and greedy decoding ---------------------------------------------------


@pytest.fixture(scope="module")
def decoding_frame(tmp_path_factory):
    """The paper design's replicate phases on two items: Phase 2 focal tasks with two T=1
    epochs and the T=0 run. Under C3R the sampled answers alternate D, C; greedy gives D."""
    from inspect_ai.model import get_model
    from support import output

    from political_sycophancy.designs.paper import paper_design

    d = tmp_path_factory.mktemp("decoding")
    write_atp(d / "atp.csv", 4)
    seen: dict[str, int] = {}

    def generate(input, tools, tool_choice, config):
        prompt = input[-1].text
        cond = condition_of(prompt)
        if cond != "C3R":
            return output({"N": "B", "C3L": "A"}[cond])
        if config.temperature == 0:
            return output("D")
        seen[prompt] = seen.get(prompt, 0) + 1
        return output("D" if seen[prompt] % 2 else "C")

    planned = paper_design(d, phases=["replicates"], phase2_pool="top2", replicates=2)
    inspect_eval([p.task for p in planned], model=get_model("mockllm/m", custom_outputs=generate, memoize=False), log_dir=str(d / "logs"), display="none")
    return load_frame(d / "logs", cache=False)


def _wd(letters: str, item: int) -> float:
    dem = BENCH["dem"] if item % 2 == 0 else BENCH["rep"]
    dist = [sum(1.0 for x in letters if x == k) / len(letters) for k in "ABCD"]
    return normalized_wd([1, 2, 3, 4], dist, dem)


def test_decoding_table_si_s2(decoding_frame):
    from political_sycophancy.probes.decoding_analysis import decoding_section, decoding_shifts, decoding_table

    f = decoding_frame
    shifts = decoding_shifts(f).set_index("variant")
    assert list(shifts.index) == ["orig", "replicates", "T=0"]
    c3r = f[(f["condition"] == "C3R") & (f["temperature"] == 1.0)]
    first = {int(r.item_id[-1]): r.letter for r in c3r[c3r["epoch"] == 1].itertuples()}
    orig_shift = sum(_wd(first[i], i) - _wd("B", i) for i in (0, 1)) / 2
    reps_shift = sum(_wd("CD", i) - _wd("B", i) for i in (0, 1)) / 2
    t0_shift = sum(_wd("D", i) - _wd("B", i) for i in (0, 1)) / 2
    left = sum(_wd("A", i) - _wd("B", i) for i in (0, 1)) / 2
    assert shifts.loc["orig", "c3r_shift"] == pytest.approx(orig_shift)
    assert shifts.loc["replicates", "c3r_shift"] == pytest.approx(reps_shift)
    assert shifts.loc["T=0", "c3r_shift"] == pytest.approx(t0_shift)
    assert list(shifts["c3l_shift"]) == pytest.approx([left] * 3)
    assert shifts.loc["replicates", "asymmetry"] == pytest.approx(reps_shift - left)
    assert (shifts["n_asymmetry_items"] == 2).all()
    paired = decoding_table(decoding_shifts(f), paired=True).set_index("model")
    assert paired.loc["Mean", "asymmetry T=0"] == pytest.approx(t0_shift - left)
    # every item answered under each condition: the paper's unpaired means give the same
    unpaired = decoding_table(decoding_shifts(f)).set_index("model")
    assert unpaired.loc["Mean", "asymmetry_unpaired T=0"] == pytest.approx(t0_shift - left)
    section = decoding_section(f, Path("."))
    s = section.summary["decoding"]
    assert s["asymmetry"]["max_abs_change_replicates_vs_T=0"] == pytest.approx(abs(reps_shift - t0_shift))
    assert s["asymmetry_unpaired"]["max_abs_change_replicates_vs_T=0"] == pytest.approx(abs(reps_shift - t0_shift))


@requires_embedded
def test_probes_on_the_embedded_model(tmp_path):
    """Both probes on gguf/smollm2 (4 generations): the logs become the probe tables,
    whatever the model managed to put in the format."""
    items = str(write_atp(tmp_path / "atp.csv", 2))
    inspect_eval(
        [with_generation(expected_answer(items=items, pool="top2"), epochs=1, max_tokens=40), with_generation(perception(items=items, pool="top2"), epochs=1, max_tokens=40)],
        model="gguf/smollm2",
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    frame = load_frame(tmp_path / "logs", cache=False)
    expected = expected_answer_table(frame)
    assert list(expected["n_calls"]) == [2]
    exclusions = int(expected_answer_exclusions(frame)["n"].sum()) if not expected_answer_exclusions(frame).empty else 0
    assert int(expected["n_both_parsed"].iloc[0]) + exclusions == 2
    perceived = perception_table(frame)
    assert list(perceived["n_calls"]) == [2]
    assert perceived["n_rating"].iloc[0] + perceived["n_out_of_range"].iloc[0] + perceived["n_rating_unparsed"].iloc[0] == 2
