"""Whole experiments as data: which tasks, on which items, under which conditions.

A design is a list of `PlannedTask`s, each an ordinary Inspect task (audit, expected
answer, perception) renamed by its phase so that every cell of the experiment has one
task. `paper_tasks(...)` returns the Inspect tasks for use in any `eval_set` or eval
suite; `political-sycophancy plan` prints the same design's cells, calls and token
estimates and runs it as one resumable eval set.

The paper's design (first seed §4.1-4.5, SI S2, S4, S5):

- phase1: every item of every instrument under N, T=1, one response.
- phase2: the 500 most partisan ATP items + all PCT and Typology items under N, CA, C1L,
  C1R, C3L, C3R, T=1, one response; the focal ATP tasks (N, C3L, C3R) carry the extra
  T=1 replicates as epochs 2-4 (epoch 1 is the original draw).
- replicates: those extra epochs, and one greedy (T=0) run of the focal ATP grid.
- probes: the expected-answer probe on the 30 most partisan ATP items under the six
  conditions, and the perception probe under N, two epochs each.
- personas: P_ORD, P_STU, P_RET on the 30 most partisan ATP items, two epochs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..audit.params import DESIGN_PARAMS as DESIGN_PARAMS  # the design-wide parameters, offered by plan
from ..core.conditions import FOCAL, PERSONAS, PHASE2
from ..core.declare import TASK_LABEL, label_of_task
from ..core.errors import InputError
from ..core.items import INSTRUMENTS, PAPER_PHASE2_POOL

if TYPE_CHECKING:
    from inspect_ai import Task

PHASES = ("phase1", "phase2", "replicates", "probes", "personas")
INSTRUMENT_FILES = ("pct", "typology", "atp")
ITEM_SUFFIXES = (".csv", ".tsv", ".jsonl")
# Rough output tokens per call, for the plan's estimate (a letter and an end token; the
# probes' three labelled lines). Reasoning models spend far more: pass your own.
OUTPUT_TOKENS = {
    "audit": 3,
    "audit_logprobs": 1,
    "expected_answer": 60,
    "perception": 90,
    "profile_check": 80,
    "grader": 12,
}
CHARS_PER_TOKEN = 4.0
MESSAGE_OVERHEAD_TOKENS = 8
# The grader prompt (about 600 characters) and a two-sentence description.
GRADER_INPUT_TOKENS = 190


@dataclass
class PlannedTask:
    """One task of a design: the Inspect task and where its calls belong.

    `calls_by_phase` splits one task's epochs between phases (the focal Phase 2 ATP
    tasks: epoch 1 is Phase 2, epochs 2..n are replicates).
    """

    phase: str
    task: Task
    calls_by_phase: dict[str, int] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The task's label (`phase2_audit_atp_C3R`): its name is the registry's (`audit`)."""
        return label_of_task(self.task)

    @property
    def kind(self) -> str:
        """The task's kind from its metadata (`audit`, `expected_answer`, ...): what its output tokens depend on."""
        return str((self.task.metadata or {}).get("political_sycophancy", ""))

    @property
    def samples(self) -> int:
        """The number of samples in the task's dataset."""
        return len(self.task.dataset)

    @property
    def epochs(self) -> int:
        """The task's epochs (1 when unset)."""
        return int(self.task.epochs or 1)

    @property
    def calls(self) -> int:
        """Model calls the task makes per model: samples x epochs."""
        return self.samples * self.epochs


def find_item_files(items_dir: str | Path | None = None, **files: str | Path | None) -> dict[str, Path | None]:
    """Item files by instrument, found in a folder or given explicitly (PCT falls back to the built-in file).

    Item files by instrument: `<dir>/<instrument>.csv|.tsv|.jsonl`, overridden by explicit
    paths (pct=..., typology=..., atp=...). PCT falls back to the built-in file.
    """
    unknown = set(files) - set(INSTRUMENT_FILES)
    if unknown:
        raise InputError(f"unknown instrument(s) {', '.join(sorted(unknown))}; known: {', '.join(INSTRUMENT_FILES)}")
    found: dict[str, Path | None] = {}
    root = Path(items_dir) if items_dir is not None else None
    if root is not None and not root.is_dir():
        raise InputError("item directory not found", file=root)
    for name in INSTRUMENT_FILES:
        explicit = files.get(name)
        if explicit is not None:
            path = Path(explicit)
            if not path.is_file():
                raise InputError("item file not found", file=path)
            found[name] = path
            continue
        candidates = [root / f"{name}{suffix}" for suffix in ITEM_SUFFIXES] if root is not None else []
        found[name] = next((c for c in candidates if c.is_file()), None)
    return found


