"""What `political-sycophancy validate-judge` checks.

The graders the measures declare (`Measure.judges`: modules whose `JUDGES` are
`JudgeKind`s), each told by the columns of a human-labelled file, the way `import-responses`
tells response files (`import_scoring`).

A judge kind loads and validates its labelled file (errors name file, row and field, before
any grader is made), runs the grader on every labelled answer, and hands back what the
command prints (agreement of the grader's labels with the human ones: `stats.agreement`)
and the rows of its `--output` file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class JudgeRun:
    """What one validation found.

    The lines printed after the command's first line (how many labelled answers, from which
    file), and the `--output` CSV (header, one row per labelled answer).
    """

    lines: tuple[str, ...]
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class JudgeKind:
    """A grader a measure declares for `validate-judge`.

    columns: the columns a labelled file must have to be this judge's (distinct from every
      other kind's); `load(path)` reads and validates it (a list of labelled answers);
      `run(answers, grader, thresholds)` grades them; `thresholds`: the default confidence
      thresholds of a judge with a confidence, () for one without (`--thresholds` is then
      refused).
    """

    name: str
    description: str
    columns: tuple[str, ...]
    load: Callable[[Any], Sequence[Any]]
    run: Callable[[Sequence[Any], Any, tuple[float, ...]], JudgeRun]
    thresholds: tuple[float, ...] = ()
    unit: str = "labelled answers"
