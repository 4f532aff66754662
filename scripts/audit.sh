#!/usr/bin/env bash
# The main job: install, audit the PCT under the six asker conditions on the embedded
# model (offline), print the per-condition table, and write the analysis report.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
bash scripts/install.sh
installed=$SECONDS
. "${VENV:-.venv}/bin/activate"
LOG_DIR="${LOG_DIR:-logs/pct-smollm2}"
REPORT_DIR="${REPORT_DIR:-reports/pct-smollm2}"
# SmolLM2-135M rarely writes a bare letter, so the embedded audit reads the option
# probabilities of the first answer token (answer=logprobs): the first generated token that is
# an option letter, which SmolLM2 writes as late as the 8th token ("I'd choose ... B"), so 8 is
# the fewest that keeps every answer (bench/answer_position.py: 1 token would change 34 of 372).
political-sycophancy audit --instrument pct --conditions all --model gguf/smollm2 \
  --answer "${ANSWER:-logprobs}" --max-tokens "${MAX_TOKENS:-8}" --seed "${SEED:-1}" --log-dir "$LOG_DIR"
audited=$SECONDS
political-sycophancy analyze "$LOG_DIR" --out "$REPORT_DIR"
echo "report: $REPORT_DIR/report.html"
echo "main job: $((SECONDS - started)) s (install $((installed - started)) s," \
  "audit $((audited - installed)) s, analysis $((SECONDS - audited)) s)"