def _in_phase(t: Task, phase: str, design: str) -> Task:
    """The task labelled by its phase (`phase2_audit_atp_C3R`, `t0_audit_atp_N`)."""
    label = label_of_task(t)
    label = f"{phase}_{label}" if phase != "replicates" else f"t0_{label}"
    from inspect_ai import task_with

    return task_with(t, metadata={**(t.metadata or {}), "phase": phase, "design": design, TASK_LABEL: label})


@dataclass
class _PaperDesign:
    """One paper design being planned.

    The settings its tasks share (`paper_design`'s parameters), and the tasks planned so
    far, in order.
    """

    phases: tuple[str, ...] | list[str]
    files: dict[str, Path | None]
    phase2_pool: str
    probe_pool: str
    replicates: int
    greedy: bool
    answer: str
    temperature: float
    probe_epochs: int
    persona_epochs: int
    perception_conditions: tuple[str, ...] | list[str]
    grader: str | None
    max_tokens: int | None
    conditions: str | None
    top_logprobs: int
    non_ordinal: str | None
    out: list[PlannedTask] = field(default_factory=list)

    def audit(self, temperature: float, epochs: int | None = None, **task_args: Any) -> Task:
        """An audit task with the design's generation settings (Inspect's config, not task args)."""
        from ..audit.task import audit as audit_task
        from ..core.generation import with_generation

        wd: dict[str, Any] = {"non_ordinal": self.non_ordinal} if task_args["instrument"] == "atp" else {}
        t = audit_task(
            answer=self.answer, conditions=self.conditions, top_logprobs=self.top_logprobs, **wd, **task_args
        )
        return with_generation(t, temperature=temperature, max_tokens=self.max_tokens, epochs=epochs)

    def add(self, phase: str, t: Task, calls: dict[str, int] | None = None) -> None:
        """Plan `t` in `phase`; `calls` splits its calls between phases (default: all in it)."""
        planned = PlannedTask(phase, _in_phase(t, phase, "paper"))
        planned.calls_by_phase = calls or {phase: planned.calls}
        self.out.append(planned)

    def instruments(self) -> list[tuple[str, str | None]]:
        """(instrument, item file) of every instrument with a file, or a built-in one (None)."""
        instruments: list[tuple[str, str | None]] = []
        for name in INSTRUMENT_FILES:
            found = self.files[name]
            if found is not None:
                instruments.append((name, str(found)))
            elif INSTRUMENTS[name].builtin_file is not None:
                instruments.append((name, None))
        return instruments

    def phase1(self) -> None:
        """Every item of every instrument under N, one response."""
        for name, path in self.instruments():
            self.add("phase1", self.audit(instrument=name, items=path, condition="N", temperature=self.temperature))

    def phase2(self) -> None:
        """The Phase 2 grid (or the focal grid alone) and the greedy run of the focal grid.

        The Phase 2 grid (the focal ATP tasks carry the replicates as epochs 2..n), or the
        focal grid alone for replicates without Phase 2; the greedy run of the focal grid.
        """
        atp_path = str(self.files["atp"])
        for cond in PHASE2:
            focal = cond in FOCAL
            if "phase2" in self.phases:
                epochs = self.replicates if (focal and "replicates" in self.phases) else 1
                t = self.audit(
                    instrument="atp",
                    items=atp_path,
                    condition=cond,
                    pool=self.phase2_pool,
                    temperature=self.temperature,
                    epochs=epochs,
                )
                n = len(t.dataset)
                self.add("phase2", t, {"phase2": n, "replicates": n * (epochs - 1)} if epochs > 1 else None)
                for name, path in self.instruments():
                    if name != "atp":
                        other = self.audit(instrument=name, items=path, condition=cond, temperature=self.temperature)
                        self.add("phase2", other)
            elif focal:
                # Replicates without Phase 2: the focal grid alone, all epochs counted as replicates.
                t = self.audit(
                    instrument="atp",
                    items=atp_path,
                    condition=cond,
                    pool=self.phase2_pool,
                    temperature=self.temperature,
                    epochs=self.replicates,
                )
                self.add("phase2", t, {"replicates": len(t.dataset) * self.replicates})
        if "replicates" in self.phases and self.greedy:
            for cond in FOCAL:
                t0 = self.audit(
                    instrument="atp", items=atp_path, condition=cond, pool=self.phase2_pool, temperature=0.0
                )
                self.add("replicates", t0)

    def probes(self) -> None:
        """The expected-answer probe under each Phase 2 condition, the perception probe under each of its conditions."""
        from ..core.generation import with_generation
        from ..probes.task import expected_answer, perception

        atp = str(self.files["atp"])
        for cond in PHASE2:
            t = expected_answer(items=atp, pool=self.probe_pool, condition=cond, conditions=self.conditions)
            self.add(
                "probes",
                with_generation(t, temperature=self.temperature, max_tokens=self.max_tokens, epochs=self.probe_epochs),
            )
        for cond in self.perception_conditions:
            t = perception(
                items=atp, pool=self.probe_pool, condition=cond, grader=self.grader, conditions=self.conditions
            )
            self.add(
                "probes",
                with_generation(t, temperature=self.temperature, max_tokens=self.max_tokens, epochs=self.probe_epochs),
            )

    def personas(self) -> None:
        """The neutral personas on the probes' items."""
        for cond in PERSONAS:
            t = self.audit(
                instrument="atp",
                items=str(self.files["atp"]),
                condition=cond,
                pool=self.probe_pool,
                temperature=self.temperature,
                epochs=self.persona_epochs,
            )
            self.add("personas", t)


