"""The `inspect_ai` entry point: importing this registers every task, solver, scorer and provider."""

# ruff: noqa: F401
from .audit import CONDITION_TASKS, audit
from .audit.scorers import choice_score, pct_score, typology_score, wd_score
from .core.solvers import answer_question, asker_preamble
from .models import faulty, gguf
from .open_ended.judge import stance_judge
from .open_ended.rephrase import rephrase, rephrasing_writer
from .open_ended.task import open_ended, prefix_prompt
from .probes.scorers import expected_answer_score, perception_score
from .probes.task import expected_answer, perception
from .sway.mitigations import counterfactual_cot, sway_instruction
from .sway.scorer import sway_score
from .sway.task import sway


def _register_unqualified_scorer_names() -> None:
    """`inspect score LOG` looks scorers up by the unqualified name Inspect records in the
    log (`pct_score`), which for an extension package's scorers is not registered; alias
    each of ours under that name (the alias creates the same, namespaced scorer)."""
    import functools

    from .core.inspect_compat import RegistryInfo, registry_add, registry_info, registry_lookup

    for factory in (choice_score, pct_score, typology_score, wd_score, expected_answer_score,
                    perception_score, stance_judge, sway_score):
        info = registry_info(factory)
        short = info.name.split("/", 1)[-1]
        if registry_lookup("scorer", short) is not None:
            continue

        def alias(*args, _factory=factory, **kwargs):
            return _factory(*args, **kwargs)

        registry_add(functools.wraps(factory)(alias), RegistryInfo(type="scorer", name=short, metadata=info.metadata))


_register_unqualified_scorer_names()
