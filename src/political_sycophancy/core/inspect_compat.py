"""Every use of `inspect_ai` internals, in one place.

Inspect's private modules move between patch releases. Each name below comes from its
private home when this Inspect has it, and otherwise from a fallback built on Inspect's
public API; tests/test_core_inspect_compat.py runs both paths and checks they agree. Where no
public equivalent exists the fallback says what is lost in an `InspectCompatWarning`.
pyproject.toml bounds the supported releases and CI runs the Inspect-facing tests on the
oldest (its lower bound) and on the newest.

Private names used: `_util.registry.registry_unqualified_name`, `registry_lookup`,
`registry_add`; `_eval.task.results.eval_results`; `log._recorders.eval.EvalRecorder`;
`log._samples.sample_active`; `_util.error.PrerequisiteError`; `_util.json.to_json_safe`; and
the member layout of an `.eval` zip (`write_eval_zip`), which the importer checks against
Inspect's public reader before it relies on it.
"""

from __future__ import annotations

import importlib
import json
import os
import warnings
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import Any

from inspect_ai.log import EvalLog, EvalPlan, EvalResults, EvalSample, EvalSpec, EvalStats, write_eval_log
from inspect_ai.util import RegistryInfo, registry_create, registry_info

from .atomic import temp_path
from .errors import InputError
from .zipped import write_zstd

__all__ = [
    "EvalRecorder",
    "InspectCompatWarning",
    "PrerequisiteError",
    "RegistryInfo",
    "eval_results",
    "registry_add",
    "registry_info",
    "registry_lookup",
    "registry_unqualified_name",
    "resolving_tasks_for_eval",
    "sample_active",
    "write_eval_zip",
]


class InspectCompatWarning(UserWarning):
    """This Inspect lacks an internal we use; the public fallback loses what the message says."""


def private(module: str, name: str) -> Any:
    """`module.name` from inspect_ai's internals, or None when this Inspect has no such thing."""
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


def _lost(what: str) -> None:
    warnings.warn(f"this inspect_ai has no {what}", InspectCompatWarning, stacklevel=3)


# --- registry ----------------------------------------------------------------------------


def public_registry_unqualified_name(o: str | object | RegistryInfo) -> str:
    """A registry name without its package prefix (`political_sycophancy/pct_score` -> `pct_score`)."""
    name = o if isinstance(o, str) else (o if isinstance(o, RegistryInfo) else registry_info(o)).name
    return name.split("/", 1)[-1]


def registry_unqualified_name(o: str | object | RegistryInfo) -> str:
    """A registry name without its package prefix: Inspect's own function, else the public fallback."""
    fn = private("inspect_ai._util.registry", "registry_unqualified_name")
    return fn(o) if fn is not None else public_registry_unqualified_name(o)


def public_registry_lookup(type: str, name: str) -> object | None:
    """Whether `name` is registered, through `registry_create`.

    `registry_create` creates the object: callers only test the result for None.
    """
    try:
        return registry_create(type, name)  # type: ignore[call-overload]
    except LookupError:
        return None


def registry_lookup(type: str, name: str) -> object | None:
    """The object registered as `name` of `type`, or None: Inspect's own lookup, else the public fallback."""
    fn = private("inspect_ai._util.registry", "registry_lookup")
    return fn(type, name) if fn is not None else public_registry_lookup(type, name)


def registry_add(o: object, info: RegistryInfo) -> None:
    """Register `o` under `info.name`.

    Without the private registry (no public way to add an object under a name of our
    choosing) nothing is added and a warning says so.
    """
    fn = private("inspect_ai._util.registry", "registry_add")
    if fn is None:
        _lost(f"registry_add: {info.type} '{info.name}' is not registered")
        return
    fn(o, info)


# --- results -----------------------------------------------------------------------------


def _metric_definitions(metrics: Any) -> Any:
    """Metric objects (a list, a dict by value key, or a list of such dicts) as the log's metric definitions.

    Registry names, created again with their default arguments.
    """
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        return {key: [{"name": registry_info(m).name} for m in ms] for key, ms in metrics.items()}
    return [_metric_definitions(m) if isinstance(m, dict) else {"name": registry_info(m).name} for m in metrics]