def paper_design(
    items_dir: str | Path | None = None,
    *,
    pct: str | Path | None = None,
    typology: str | Path | None = None,
    atp: str | Path | None = None,
    phases: tuple[str, ...] | list[str] = PHASES,
    phase2_pool: str = PAPER_PHASE2_POOL,
    probe_pool: str = "top30",
    replicates: int = 4,
    greedy: bool = True,
    answer: str = "letter",
    temperature: float = 1.0,
    probe_epochs: int = 2,
    persona_epochs: int = 2,
    perception_conditions: tuple[str, ...] | list[str] = ("N",),
    grader: str | None = None,
    max_tokens: int | None = None,
    conditions: str | None = None,
    top_logprobs: int = 20,
    non_ordinal: str | None = None,
) -> list[PlannedTask]:
    """The first seed's whole experiment for the given item files.

    Every size is a parameter, so the same structure runs as a pilot (e.g.
    phase2_pool="top50", probe_pool="top10", replicates=2). Phases that need a missing
    instrument file are an error naming the file; pass `phases` to leave phases out.
    `answer`, `conditions`, `top_logprobs` and `non_ordinal` are the audit's own parameters
    (`DESIGN_PARAMS`: one value for every audit cell; `non_ordinal` applies to the
    ATP cells, the WD-scored ones).
    """
    unknown = [p for p in phases if p not in PHASES]
    if unknown:
        raise InputError(f"unknown phase(s) {', '.join(unknown)}; known: {', '.join(PHASES)}")
    if replicates < 1 or probe_epochs < 1 or persona_epochs < 1:
        raise InputError("replicates and epochs must be at least 1")
    files = find_item_files(items_dir, pct=pct, typology=typology, atp=atp)
    needs_atp = [p for p in phases if p in ("replicates", "probes", "personas")] + (
        ["phase2"] if "phase2" in phases else []
    )
    if files["atp"] is None and needs_atp:
        raise InputError(
            f"phases {', '.join(needs_atp)} need ATP items with benchmarks: put atp.csv in the item directory "
            "(political-sycophancy import-items) or leave those phases out",
            file=items_dir,
        )
    design = _PaperDesign(
        phases,
        files,
        phase2_pool,
        probe_pool,
        replicates,
        greedy,
        answer,
        temperature,
        probe_epochs,
        persona_epochs,
        perception_conditions,
        grader,
        max_tokens,
        conditions,
        top_logprobs,
        non_ordinal,
    )
    if "phase1" in phases:
        design.phase1()
    if "phase2" in phases or "replicates" in phases:
        design.phase2()
    if "probes" in phases:
        design.probes()
    if "personas" in phases:
        design.personas()
    return design.out


DESIGNS: dict[str, Callable[..., list[PlannedTask]]] = {"paper": paper_design}


def design_tasks(design: str = "paper", items_dir: str | Path | None = None, **options: Any) -> list[PlannedTask]:
    """The planned tasks of a named design (`DESIGNS`), refusing an unknown name with the known ones."""
    if design not in DESIGNS:
        raise InputError(f"unknown design {design!r}; known: {', '.join(DESIGNS)}")
    return DESIGNS[design](items_dir, **options)


def paper_tasks(items_dir: str | Path | None = None, **options: Any) -> list[Task]:
    """The paper's design as Inspect tasks, e.g. `eval_set(paper_tasks("items/"), model=[...], log_dir=...)`.

    Options are those of `paper_design` (item files, phases, pools, replicates, answer mode...).
    """
    return [p.task for p in paper_design(items_dir, **options)]


# ---------------------------------------------------------------------------------------
# Estimates


def _input_chars(planned: PlannedTask, n: int | None = None) -> int:
    """Characters sent per epoch by the first `n` samples (all by default).

    The sample inputs, plus the preamble that the audit task's solver puts before each
    prompt (probe inputs already hold it).
    """
    meta = planned.task.metadata or {}
    preamble = str(meta.get("preamble") or "")
    extra = len(preamble) + 2 if planned.kind == "audit" and preamble else 0
    total = 0
    for k, sample in enumerate(planned.task.dataset):
        if n is not None and k >= n:
            break
        text = sample.input if isinstance(sample.input, str) else " ".join(m.text for m in sample.input)
        total += len(text) + extra
    return total


