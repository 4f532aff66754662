"""Console scripts run as forked children of one warm interpreter per test worker.

Starting `inspect` or `political-sycophancy` costs about 4 s of importing Inspect before
the command does anything, and the suite starts them about a hundred times. The zygote
imports Inspect's CLI (and pandas, scipy.stats and matplotlib, 3 s more; and the modules
Inspect imports on its first eval, 3 s more) once; each command then runs in a child forked from it: its own
process with the requested argv, working folder and environment, stdout and stderr on
their own file descriptors, stdin closed, its exit code and its atexit handlers, exactly
as the console script runs it. What differs from a fresh interpreter is only what Inspect's
import did before the fork, in the zygote's environment, and llama.cpp's prompt threads
(one, as in the test worker: support.llama_threads); a test about what a command
imports, or about environment read at import time, starts a fresh process instead.

A child of a test that is not marked `figures` writes placeholder images, as an in-process
test does (tests/conftest.py): `Figure.savefig` writes a placeholder of the format and the
layout pass before it is skipped (support.placeholders, the same stub).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

# the zygote's loop: read one request per line, fork, run the script in the child, reply;
# first, llama.cpp on one thread as in the test worker (support.llama_threads)
SOURCE = f"import runpy; runpy.run_path({str(Path(__file__).with_name('llama_threads.py'))!r})['pin_llama_threads']()\n" + \
    f"PLACEHOLDERS = {str(Path(__file__).with_name('placeholders.py'))!r}\n" + r"""
import json, os, signal, sys, time
import inspect_ai._cli.main  # noqa: F401  Inspect's CLI, imported once for every child
import matplotlib.figure, pandas, scipy.stats  # noqa: E401, F401  and what analyze, import and audit load
import importlib
for name in (  # what Inspect imports on its first eval (about 3 s), third-party and Inspect's own
    "openai", "fastapi", "uvicorn", "acp", "markdown_it", "opentelemetry", "jiter", "linkify_it", "multiprocessing",
    "inspect_ai.hooks._startup", "inspect_ai.model._openai", "inspect_ai.model._openai_responses",
    "inspect_ai.model._providers.mockllm", "inspect_ai.agent._acp.server", "inspect_ai._control.scoring",
    "inspect_ai.solver._transcript",
):
    try:
        importlib.import_module(name)
    except ImportError:  # another inspect-ai version (the oldest-inspect stage)
        pass
from importlib.metadata import entry_points

scripts = {ep.name: ep for ep in entry_points(group="console_scripts")}
import gc
gc.freeze()  # as a fork server should: a child's collections (and its exit, 1 s -> 0.2 s) skip the zygote's objects
channel = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # nothing the zygote prints reaches the channel
for line in sys.stdin:
    req = json.loads(line)
    sys.stdout.flush(); sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        sys.stdin = open(os.devnull)
        for fd, path in ((1, req["stdout"]), (2, req["stderr"])):
            os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
        channel.close()
        if req.get("placeholders"):  # a test that reads no figure: no drawing (module docstring)
            runpy.run_path(PLACEHOLDERS)["install"](setattr)
        sys.argv = [req["script"], *req["args"]]
        sys.exit(scripts[os.path.basename(req["script"])].load()())
    deadline = time.monotonic() + req["timeout"]
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            status = None
            break
        time.sleep(0.02)
    code = None if status is None else os.waitstatus_to_exitcode(status)
    channel.write(json.dumps({"returncode": code}) + "\n")
"""


class Zygote:
    """One warm interpreter of this test worker; `run` is `subprocess.run` of a console script."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", SOURCE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env=env, text=True, bufsize=1)

    def run(self, script: Path, args: list[str], *, cwd: Path, env: dict[str, str], timeout: float,
            draws: bool = True) -> subprocess.CompletedProcess:
        """`draws=False`: the child writes placeholder images (module docstring)."""
        with tempfile.TemporaryDirectory(prefix="ps-zygote-") as scratch:
            out, err = Path(scratch) / "stdout", Path(scratch) / "stderr"
            request = {"script": str(script), "args": list(args), "cwd": str(cwd), "env": env,
                       "stdout": str(out), "stderr": str(err), "timeout": timeout,
                       "placeholders": not draws}
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.proc.stdin.write(json.dumps(request) + "\n")
            reply = self.proc.stdout.readline()
            if not reply:
                raise RuntimeError(f"the zygote died (exit {self.proc.poll()})")
            code = json.loads(reply)["returncode"]
            if code is None:
                raise subprocess.TimeoutExpired([str(script), *args], timeout)
            return subprocess.CompletedProcess([str(script), *args], code, out.read_text(errors="replace"), err.read_text(errors="replace"))

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)