def public_eval_results(
    samples: int,
    scores: list[dict[str, Any]],
    reducers: Any,
    scorers: list[Any] | None,
    metrics: Any = None,
    scorer_names: list[str] | None = None,
) -> tuple[EvalResults | None, Any]:
    """`eval_results` through the public `recompute_metrics`.

    The scores go into a scratch log whose header names the scorers' metrics and the
    reducers, as a real run's does. Metrics are re-created by name with default
    arguments. Samples beyond the scored ones are counted as errored (as `eval_results`
    counts only scored samples as completed).
    """
    from inspect_ai.log import EvalConfig, EvalDataset, EvalError, recompute_metrics

    scorers = scorers or []
    names = scorer_names or [registry_unqualified_name(s) for s in scorers]
    reducer_list = [] if reducers is None else (reducers if isinstance(reducers, list) else [reducers])
    header_scorers = [
        {
            "name": name,
            "metrics": _metric_definitions(
                metrics if metrics is not None else registry_info(s).metadata.get("metrics")
            ),
        }
        for name, s in zip(names, scorers, strict=True)
    ]
    epochs: Counter = Counter()
    log_samples = []
    for by_scorer in scores:
        first = next(iter(by_scorer.values()))
        epochs[first.sample_id] += 1
        log_samples.append(
            EvalSample(
                id=first.sample_id,
                epoch=epochs[first.sample_id],
                input="",
                target="",
                metadata=first.sample_metadata or {},
                scores={name: s.score for name, s in by_scorer.items()},
            )
        )
    for i in range(samples - len(scores)):
        log_samples.append(
            EvalSample(
                id=f"_unscored_{i}",
                epoch=1,
                input="",
                target="",
                error=EvalError(message="unscored", traceback="", traceback_ansi=""),
            )
        )
    log = EvalLog(
        eval=EvalSpec(
            created="1970-01-01T00:00:00+00:00",
            task="inspect_compat",
            dataset=EvalDataset(),
            model="none/none",
            config=EvalConfig(epochs_reducer=[registry_info(r).name for r in reducer_list] or None),
            scorers=header_scorers,  # type: ignore[arg-type]  # pydantic validates the dicts into EvalScorer
        ),
        samples=log_samples,
    )
    recompute_metrics(log)
    return log.results, log.reductions


def eval_results(*args: Any, **kwargs: Any) -> tuple[EvalResults | None, Any]:
    """Task results (metrics over reduced epochs) from per-sample scores, as a run computes them.

    The arguments are `public_eval_results`'s.
    """
    fn = private("inspect_ai._eval.task.results", "eval_results") or public_eval_results
    return fn(*args, **kwargs)


# --- writing logs ------------------------------------------------------------------------


class PublicEvalRecorder:
    """The recorder calls the importer makes, on the public `write_eval_log`.

    Samples are kept in memory and written once at `log_finish` (no intermediate
    flushes, and `write_eval_log` is slower on many samples).
    """

    def __init__(self, log_dir: str) -> None:
        self.log_dir = log_dir
        self.location: str | None = None
        self.plan: EvalPlan | None = None
        self.samples: list[EvalSample] = []

    async def log_init(self, eval: EvalSpec, location: str | None = None, *, clean: bool = False) -> str:
        self.location = location or str(Path(self.log_dir) / f"{eval.task_id}.eval")
        return self.location

    async def log_start(self, eval: EvalSpec, plan: EvalPlan) -> None:
        self.plan = plan

    async def log_sample(self, eval: EvalSpec, sample: EvalSample, **kwargs: Any) -> None:
        self.samples.append(sample)

    async def flush(self, eval: EvalSpec) -> None:
        pass

    async def log_finish(
        self,
        eval: EvalSpec,
        status: Any,
        stats: EvalStats,
        results: EvalResults | None,
        reductions: Any = None,
        **kwargs: Any,
    ) -> EvalLog:
        log = EvalLog(eval=eval, plan=self.plan or EvalPlan(), status=status, stats=stats, samples=self.samples)
        log.results, log.reductions = results, reductions  # (the constructor's validator wants them as dicts)
        write_eval_log(log, self.location)
        return log


