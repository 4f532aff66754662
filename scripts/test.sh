#!/usr/bin/env bash
# Install (if needed) and run the test suite, offline.
# Without arguments (as CI runs it) the Inspect-facing tests then run again on the oldest
# inspect-ai that pyproject.toml allows, in a second venv ($VENV-oldest-inspect):
# OLDEST_INSPECT=0 skips that, `--oldest-inspect` runs only that.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
export HF_HUB_OFFLINE=1 INSPECT_LOG_DIR="${INSPECT_LOG_DIR:-$(mktemp -d)}"
only_oldest=0
if [ "${1:-}" = "--oldest-inspect" ]; then
  only_oldest=1
  shift
fi
if [ "$only_oldest" = 0 ]; then
  bash scripts/install.sh
  # Lint and types first: fail fast, before the long test run.
  # The suite runs on two pytest-xdist workers per core (PYTEST_WORKERS overrides): a worker
  # often waits on a command it started, a forked analysis or a server, and a second worker per
  # core fills that time (the suite on two cores: 804 s with 2 workers, 700 s with 3, 666 s
  # with 4, 757 s with 6, 2026-11-28). A test module's tests run on one worker, the modules in collection
  # order (the slowest first: tests/conftest.py), not by test count.
  # Python may cache the bytecode of what the suite imports (hundreds of processes import pandas,
  # matplotlib and Inspect): install.sh writes no .pyc files, and with PYTHONDONTWRITEBYTECODE
  # set (this machine sets it) every process compiled them from source again.
  # Without arguments the tests marked `slow` (pyproject.toml: the simulations, the embedded
  # model's recipes, the paper's data, the print checks) run in a stage of their own after the
  # rest, so that a failure elsewhere shows within minutes; both stages print their time.
  workers="${PYTEST_WORKERS:-$((2 * $(nproc)))}"
  suite() { python -m pytest -q -n "$workers" --dist loadfile --no-loadscope-reorder "$@"; }
  (. "$VENV/bin/activate" && unset PYTHONDONTWRITEBYTECODE && ruff check src tests bench && mypy &&
    if [ $# -gt 0 ]; then suite "$@"; else
      start=$SECONDS && suite -m "not slow" && echo "tests but the slow ones: $((SECONDS - start)) s" &&
        start=$SECONDS && suite -m slow && echo "slow tests: $((SECONDS - start)) s"
    fi)
fi
if [ "$only_oldest" = 1 ] || { [ $# -eq 0 ] && [ "${OLDEST_INSPECT:-1}" != 0 ]; }; then
  start=$SECONDS
  oldest=$(python3 -c 'import re, tomllib; deps = tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]; print(next(re.search(r">=([0-9.]+)", d).group(1) for d in deps if d.startswith("inspect-ai")))')
  VENV="$VENV-oldest-inspect" INSPECT_AI="$oldest" bash scripts/install.sh
  echo "oldest inspect-ai $oldest: venv ready in $((SECONDS - start)) s"
  (. "$VENV-oldest-inspect/bin/activate" && python -m pytest -q -p no:cacheprovider \
    tests/test_core_inspect_compat.py \
    tests/test_audit_inspect_native.py::test_generation_settings_are_inspects \
    tests/test_audit_inspect_native.py::test_our_solvers_and_scorers_in_a_users_task \
    tests/test_audit_inspect_native.py::test_choice_score_reads_inspect_choices \
    tests/test_audit_inspect_native.py::test_inspect_score_rescored_without_naming_the_scorer \
    tests/test_logs_import_responses.py::test_phase2_shape_becomes_one_log_per_cell \
    tests/test_logs_import_responses.py::test_source_letters_versus_our_parser \
    tests/test_logs_import_writer.py)
  echo "oldest inspect-ai $oldest: $((SECONDS - start)) s in all"
fi
