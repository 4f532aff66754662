"""How a measure declares itself, once, in its folder's `__init__.py` (`MEASURE = Measure(...)`).

The declaration names the modules that hold what the rest of the package needs from the
measure, so that nothing outside the folder names the measure but the one list of
measures (`political_sycophancy.catalog`): Inspect's entry point imports `registers`
(tasks, solvers, scorers), the report lays out the `@section` builders of `sections`,
`kinds` are the task metadata values (`political_sycophancy: <kind>`) its logs carry,
`exports` are the names `political_sycophancy` offers at its top level
(`from political_sycophancy import sway_score`), and `imports` the modules whose
`FILE_KINDS` (`shared.import_scoring.FileKind`) are the response files of its tasks that
`import-responses` tells by their columns, and `commands` the modules of its own
`political-sycophancy` commands (each with `add_parser(subparsers)`, as the CLI's own),
`judges` the modules whose `JUDGES` (`shared.judging.JudgeKind`) are the graders
`validate-judge` checks against human labels;
`summary` the nodes its report sections and report contribution add to summary.json, each
with its type (`SummaryNodes`), beyond the shared nodes of `shared.summary_nodes` (the
summary contract, `core.summary_contract`); `report` the modules whose `REPORT`
(`core.report_parts.ReportContribution`) is what it adds to the whole report: Headline
lines, Findings sentences, numbered figures, key tables; `sample_keys` the sample metadata
every sample of a log of each of its kinds carries ((kind, keys) pairs): the analysis leaves
out, counted and named, a sample of a log that claims the kind without them (`logs.values`),
as it does a score that is not the package's.

Two measures may not declare the same name, section or summary node (`distinct`, checked
when the catalog is read, and by the report for section names).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Node = tuple[str, Any]  # (key, type): a TypedDict, `dict[str, X]`, a list or a scalar type


class DeclarationError(ValueError):
    """Two measures declare the same thing, or a measure declares what the package itself holds.

    The same thing: a name, a section, a summary.json node.
    """


@dataclass(frozen=True)
class SummaryNodes:
    """The summary.json nodes a measure writes, each `(key, type)`.

    At the top level (`top`), under each model (`model`: `models.<model>.<key>`), among the
    tests (`tests`: `tests.<key>`), derived by its report contribution (`findings`:
    `findings.<key>`) and its Headline numbers (`headline`: `findings.headline.<key>`). The
    type is what the summary contract checks every read and write against
    (`core.summary_contract`): a TypedDict of the node's keys, `dict[str, X]` for a node
    keyed by data (models, conditions), or `Annotated[TD, Keyed(X)]` for a TypedDict whose
    other keys are data.
    """

    top: tuple[Node, ...] = ()
    model: tuple[Node, ...] = ()
    tests: tuple[Node, ...] = ()
    findings: tuple[Node, ...] = ()
    headline: tuple[Node, ...] = ()

    def places(self) -> Iterator[tuple[str, tuple[Node, ...]]]:
        """(where, its nodes) for each place a node can sit."""
        yield from (
            ("top level", self.top),
            ("models.<model>", self.model),
            ("tests", self.tests),
            ("findings", self.findings),
            ("findings.headline", self.headline),
        )

    def names(self) -> tuple[str, ...]:
        """Every key the measure declares, wherever it sits."""
        return tuple(key for _, nodes in self.places() for key, _ in nodes)


@dataclass(frozen=True)
class Measure:
    """One measure, declared once: what it registers, writes, reads, imports and adds to the report.

    Its name, the log kinds its tasks write, the modules that register its Inspect objects
    and that hold its report sections, its public names ((name, module) pairs, loaded on
    first use), the modules of its importable file kinds, of its commands, of its graders
    `validate-judge` checks, its card (a README beside it), its summary.json nodes and the
    modules of its report contribution.
    """

    name: str
    kinds: tuple[str, ...]
    registers: tuple[str, ...]
    sections: tuple[str, ...]
    exports: tuple[tuple[str, str], ...] = ()
    card: str = "README.md"
    imports: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    judges: tuple[str, ...] = ()
    summary: SummaryNodes = SummaryNodes()
    report: tuple[str, ...] = ()
    sample_keys: tuple[tuple[str, tuple[str, ...]], ...] = ()


def distinct(measures: Sequence[Measure]) -> None:
    """Raise DeclarationError naming both measures when two declare the same name or summary.json node in one place.

    The later one would overwrite the other's.
    """
    owner: dict[tuple[str, str], str] = {}
    for measure in measures:
        nodes = [(where, key) for where, found in measure.summary.places() for key, _ in found]
        keys = [("measure", measure.name), *nodes]
        for where, key in dict.fromkeys(keys):
            first = owner.setdefault((where, key), measure.name)
            if first != measure.name:
                what = f"the name {key!r}" if where == "measure" else f"the summary.json node {key!r} ({where})"
                raise DeclarationError(f"measures {first!r} and {measure.name!r} both declare {what}")


# The task metadata key of a task's label: what the analysis, the design table and the
# eval-set guards call one task of a run (`audit_pct_C3R_logprobs`, `phase2_audit_atp_N`).
# The task's own name is its registry name (`audit`), as Inspect names tasks; the label
# carries the instrument, condition and answer mode the task arguments hold.
TASK_LABEL = "task_label"


def task_label(name: Any, metadata: Mapping[str, Any] | None, registry_name: Any = None) -> str:
    """A task's label: its user's name for it, else the label its factory put in the metadata, else its name.

    Its name counts when its user renamed it (`task_with(name=...)`: the name then
    differs from the registry name); logs written before the label existed named the task
    by its label.
    """
    label = (metadata or {}).get(TASK_LABEL)
    if not isinstance(label, str) or not label or (registry_name and str(name) != str(registry_name)):
        return str(name)
    return label


def label_of_task(task: Any) -> str:
    """`task_label` of an Inspect `Task` before it runs.

    Its registry name comes from its registry info; a task built without the registry
    has none.
    """
    from inspect_ai.util import registry_info

    try:
        registry_name = registry_info(task).name
    except ValueError:
        registry_name = None
    return task_label(task.name, task.metadata, registry_name)
