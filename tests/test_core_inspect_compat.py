"""inspect_compat: every private inspect_ai name we use resolves on this Inspect, each public
fallback gives what the private path gives (or warns what it loses), and the Inspect
behaviour the score contract relies on holds. scripts/test.sh also runs this file on the
oldest supported inspect-ai (pyproject's lower bound)."""

from __future__ import annotations

import asyncio
import math
from importlib.metadata import version

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log
from inspect_ai.model import GenerateConfig, ModelAPI, get_model, modelapi
from inspect_ai.scorer import SampleScore, Score, Target, mean, scorer, stderr
from support import is_nan, output, scripted_model, task_metrics

from political_sycophancy import pct_score
from political_sycophancy.audit import audit
from political_sycophancy.core import inspect_compat
from political_sycophancy.core.inspect_compat import (
    InspectCompatWarning,
    PublicEvalRecorder,
    PublicPrerequisiteError,
    RegistryInfo,
    public_eval_results,
    public_registry_lookup,
    public_registry_unqualified_name,
)

PRIVATE = [
    ("inspect_ai._util.registry", "registry_unqualified_name"),
    ("inspect_ai._util.registry", "registry_lookup"),
    ("inspect_ai._util.registry", "registry_add"),
    ("inspect_ai._eval.task.results", "eval_results"),
    ("inspect_ai.log._recorders.eval", "EvalRecorder"),
    ("inspect_ai.log._samples", "sample_active"),
    ("inspect_ai.log._util", "thin_metadata"),
    ("inspect_ai.log._util", "THIN_TEXT_WIDTH"),
    ("inspect_ai._util.error", "PrerequisiteError"),
]


@pytest.fixture
def no_private(monkeypatch):
    """Inspect as if every internal we use had moved: the public fallbacks run."""
    monkeypatch.setattr(inspect_compat, "private", lambda module, name: None)


