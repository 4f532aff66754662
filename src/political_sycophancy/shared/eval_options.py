"""The Inspect options that `audit` and `plan` pass to `eval_set`: one definition for both.

Generation settings (temperature, max tokens, seed) and epochs go to Inspect's own
`GenerateConfig` / `epochs`, overriding the tasks' defaults exactly as `inspect eval-set`
flags do; the error options are Inspect's, so a run with permanently failing samples can
finish (`--fail-on-error 0.1`) and count those cells as errors.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import stat
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..core import arguments
from ..core.declare import TASK_LABEL, label_of_task, task_label
from ..core.errors import InputError
from ..core.io import LOCK_FILE, file_kind, output_dir
from ..core.params import TaskParam

# Inspect's display types (inspect_ai.util.DisplayType), for its --display option.
DISPLAY_TYPES = ("full", "conversation", "rich", "plain", "log", "none")


def _batch_size(text: str) -> int:
    """Inspect's --batch N: requests per provider batch."""
    try:
        int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a batch size; a batch configuration file goes to `inspect eval-set --batch FILE`"
        ) from None
    return arguments.count(text)


def add_eval_options(p: argparse.ArgumentParser, generation: bool = True) -> None:
    """The options every command that runs an eval shares.

    The shared options; `generation=False` leaves out --temperature, --max-tokens and
    --epochs, which a design sets per task (e.g. `plan`'s greedy replicate).
    """
    p.add_argument(
        "--model", action="append", required=True, help="Inspect model, e.g. gguf/smollm2 or openai/gpt-4o (repeatable)"
    )
    p.add_argument(
        "--model-arg", "-M", action="append", default=[], help="model argument key=value (e.g. model_path=/x.gguf)"
    )
    if generation:
        p.add_argument(
            "--temperature",
            type=arguments.nonnegative,
            default=None,
            help="sampling temperature (default: the task's, 1.0 as in the paper)",
        )
        p.add_argument(
            "--max-tokens", type=arguments.count, default=None, help="generation limit (default: the provider's)"
        )
        p.add_argument(
            "--epochs", type=arguments.epochs, default=None, help="replicates per item (default: the task's)"
        )
    p.add_argument(
        "--seed",
        type=arguments.seed,
        default=None,
        help="generation seed (providers that support it; the embedded model does)",
    )
    p.add_argument("--limit", type=arguments.count, default=None, help="only the first N samples of each task")
    p.add_argument("--max-connections", type=arguments.count, default=None, help="concurrent calls per model (Inspect)")
    p.add_argument("--max-tasks", type=arguments.count, default=None, help="tasks run at once (Inspect)")
    p.add_argument(
        "--fail-on-error",
        type=arguments.fail_on_error,
        default=None,
        help="Inspect: true (default), false, a share (0.1) or a count (5) of errored samples a task tolerates",
    )
    p.add_argument(
        "--retry-on-error",
        type=arguments.retries,
        default=None,
        help="Inspect: retry an errored sample this many times",
    )
    p.add_argument(
        "--retry-attempts",
        type=arguments.count,
        default=None,
        help="Inspect eval-set: attempts at unfinished tasks (default 10)",
    )
    p.add_argument(
        "--display",
        choices=DISPLAY_TYPES,
        default=None,
        help="Inspect: how the run's progress is shown (default: Inspect's, `full`; `none` for none)",
    )
    p.add_argument(
        "--batch",
        nargs="?",
        const=True,
        type=_batch_size,
        default=None,
        metavar="N",
        help=(
            "Inspect: send the calls through the provider's batch API where Inspect supports it (OpenAI, "
            "Anthropic, Google, ...; about half the price, answers within the provider's batch window): "
            "--batch for Inspect's default batch size, --batch N for N requests per batch; other providers ignore it"
        ),
    )


def add_task_options(p: argparse.ArgumentParser, params: tuple[TaskParam, ...]) -> None:
    """One option per task parameter, so a command can never lack a parameter the task has.

    One option per task parameter, from the parameter table (the task's own defaults,
    choices and help), so a command can never lack a parameter the task has.
    """
    for param in params:
        default = "" if param.default is None else f" (default: {param.default})"
        metavar = None if param.choices else param.option.lstrip("-").replace("-", "_").upper()
        p.add_argument(
            param.option,
            dest=param.name,
            default=param.default,
            type=param.type,
            choices=param.choices,
            metavar=metavar,
            help=param.help + default,
        )


def task_args(args: argparse.Namespace, params: tuple[TaskParam, ...]) -> dict[str, Any]:
    """The task keyword arguments of the options `add_task_options` added."""
    return {param.name: getattr(args, param.name) for param in params}


