"""Session-wide test set-up: the reference-data fixture, the `scripted/<letter>` model
provider, the order in which xdist hands out the modules, and the one stub of the suite:
figures are drawn only in tests marked `figures` (elsewhere a placeholder image, in the
test's process and in the commands it runs). Console
scripts run for real, forked from a warm interpreter (support.zygote). Helpers the test
modules share live in the `support` package (tests import them from there, never from this
file)."""

from __future__ import annotations

import contextlib
import gc
import os
from pathlib import Path

import pytest
from inspect_ai.model import GenerateConfig, ModelAPI, ModelOutput, modelapi
from support import FIGURES_DRAWN, REFERENCE, output
from support.llama_threads import pin_llama_threads
from support.placeholders import install as install_placeholders

# The modules that take longest (25 to 185 s each with four workers on two cores, issue 48's
# profile of 2026-11-28), slowest first. pytest-xdist (`--dist loadfile --no-loadscope-reorder`,
# scripts/test.sh) hands modules to the workers in collection order, so these start first and the
# many short modules fill in after them; ordered by test count (xdist's default) the slow modules
# came last, and one worker ran them for minutes while the others idled. Re-profile with
# `--junitxml` (per-module sums) when a module's time changes.
SLOWEST_FIRST = (
    "test_doc_commands.py", "test_report_reuse.py", "test_report_print_checks.py", "test_cli_hostile_log_scenarios.py",
    "test_cli_hostile_surfaces_scenarios.py", "test_report_store_safety.py", "test_evenhandedness_e2e.py",
    "test_cli_run_integrity.py", "test_answer_letters.py", "test_report_section_store.py", "test_stats_stress.py",
    "test_measure_folder.py", "test_logs_frame_integrity.py", "test_audit_inspect_native.py",
    "test_open_ended_task.py", "test_models_openai_server.py", "test_pew_paper_fidelity.py",
    "test_report_analyze.py", "test_report_browser.py", "test_architecture.py", "test_probes_analysis.py",
    "test_models_faulty.py", "test_report_headline_rules.py", "test_report_figures_items.py", "test_audit_task.py",
    "test_models_gguf_logprobs.py", "test_report_figures.py", "test_cli_interruption.py",
    "test_cli_hostile_scenarios.py", "test_sway_task.py",
)


def pytest_configure(config) -> None:
    """llama.cpp reads prompts on one thread per worker, not on every core in each worker
    (support.llama_threads: 7.6 s -> 1.2 s an audit prompt beside another worker)."""
    pin_llama_threads()


def pytest_collection_modifyitems(config, items) -> None:
    rank = {name: k for k, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(SLOWEST_FIRST)))  # stable: the rest keep their order


def pytest_collection_finish(session) -> None:
    """Every test module is imported: their objects (Inspect, pandas, scipy, matplotlib, ours)
    live as long as the session, so the garbage collector's full passes skip them from here."""
    gc.freeze()


DRAWS = pytest.StashKey[bool]()
STORE = pytest.StashKey[Path]()


@pytest.fixture(scope="session", autouse=True)
def analysis_store(tmp_path_factory, request) -> Path:
    """Stored analyses and sections (report.reuse, report.section_store) go to a folder of
    this test session, not the user's cache: one for drawing tests, one for the others, so
    that a placeholder figure is never restored into a test that reads figures."""
    root = tmp_path_factory.mktemp("analysis-store")
    request.config.stash[STORE] = root
    _set_draws(request.config, request.config.stash.get(DRAWS, True))
    return root


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item) -> None:
    """Whether the test being set up (and the module fixtures first set up for it) draws."""
    _set_draws(item.config, item.get_closest_marker("figures") is not None)


def _set_draws(config, draws: bool) -> None:
    """In-process figures read the stash; the commands a test runs read the environment
    (support.run_script)."""
    config.stash[DRAWS] = draws
    os.environ[FIGURES_DRAWN] = "1" if draws else "0"
    if STORE in config.stash:
        os.environ["POLITICAL_SYCOPHANCY_CACHE"] = str(config.stash[STORE] / ("drawn" if draws else "placeholder"))


@pytest.fixture(scope="session", autouse=True)
def figures_drawn_where_checked(request):
    """Matplotlib draws a figure only in tests marked `figures` (those that read the image,
    its labels, or what drawing may raise), and in the module fixtures first set up for such
    a test; elsewhere placeholders are written (support.placeholders; the saver's fork per
    figure was about a quarter of a small analysis's CPU here). Drawing was a fifth of the
    suite's time, spent on images no assertion looked at. The commands a test runs forked
    from the zygote do the same (support.zygote); a fresh interpreter draws unless its
    command starts with `support.placeholders.PRELUDE`.
    Session-wide, so that a module fixture (set up before any function fixture)
    is covered too."""
    with pytest.MonkeyPatch.context() as patch:
        install_placeholders(patch.setattr, drawn=lambda: request.config.stash.get(DRAWS, True))
        yield


@pytest.fixture(scope="session")
def drawn_figures(request):
    """For a module fixture whose figures its tests read, whichever test sets it up first:
    `with drawn_figures(): write_report(...)` draws them for real."""

    @contextlib.contextmanager
    def drawing():
        before = request.config.stash.get(DRAWS, True)
        _set_draws(request.config, True)
        try:
            yield
        finally:
            _set_draws(request.config, before)

    return drawing


@pytest.fixture
def reference_dir() -> Path:
    """The first seed's replication data in ../shared; tests using it skip when it is absent."""
    if not (REFERENCE / "phase2_pool.json").exists():
        pytest.skip(f"replication data not found at {REFERENCE}")
    return REFERENCE


@modelapi(name="scripted")
class ScriptedAPI(ModelAPI):
    """`scripted/<letter>`: always answers <letter>, with usage set (offline-safe mock for
    code paths that take a model name, such as the CLI)."""

    def __init__(self, model_name: str, base_url=None, api_key=None, config: GenerateConfig = GenerateConfig(), **kwargs):
        super().__init__(model_name, base_url, api_key, [], config)

    async def generate(self, input, tools, tool_choice, config) -> ModelOutput:
        return output(self.model_name, model=f"scripted/{self.model_name}")