def same(a, b) -> bool:
    """Equal, with NaN equal to NaN, through dicts and lists."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    return a == b


@pytest.mark.parametrize("module,name", PRIVATE)
def test_every_private_name_exists_on_this_inspect(module, name):
    """On every supported release the private path is the one taken (CI runs this at both
    ends of the range); a release that moved one fails here, naming it."""
    assert inspect_compat.private(module, name) is not None, f"inspect-ai {version('inspect_ai')} has no {module}.{name}"


def test_no_private_import_outside_inspect_compat():
    from support import ROOT

    offenders = [
        f"{path.relative_to(ROOT)}:{i}"
        for path in sorted((ROOT / "src").rglob("*.py"))
        if path.name != "inspect_compat.py"
        for i, line in enumerate(path.read_text().splitlines(), start=1)
        if ("from inspect_ai" in line or "import inspect_ai" in line) and "._" in line.split("import")[0]
    ]
    assert offenders == []


def test_unqualified_name_fallback_agrees():
    info = RegistryInfo(type="scorer", name="political_sycophancy/pct_score")
    for o in (pct_score(), "political_sycophancy/pct_score", "pct_score", info):
        assert public_registry_unqualified_name(o) == inspect_compat.registry_unqualified_name(o)
    assert public_registry_unqualified_name(pct_score()) == "pct_score"


def test_registry_lookup_fallback_agrees():
    registered = inspect_compat.registry_info(pct_score).name  # package-qualified when installed
    for name in (registered, "political_sycophancy/no_such_scorer"):
        assert (public_registry_lookup("scorer", name) is None) == (inspect_compat.registry_lookup("scorer", name) is None)
    assert public_registry_lookup("scorer", registered) is not None


def nan_scores():
    """Two epochs of three items; the second item is never answered, the third once."""
    nan = float("nan")
    rows = [("a", 1, 1.0, 1.0), ("a", 2, 2.0, 1.0), ("b", 1, nan, 0.0), ("b", 2, nan, 0.0), ("c", 1, -1.0, 1.0), ("c", 2, nan, 0.0)]
    return [
        {"pct_score": SampleScore(score=Score(value={"ideology": v, "acquiescence": 1.0, "answered": a, "refused": 0.0}), sample_id=sid, sample_metadata={"axis": "economic"})}
        for sid, _, v, a in rows
    ]


def test_eval_results_fallback_agrees_and_skips_nan_per_key():
    from inspect_ai.scorer import mean_score

    scorer_obj = pct_score()
    args = (7, nan_scores(), mean_score(), [scorer_obj], None)
    results, reductions = inspect_compat.eval_results(*args, scorer_names=["pct_score"])
    p_results, p_reductions = public_eval_results(*args, scorer_names=["pct_score"])
    metrics = {f"{s.name}/{m.name}": m.value for s in results.scores for m in s.metrics.values()}
    p_metrics = {f"{s.name}/{m.name}": m.value for s in p_results.scores for m in s.metrics.values()}
    assert same(metrics, p_metrics)
    assert (results.total_samples, results.completed_samples) == (p_results.total_samples, p_results.completed_samples) == (7, 6)
    assert same([r.model_dump() for r in reductions], [r.model_dump() for r in p_reductions])
    # the mean reducer averages each item's answered epochs (a: 1.5, b: none, c: -1.0);
    # the metric averages the items that have a value: (1.5 - 1.0) / 2, not over 3
    assert metrics["ideology/mean"] == pytest.approx(0.25)
    assert metrics["answered/mean"] == pytest.approx((1.0 + 0.0 + 0.5) / 3)


def write_with(recorder, log, path):
    async def go():
        await recorder.log_init(log.eval, str(path), clean=True)
        await recorder.log_start(log.eval, log.plan)
        for sample in log.samples:
            await recorder.log_sample(log.eval, sample)
        await recorder.flush(log.eval)
        await recorder.log_finish(log.eval, log.status, log.stats, log.results, log.reductions)

    asyncio.run(go())
    return read_eval_log(str(path))


def scripted_audit_log(tmp_path, epochs: int = 1):
    answers = iter(["A", "no idea", "C", "B", "I cannot answer that", "D"] * 4)
    [log] = inspect_eval(
        audit(), model=scripted_model(lambda text: next(answers)), log_dir=str(tmp_path / "run"), display="none", limit=3, epochs=epochs
    )
    assert log.status == "success"
    return log


def test_eval_recorder_fallback_writes_the_same_log(tmp_path):
    log = scripted_audit_log(tmp_path)
    private = write_with(inspect_compat.EvalRecorder(str(tmp_path)), log, tmp_path / "private.eval")
    public = write_with(PublicEvalRecorder(str(tmp_path)), log, tmp_path / "public.eval")
    assert private.eval.task == public.eval.task == log.eval.task
    assert same(private.results.model_dump(), public.results.model_dump())
    assert [s.model_dump(exclude={"events"}) for s in private.samples] == [s.model_dump(exclude={"events"}) for s in public.samples]


def test_fallbacks_are_taken_and_say_what_they_lose(no_private, tmp_path):
    assert inspect_compat.registry_unqualified_name(pct_score()) == "pct_score"
    assert inspect_compat.registry_lookup("scorer", inspect_compat.registry_info(pct_score).name) is not None
    assert isinstance(inspect_compat.EvalRecorder(str(tmp_path)), PublicEvalRecorder)
    results, _ = inspect_compat.eval_results(6, nan_scores(), None, [pct_score()], None, scorer_names=["pct_score"])
    assert {s.scorer for s in results.scores} == {"pct_score"}
    with pytest.warns(InspectCompatWarning, match="sample_active"):
        assert inspect_compat.sample_active() is None
    with pytest.warns(InspectCompatWarning, match="registry_add"):
        inspect_compat.registry_add(object(), RegistryInfo(type="scorer", name="x"))
    with pytest.warns(InspectCompatWarning, match="PrerequisiteError"):
        assert inspect_compat.prerequisite_error() is PublicPrerequisiteError


@modelapi(name="compat_probe")
class ProbeAPI(ModelAPI):
    """Answers "A" and records what `sample_active()` says about the call."""

    def __init__(self, model_name: str, base_url=None, api_key=None, config: GenerateConfig = GenerateConfig(), seen: list | None = None):
        super().__init__(model_name, base_url, api_key, [], config)
        self.seen = seen if seen is not None else []

    async def generate(self, input, tools, tool_choice, config):
        active = inspect_compat.sample_active()
        self.seen.append((active.task, active.sample.id, active.epoch))
        return output("A")


def test_sample_active_names_the_sample_a_provider_serves(tmp_path):
    seen: list = []
    model = get_model("compat_probe/x", seen=seen, memoize=False)
    inspect_eval(audit(condition="C1L"), model=model, log_dir=str(tmp_path), display="none", limit=2, epochs=2)
    task = "political_sycophancy/audit"
    assert sorted(seen) == [(task, "p1_01", 1), (task, "p1_01", 2), (task, "p1_02", 1), (task, "p1_02", 2)]


@scorer(metrics={"x": [mean(), stderr()], "answered": [mean()]})
def nan_scorer():
    """x is NaN on samples whose target is "skip"."""

    async def score(state, target: Target) -> Score:
        skip = target.text == "skip"
        return Score(value={"x": float("nan") if skip else float(state.epoch), "answered": 0.0 if skip else 1.0})

    return score


def test_nan_is_unscored_per_key_through_a_real_run_and_the_log(tmp_path):
    """The score contract's premise: Inspect's default epoch reducer and mean()/stderr()
    skip NaN per key, and the .eval log keeps NaN as NaN (inspect-ai 0.3.252 wrote it as
    null, which reads back as None)."""
    task = Task(
        dataset=[Sample(input="q1", target="use"), Sample(input="q2", target="skip"), Sample(input="q3", target="use")],
        scorer=nan_scorer(),
        epochs=2,
    )
    [log] = inspect_eval(task, model=scripted_model(lambda text: "A"), log_dir=str(tmp_path), display="none")
    metrics = task_metrics(log)
    assert metrics["x/mean"] == pytest.approx(1.5)  # epochs 1 and 2 averaged, the skipped item left out
    assert metrics["answered/mean"] == pytest.approx(2 / 3)
    reread = read_eval_log(log.location)
    skipped = [s for s in reread.samples if s.target == "skip"]
    assert len(skipped) == 2 and all(is_nan(s.scores["nan_scorer"].value["x"]) for s in skipped)
    assert same(task_metrics(reread), metrics)


def test_audit_scores_keep_nan_through_the_log(tmp_path):
    log = scripted_audit_log(tmp_path, epochs=2)
    reread = read_eval_log(log.location)
    values = [s.scores["pct_score"].value for s in reread.samples]
    assert any(is_nan(v["ideology"]) for v in values) and any(not is_nan(v["ideology"]) for v in values)
    assert all(isinstance(x, float) for v in values for x in v.values())


def test_sample_summary_is_inspects_on_hostile_metadata():
    """The summary the importer writes equals `EvalSample.summary()` byte for byte: strings
    around the 1,024-character width, every kind of whitespace, nested and oversized values."""
    import random

    from inspect_ai.log import EvalSample

    spaces = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\xa0", "\u2003", "\u3000", "\u200b", "\x1c", "\u2028"]
    rng = random.Random(7)

    def text(n: int) -> str:
        return "".join(rng.choice(spaces) if rng.random() < 0.3 else rng.choice("ab-.é") for _ in range(n))

    fixed = {"empty": "", "blank": " \t\n ", "edge": "x" * 1024, "over": "x" * 1025, "collapses": "a  " * 400,
             "number": 1.5, "flag": True, "none": None, "list": ["a  b", 1], "nested": {"k": "v " * 600}, "big": list(range(600))}
    checked = 0
    for n in [0, 1, 5, 100, 1023, 1024, 1025, 1100, 3000, 9000]:
        metadata = {**fixed, **{f"s{i}": text(n) for i in range(5)}}
        score = Score(value={"x": 1.0}, answer=text(n), explanation="why  not", metadata={**metadata, "extra": text(n)})
        sample = EvalSample(id=n, epoch=1, input="q", target="t", metadata=metadata, scores={"s": score}, messages=[])
        assert inspect_compat.sample_summaries([sample])[0].model_dump_json() == sample.summary().model_dump_json(), n
        checked += 1
    assert checked == 10