def EvalRecorder(log_dir: str) -> Any:  # noqa: N802 - stands in for the private class
    """Inspect's streaming `.eval` writer (samples flushed in batches), or the public fallback."""
    cls = private("inspect_ai.log._recorders.eval", "EvalRecorder")
    return cls(log_dir) if cls is not None else PublicEvalRecorder(log_dir)


def public_json_bytes(value: Any) -> bytes:
    """JSON of a log object (a pydantic model, or lists and dicts of them) as Inspect's writer serialises it.

    Fields that are None left out.
    """
    if hasattr(value, "model_dump_json"):
        return value.model_dump_json(exclude_none=True).encode()
    if isinstance(value, (list, tuple)):
        return b"[" + b",".join(public_json_bytes(v) for v in value) + b"]"
    if isinstance(value, dict):
        return (
            b"{"
            + b",".join(
                json.dumps(str(k)).encode() + b":" + public_json_bytes(v) for k, v in value.items() if v is not None
            )
            + b"}"
        )
    return json.dumps(value).encode()


def json_bytes(value: Any) -> bytes:
    """Inspect's own serialiser (`to_json_safe`, which also repairs invalid UTF-8), or the public one."""
    fn = private("inspect_ai._util.json", "to_json_safe")
    return fn(value, indent=None) if fn is not None else public_json_bytes(value)


def summary_metadata_thinner() -> Any:
    """The function a sample summary thins its metadata (or a score's) with, key by key.

    None without Inspect's internals (then only `sample.summary()` thins).

    Inspect shortens every metadata string of a summary through `textwrap.shorten`, most of
    an import's writing time; a string of at most `THIN_TEXT_WIDTH` characters shortens to
    itself with its whitespace collapsed, computed here directly. Every other value goes
    through Inspect's own `thin_metadata`. tests/test_core_inspect_compat.py compares it
    with `sample.summary()` on hostile strings.
    """
    thin = private("inspect_ai.log._util", "thin_metadata")
    width = private("inspect_ai.log._util", "THIN_TEXT_WIDTH")
    if thin is None or not isinstance(width, int):
        return None

    def thinned(metadata: dict[str, Any]) -> dict[str, Any]:
        rest = thin({k: v for k, v in metadata.items() if not (type(v) is str and len(v) <= width)})
        return {k: " ".join(v.split()) if k not in rest else rest[k] for k, v in metadata.items()}

    return thinned


def sample_summaries(samples: list[EvalSample]) -> list[Any]:
    """`sample.summary()` of each sample, with the metadata thinned here rather than in its validator.

    Thinned by `summary_metadata_thinner`; without those internals, `sample.summary()`.
    """
    thinned = summary_metadata_thinner()
    if thinned is None:
        return [sample.summary() for sample in samples]

    def summary(sample: EvalSample) -> Any:
        scores = (
            {k: s.model_copy(update={"metadata": None}) for k, s in sample.scores.items()}
            if sample.scores is not None
            else None
        )
        out = sample.model_copy(update={"metadata": {}, "scores": scores}).summary()
        out.metadata = thinned(sample.metadata)
        for key, score in (sample.scores or {}).items():
            if score.metadata is not None and out.scores is not None:
                out.scores[key].metadata = thinned(score.metadata)
        return out

    return [summary(sample) for sample in samples]