def model_args(pairs: list[str]) -> dict[str, Any]:
    """The `-M key=value` model arguments as a dict, refusing a pair without `=`."""
    out: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise InputError(f"model argument {pair!r} is not key=value", field="--model-arg")
        k, v = pair.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def eval_set_kwargs(args: argparse.Namespace, generation: bool = True) -> dict[str, Any]:
    """Keyword arguments for `inspect_ai.eval_set`, unset options omitted so the defaults apply.

    Keyword arguments for `inspect_ai.eval_set` (options left unset are omitted, so
    Inspect's and the tasks' defaults apply; their values were checked where parsed);
    `generation=False`: the design's own temperature, max tokens and epochs stay with the
    tasks.
    """
    kwargs: dict[str, Any] = {"model": args.model, "model_args": model_args(args.model_arg)}
    passed = ("temperature", "max_tokens", "epochs") if generation else ()
    for name in (
        *passed,
        "seed",
        "limit",
        "max_connections",
        "max_tasks",
        "fail_on_error",
        "retry_on_error",
        "retry_attempts",
        "batch",
        "display",
    ):
        value = getattr(args, name, None)
        if value is not None:
            kwargs[name] = value
    return kwargs


def check_models(kwargs: dict[str, Any]) -> None:
    """Create each model once before the run, so a bad model is one clear error instead of a traceback.

    Create each model once before the run, so an unknown provider, a missing package or a
    bad model argument is one clear error instead of a traceback from inside the eval.
    """
    from inspect_ai.model import get_model

    for name in kwargs["model"]:
        try:
            get_model(name, memoize=False, **kwargs["model_args"])
        except InputError:
            raise
        except Exception as ex:  # noqa: BLE001 - any provider failure is the user's model spec
            raise provider_error("--model", name, ex) from None


def provider_error(option: str, name: str, ex: BaseException, doing: str = "") -> InputError:
    """A model provider's failure (creating the model or calling it) as one line naming the option and the model.

    Inspect's mockllm without usage needs a tokenizer download.
    """
    lines = str(getattr(ex, "message", None) or ex).strip().splitlines()
    what = f"{type(ex).__name__}: {lines[0]}" if lines and doing else lines[0] if lines else type(ex).__name__
    hint = ""
    if "mockllm" in name and any(
        "tiktoken" in frame.f_code.co_filename for frame, _ in traceback.walk_tb(ex.__traceback__)
    ):
        hint = " (Inspect's mockllm counts tokens with a tokenizer it downloads; offline, use faulty/mockllm/model)"
    return InputError(f"{option} {name}: {doing}{what}{hint}")


def check_definitions_unchanged(tasks: list, log_dir: str) -> None:
    """Refuse to resume into a log folder whose logs were made from other definitions, saying why.

    Refuse to resume into a log folder whose logs of the same task were made from other item
    or condition definitions (the task version is a hash of them), or by a version of this
    package that named tasks by their label: Inspect would refuse too, but without saying
    why; reusing them would report old answers as new ones.
    """
    from inspect_ai.log import list_eval_logs, read_eval_log

    if not Path(log_dir).is_dir():
        return
    versions = {label_of_task(t): str(t.version) for t in tasks}
    for info in list_eval_logs(log_dir, recursive=False):
        try:
            header = read_eval_log(info, header_only=True)
        except Exception:  # noqa: BLE001 - an unreadable log is Inspect's to report
            continue
        name, version = (
            task_label(header.eval.task, header.eval.metadata, header.eval.task_registry_name),
            str(header.eval.task_version),
        )
        if name in versions and TASK_LABEL not in (header.eval.metadata or {}):
            raise InputError(
                f"the log of task {name} in {log_dir} was written by an earlier version of political-sycophancy, which"
                " named tasks by their label; this one names them"
                f" {header.eval.task_registry_name or 'by the registry'} and cannot resume that eval set: finish it"
                " with the earlier version or use a new --log-dir (analyze reads both)",
                field="--log-dir",
            )
        if name in versions and versions[name] != version:
            raise InputError(
                f"the items or conditions of task {name} changed since its log in {log_dir} was written ({version} ->"
                f" {versions[name]}); use a new --log-dir (old answers are never reused for new definitions)",
                field="--log-dir",
            )


# the settings an eval set's identity holds that a user changes between runs of one design
RUN_SETTINGS = ("temperature", "max_tokens", "seed", "epochs")


def _settings_of_tasks(tasks: list, kwargs: dict[str, Any]) -> dict[str, Any]:
    """This run's effective settings: the command's options, else the task's own defaults."""
    task = tasks[0]
    epochs = task.epochs if isinstance(task.epochs, int) else getattr(task.epochs, "epochs", None)
    return {
        "temperature": kwargs.get("temperature", task.config.temperature),
        "max_tokens": kwargs.get("max_tokens", task.config.max_tokens),
        "seed": kwargs.get("seed", task.config.seed),
        "epochs": kwargs.get("epochs", epochs or 1),
    }


