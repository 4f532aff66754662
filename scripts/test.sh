#!/usr/bin/env bash
# Install (if needed) and run the test suite, offline.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
. "${VENV:-.venv}/bin/activate"
export HF_HUB_OFFLINE=1 INSPECT_LOG_DIR="${INSPECT_LOG_DIR:-$(mktemp -d)}"
python -m pytest -q "$@"