def write_eval_zip(
    log: EvalLog,
    path: Path,
    samples_json: Iterable[tuple[str | int, int, bytes]] | None = None,
    summaries_json: bytes | None = None,
    reductions_json: bytes | None = None,
) -> Path:
    """Write a finished log as an `.eval` zip in one pass, laid out as Inspect's recorder finishes one.

    `_journal/start.json` (version, eval, plan), one `samples/<id>_epoch_<epoch>.json` per
    sample, `summaries.json` (`EvalSample.summary()` of each), `reductions.json` and
    `header.json` (the log without samples and reductions).

    Inspect's recorder serialises, thins and compresses each sample as it streams in, and
    journals summaries in batches: right for a live run, about ten times slower for a log
    that exists whole (an import). Each member compressed with zstd as the recorder
    compresses it, the archive written in one pass (`core.zipped`). The layout is Inspect's,
    not a public contract: callers check a written log against `read_eval_log` before
    relying on it (logs.importer does), and tests/test_logs_import_writer.py compares it
    with the recorder's log field by field.
    Written to a temporary sibling and renamed, so a killed import leaves no partial log.

    `samples_json` and `summaries_json`, when given, stand for `log.samples`: each sample's
    (id, epoch, JSON) and the summaries' JSON list, already serialised (logs.sample_json);
    `reductions_json`, when given, is `log.reductions` serialised.
    """
    samples = log.samples or []
    if samples_json is None:
        samples_json = ((sample.id, sample.epoch, json_bytes(sample)) for sample in samples)
        summaries_json = json_bytes(sample_summaries(samples))
    header = log.model_copy(update={"samples": None, "reductions": None})
    members = [("_journal/start.json", json_bytes({"version": log.version, "eval": log.eval, "plan": log.plan}))]
    members += [(f"samples/{sample_id}_epoch_{epoch}.json", data) for sample_id, epoch, data in samples_json]
    members.append(("summaries.json", summaries_json or b"[]"))
    if log.reductions is not None:
        members.append(
            ("reductions.json", reductions_json if reductions_json is not None else json_bytes(log.reductions))
        )
    members.append(("header.json", json_bytes(header)))
    tmp = temp_path(path)
    try:
        with open(tmp, "wb") as fh:
            write_zstd(fh, members)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


# --- the running sample ------------------------------------------------------------------


def sample_active() -> Any:
    """The sample being run (`.task`, `.sample.id`, `.epoch`), or None outside a sample.

    No public API tells a model provider which sample it serves: without the private one
    this returns None and warns.
    """
    fn = private("inspect_ai.log._samples", "sample_active")
    if fn is None:
        _lost("sample_active: providers cannot see the task, sample id or epoch of a call")
        return None
    return fn()


# --- errors ------------------------------------------------------------------------------


class PublicPrerequisiteError(Exception):
    """Stand-in for Inspect's PrerequisiteError (which its CLI prints as one line)."""

    def __init__(self, message: Any) -> None:
        super().__init__(message)
        self.message = message


def prerequisite_error() -> type[Exception]:
    """The exception type Inspect's CLI prints as one line without a traceback.

    Without it our input errors still carry a clear message, but `inspect eval` prints a
    traceback.
    """
    cls = private("inspect_ai._util.error", "PrerequisiteError")
    if cls is None:
        _lost("PrerequisiteError: `inspect eval` prints input errors with a traceback")
        return PublicPrerequisiteError
    return cls


PrerequisiteError = prerequisite_error()

# Inspect's CLI prints PrerequisiteError as one line, without a traceback: InputError joins it
# here (core.errors stays free of inspect_ai, which takes seconds to import).
if PrerequisiteError not in InputError.__mro__:
    InputError.__bases__ = (ValueError, PrerequisiteError)


def resolving_tasks_for_eval() -> bool:
    """Whether Inspect is building tasks for an eval now (its loader is on the stack).

    Only then is the active model the model under test; a task built in Python before `eval`
    (or after an earlier eval left its model active) is not. Without that loader module
    (another Inspect layout) this says False and construction-time checks wait for the
    samples.
    """
    import sys

    loader = sys.modules.get("inspect_ai._eval.loader")
    if loader is None or not getattr(loader, "__file__", None):
        return False
    frame: Any = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == loader.__file__:
            return True
        frame = frame.f_back
    return False


def _say_input_errors_under_any_display() -> None:
    """Under Inspect's CLI, print an InputError that stops the command as one line on stderr.

    Inspect's exception hook prints a PrerequisiteError through rich, which `--display none`
    silences: the command exited 1 and printed nothing. Only Inspect's own hook is wrapped
    (nothing changes for a Python caller), once.
    """
    import sys

    hook = sys.excepthook
    if getattr(hook, "__module__", "") != "inspect_ai._util.error" or getattr(hook, "_says_input_errors", False):
        return

    def handler(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        if isinstance(value, InputError):
            print(f"\n{value.message}\n", file=sys.stderr, flush=True)
            sys.exit(1)
        hook(kind, value, tb)

    handler._says_input_errors = True  # type: ignore[attr-defined]
    sys.excepthook = handler


_say_input_errors_under_any_display()
