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
`political-sycophancy` commands (each with `add_parser(subparsers)`, as the CLI's own);
`summary_nodes` and `model_nodes` are the keys its report sections add to summary.json
at the top level and under each model, beyond the shared nodes of `shared.summary_nodes`
(the summary contract, `core.summary_contract`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Measure:
    """One measure: its name, the log kinds its tasks write, the modules that register its
    Inspect objects and that hold its report sections, its public names ((name, module)
    pairs, loaded on first use), the modules of its importable file kinds, of its commands,
    and its card (a README beside it)."""

    name: str
    kinds: tuple[str, ...]
    registers: tuple[str, ...]
    sections: tuple[str, ...]
    exports: tuple[tuple[str, str], ...] = ()
    card: str = "README.md"
    imports: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    summary_nodes: tuple[str, ...] = ()
    model_nodes: tuple[str, ...] = ()