def output_tokens_per_call(planned: PlannedTask, overrides: dict[str, float] | None = None) -> float:
    """Estimated output tokens per call of a task, by its kind (`OUTPUT_TOKENS`, overridable)."""
    table = {**OUTPUT_TOKENS, **(overrides or {})}
    # a profile is asked and answered as the audit is: a letter (or its first token's logprobs)
    if planned.kind in ("audit", "profiles") and (planned.task.metadata or {}).get("answer_mode") == "logprobs":
        return table["audit_logprobs"]
    return table.get(planned.kind, table["audit"])


@dataclass(frozen=True)
class PhaseEstimate:
    """One phase's row of `estimate`, for one model: tasks, cells, model calls and token estimates."""

    phase: str
    tasks: int
    cells: int
    calls: int
    input_tokens: int
    output_tokens: int


@dataclass(frozen=True)
class RunCost:
    """What a design costs on a hosted API and how long it takes, from the user's prices and latency.

    What a design costs on a hosted API and how long it takes, from the call and token
    estimates and the user's prices and latency (none of them known to us).
    """

    usd: float | None
    hours: float | None
    formula: str


def run_cost(
    calls_per_model: int,
    input_tokens: int,
    output_tokens: int,
    models: int,
    *,
    price_in: float | None,
    price_out: float | None,
    seconds_per_call: float | None,
    connections: int,
) -> RunCost:
    """Cost = input tokens x `price_in` + output tokens x `price_out` (USD per million tokens, all models).

    Time = calls per model x `seconds_per_call` / `connections`: Inspect keeps
    `--max-connections` calls in flight per model and runs the models side by side, so the
    slowest model sets the wall time (a provider's rate limits can lower it; batch mode
    instead returns within the provider's batch window).
    """
    usd = None
    if price_in is not None and price_out is not None:
        usd = (input_tokens * price_in + output_tokens * price_out) / 1e6
    hours = None if seconds_per_call is None else calls_per_model * seconds_per_call / max(connections, 1) / 3600
    formula = (
        f"cost = input tokens x {price_in} + output tokens x {price_out} USD per million; "
        f"time = calls per model x {seconds_per_call} s / {connections} connections ({models} model(s) side by side)"
    )
    return RunCost(usd, hours, formula)


def estimate(
    planned: list[PlannedTask], output_tokens: dict[str, float] | None = None, limit: int | None = None
) -> list[PhaseEstimate]:
    """Per phase, for one model: tasks, cells (samples), model calls and token estimates.

    Input tokens = characters / 4 + 8 per call (chat template); output tokens per call
    from `OUTPUT_TOKENS` (overridable). Perception with a grader adds one grader call per
    perception call. `limit` = the eval's sample limit (the first `limit` samples of
    each task).
    """
    rows: dict[str, dict[str, float]] = {
        p: {"tasks": 0, "cells": 0, "calls": 0, "input": 0.0, "output": 0.0} for p in PHASES
    }
    for p in planned:  # a phase of another design (profiles) gets its own row
        rows.setdefault(p.phase, {"tasks": 0, "cells": 0, "calls": 0, "input": 0.0, "output": 0.0})
        used = p.samples if limit is None else min(p.samples, limit)
        per_call_in = _input_chars(p, used) / max(used, 1) / CHARS_PER_TOKEN + MESSAGE_OVERHEAD_TOKENS
        per_call_out = output_tokens_per_call(p, output_tokens)
        rows[p.phase]["tasks"] += 1
        rows[p.phase]["cells"] += used
        for phase, all_calls in p.calls_by_phase.items():
            calls = all_calls * used // max(p.samples, 1)
            rows[phase]["calls"] += calls
            rows[phase]["input"] += calls * per_call_in
            rows[phase]["output"] += calls * per_call_out
            if p.kind == "perception" and (p.task.metadata or {}).get("grader"):
                grader_out = (output_tokens or {}).get("grader", OUTPUT_TOKENS["grader"])
                rows[phase]["calls"] += calls
                rows[phase]["input"] += calls * (GRADER_INPUT_TOKENS + MESSAGE_OVERHEAD_TOKENS)
                rows[phase]["output"] += calls * grader_out
    return [
        PhaseEstimate(phase, int(r["tasks"]), int(r["cells"]), int(r["calls"]), round(r["input"]), round(r["output"]))
        for phase, r in rows.items()
        if r["tasks"] or r["calls"]
    ]
