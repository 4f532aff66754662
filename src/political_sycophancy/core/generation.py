"""Setting a task's generation defaults from Python, the way Inspect's flags would."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from inspect_ai import Task

# The variant label of runs whose generate config sets nothing that tells them apart
# (`logs.identity` names variants; the audit cells key on them).
BASE_LABEL = "(base)"
# The most epochs (replicates) a log may declare or a response file may number: far above
# any design (the paper ran 2), low enough that nothing counted from it exhausts memory.
MAX_EPOCHS = 100_000


def with_generation(
    task: Task,
    *,
    temperature: float | None = None,
    max_tokens: int | None = None,
    epochs: int | None = None,
) -> Task:
    """The task with these generation defaults merged into its `config` (and its epochs).

    What a design needs per task (e.g. a greedy T=0 run beside T=1), recorded in the log's
    plan config like `--temperature`. Eval-time flags still override them.
    """
    # imported here: BASE_LABEL is read by the analysis, which must not load Inspect's eval layer
    from inspect_ai import task_with
    from inspect_ai.model import GenerateConfig

    config = task.config.merge(GenerateConfig(temperature=temperature, max_tokens=max_tokens))
    if epochs is None:
        return task_with(task, config=config)
    return task_with(task, config=config, epochs=epochs)
