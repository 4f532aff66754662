"""The `inspect_ai` entry point: importing this registers every task, solver, scorer and provider."""

# ruff: noqa: F401
from .models import faulty, gguf
from .scorers import choice_score, pct_score, typology_score, wd_score
from .solvers import answer_question, asker_preamble
from .tasks import audit, audit_grid
from .scorers.probes import expected_answer_score, perception_score
from .tasks.probes import expected_answer, perception
from .scorers.stance import stance_judge
from .tasks.open_ended import open_ended, prefix_prompt
from .tasks.sway import sway
from .scorers.sway import sway_score
from .mitigations import counterfactual_cot, sway_instruction
from .tasks.rephrase import rephrase, rephrasing_writer