def _settings_of_log(header: Any) -> dict[str, Any]:
    config = header.plan.config
    return {
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
        "seed": config.seed,
        "epochs": header.eval.config.epochs or 1,
    }


def _shown(value: Any) -> str:
    return "default" if value is None else f"{float(value):g}" if isinstance(value, float) else str(value)


def variant_log_dir(tasks: list, log_dir: str, kwargs: dict[str, Any]) -> tuple[str, str | None, bool]:
    """Where this run's logs go and why, and whether the folder holds other eval sets.

    Where this run's logs go, the line that says why when not in `log_dir`, and whether
    Inspect must be told that the folder holds other eval sets (our variant sub-folders).

    A run of the same tasks and models with other settings (temperature, max tokens, seed,
    epochs: the paper's T=0 robustness run beside its T=1 audit) is another eval set, which
    Inspect refuses to mix into the folder of the first; it goes to a sub-folder named after
    what differs (`temperature-0/`), where the same command again resumes it. `analyze` of
    the parent reads both and reports them as variants. Inspect lists a folder's logs with
    its sub-folders', so the parent's own run is told the sub-folders' eval sets may be there
    (`log_dir_allow_dirty`) when every log directly in it is one of this run's tasks.
    """
    from inspect_ai.log import list_eval_logs, read_eval_log

    if not Path(log_dir).is_dir():
        return log_dir, None, False
    ours = {label_of_task(t): _settings_of_tasks([t], kwargs) for t in tasks}  # per task: a design's phases differ
    models = set(kwargs["model"])
    existing, own_top = None, True
    for info in list_eval_logs(log_dir, recursive=False):
        try:
            header = read_eval_log(info, header_only=True)
        except Exception:  # noqa: BLE001 - an unreadable log is Inspect's to report
            continue
        label = task_label(header.eval.task, header.eval.metadata, header.eval.task_registry_name)
        own_top = own_top and label in ours
        if existing is None and label in ours and header.eval.model in models:
            existing = (_settings_of_log(header), ours[label])
    below = any(p.is_dir() and any(p.rglob("*.eval")) for p in Path(log_dir).iterdir())
    differ = [] if existing is None else [k for k in RUN_SETTINGS if _shown(existing[0][k]) != _shown(existing[1][k])]
    if existing is None or not differ:
        return log_dir, None, below and own_top
    before, now = existing
    sub = str(Path(log_dir) / "_".join(f"{k.replace('_', '-')}-{_shown(now[k])}" for k in differ))
    what = "; ".join(f"{k.replace('_', ' ')} {_shown(before[k])} -> {_shown(now[k])}" for k in differ)
    return (
        sub,
        (
            f"this run's settings differ from the eval set in {log_dir} ({what}): its logs go to {sub} "
            f"(the same command again resumes there; analyze {log_dir} reports both as variants)"
        ),
        False,
    )


@contextlib.contextmanager
def log_dir_lock(log_dir: str) -> Iterator[None]:
    """One run per log folder at a time.

    A second `audit`/`plan --run` on the same folder would send every call again beside the
    first (eval sets only see finished logs). The lock is an OS file lock, released when the
    process ends, however it ends. A log folder may come from someone else: a lock file that
    is a link (to a file the run would truncate) or not a regular file is refused, never
    followed nor written.
    """
    path = output_dir(log_dir, "--log-dir") / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError as ex:
        raise InputError(
            f"--log-dir {log_dir}: cannot open its lock file {LOCK_FILE} ({ex.strerror or ex}; a link is "
            "not followed): remove it"
        ) from None
    kind = os.fstat(fd).st_mode
    if not stat.S_ISREG(kind):
        os.close(fd)
        raise InputError(
            f"--log-dir {log_dir}: its lock file {LOCK_FILE} is {file_kind(kind)}, not a regular file: remove it"
        )
    with os.fdopen(fd, "r+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "another process"
            raise InputError(
                f"another run is writing to {log_dir} ({holder}); wait for it or use another --log-dir",
                field="--log-dir",
            ) from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()}")
        fh.flush()
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def run_eval_set(tasks: list, log_dir: str, kwargs: dict[str, Any]) -> tuple[bool, list, str]:
    """Inspect's `eval_set` of `tasks`, as every command runs it.

    In the variant's own log folder (said in one line when it moves), refused when a task's
    definition changed since its log or a model is unknown, and under the folder's lock.
    Returns (success, logs, the log folder used).
    """
    from inspect_ai import eval_set

    from ..core.console import say

    log_dir, moved, allow_dirty = variant_log_dir(tasks, log_dir, kwargs)
    if moved:
        say(moved)
    check_definitions_unchanged(tasks, log_dir)
    check_models(kwargs)
    with log_dir_lock(log_dir):
        success, logs = eval_set(tasks, log_dir=log_dir, log_dir_allow_dirty=allow_dirty, **kwargs)
    return success, logs, log_dir
