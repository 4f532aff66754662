"""`political-sycophancy analyze`: Inspect logs -> tables, summary.json, report.md, report.html."""

from __future__ import annotations

import argparse
import os
import signal
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..core import arguments
from ..core.console import progress, say
from ..core.errors import InputError, Interrupted, WorkerDied
from ..core.folders import input_folder

if TYPE_CHECKING:
    from ..core.atomic import FolderWrite
    from ..core.forked import EarlyWorker
    from ..logs.listing import Listing
    from ..report.section_store import SectionStore

# Resampling sizes beyond these take more memory than a machine has (the bootstrap draws
# a matrix of draws x items) or hours, and no statistic needs them.
MAX_BOOTSTRAP = 100_000
MAX_SIGN_FLIP_DRAWS = 10_000_000
# The asymmetry a power plan is made for, in WD units (at most 1) or PCT points (at most 4):
# below the smallest, the items needed (1 / effect^2) pass any number a float holds.
POWER_EFFECTS = (1e-6, 4.0)
# The smallest significance level whose normal quantile is finite (1 - alpha / 2 below 1 in a float).
MIN_ALPHA = 1e-10


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add the `analyze` command (logs -> tables, summary.json, report.md and report.html)."""
    p = sub.add_parser(
        "analyze",
        help="turn a directory of eval logs into tables, summary.json and a report",
        description=(
            "Read every Inspect log under LOG_DIR (the tidy frame is cached beside the logs), compute the "
            "statistics of every registered report section and write tables/*.csv, summary.json, report.md and a "
            "self-contained report.html into --out."
        ),
    )
    p.add_argument(
        "log_dir", type=input_folder, help="directory of .eval logs (searched recursively; no link is followed)"
    )
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument(
        "--no-cache",
        action="store_true",
        help=(
            "read every log again, do not write the frame cache, and neither reuse nor store the analysis or its"
            " sections"
        ),
    )
    p.add_argument(
        "--no-reuse",
        action="store_true",
        help=(
            "compute every statistic and figure again even when the same logs, options and code were analysed "
            "before (the stored analysis is otherwise copied into --out, and a section whose options are unchanged "
            "is restored from the section store); nothing is stored"
        ),
    )
    p.add_argument(
        "--bootstrap",
        type=arguments.whole(1, MAX_BOOTSTRAP),
        default=2000,
        help=f"bootstrap resamples of items for the CIs (default 2000, at most {MAX_BOOTSTRAP:,})",
    )
    p.add_argument(
        "--sign-flip-draws",
        type=arguments.whole(1, MAX_SIGN_FLIP_DRAWS),
        default=10_000,
        help=f"random sign patterns of the cell-level test (default 10000, at most {MAX_SIGN_FLIP_DRAWS:,})",
    )
    p.add_argument(
        "--seed",
        type=arguments.seed,
        default=20260,
        help="seed of the bootstrap and the cell-level test (0 to 2^32 - 1)",
    )
    p.add_argument(
        "--mixed-spec",
        choices=["crossed", "paper", "both"],
        default="crossed",
        help=(
            "crossed item and model intercepts (default; the paper's item x model intercept is fitted "
            "beside it), only the paper's item x model intercept, or both (the same as the default)"
        ),
    )
    p.add_argument(
        "--mixed-slopes",
        action="store_true",
        help=(
            "also fit the mixed model with per-model condition slopes (each model its own condition "
            "effects), reported beside the others"
        ),
    )
    p.add_argument(
        "--mixed-engine",
        choices=["reml", "statsmodels"],
        default="reml",
        help="direct REML (default, fast) or statsmodels MixedLM (slow on large data)",
    )
    p.add_argument(
        "--mixed-conditions",
        choices=["focal", "all"],
        default="focal",
        help="conditions in the mixed model: N, C3L, C3R (default, the paper) or every condition present",
    )
    p.add_argument(
        "--mixed-rows",
        choices=["all", "paired"],
        default="all",
        help=(
            "every answered observation (default, the paper) or only model x item pairs answered under N and another"
            " condition"
        ),
    )
    p.add_argument(
        "--power-effect",
        type=arguments.number(*POWER_EFFECTS),
        default=None,
        help=(
            "asymmetry to plan for (default 0.02 WD units, 0.25 PCT points; "
            f"{POWER_EFFECTS[0]:g} to {POWER_EFFECTS[1]:g})"
        ),
    )
    p.add_argument(
        "--alpha",
        type=arguments.number(MIN_ALPHA, 1, below=True),
        default=0.05,
        help=f"significance level of the power plan and the tests' notes ({MIN_ALPHA:g} <= alpha < 1)",
    )
    p.add_argument(
        "--power",
        type=arguments.share,
        default=None,
        help=(
            "plan the items and replicates a study needs, at this power (0 < power < 1; 0.8 when only --power-effect "
            "is given); without --power or --power-effect no power plan is made"
        ),
    )
    p.add_argument(
        "--jobs",
        type=arguments.count,
        default=None,
        help=(
            "processes computing the report's sections at once (default: one per CPU; each section is computed "
            "whole by one process, so the report is the same whatever the number)"
        ),
    )
    p.set_defaults(func=run)


def _say(text: str) -> None:
    say(text)


# arguments that do not change what an analysis computes (left out of its reuse key; the
# output folder enters the key by its absolute path)
NOT_IN_KEY = ("out", "no_cache", "no_reuse", "jobs", "func", "command")
# what `analyze` writes into --out: a folder holding anything else is the user's, not replaced
OUTPUTS = frozenset({"report.html", "report.md", "summary.json", "tables", "figures"})


def run(args: argparse.Namespace) -> int:
    """Write the analysis into a fresh folder beside --out, then put it in place of --out in one step.

    One step (core.atomic.FolderWrite), so a second run into the same --out refuses while
    one runs, stale files of an earlier run never survive, and a failed, killed or
    interrupted run (Ctrl-C, SIGTERM, a worker process that died) leaves the earlier report
    whole. What can be refused without reading a log is refused before anything is written.
    """
    from ..core.atomic import FolderBusy, FolderWrite
    from ..core.io import output_dir

    listing = _checked(args)
    out = output_dir(args.out, "--out")
    writer = FolderWrite(out, OUTPUTS)
    try:
        temp = writer.open()
    except FolderBusy:
        raise InputError(
            f"--out {args.out}: another analyze is writing there; wait for it to finish or choose another --out"
        ) from None
    except OSError as ex:
        raise InputError(
            f"--out {args.out}: cannot write beside it in {out.absolute().parent} ({ex.strerror or ex}); "
            "the report is written into a new folder there and moved into place"
        ) from None
    done = False
    stop = Stop()
    # (a signal the process was started ignoring, as a shell's background job ignores SIGINT, stays ignored)
    handlers = {
        signum: signal.signal(signum, stop)
        for signum in (signal.SIGINT, signal.SIGTERM)
        if signal.getsignal(signum) != signal.SIG_IGN
    }
    try:
        _refuse_foreign(args.out, writer)  # again, under the lock
        code = _run_into(args, temp, listing, stop)
        stop.check()  # an interruption a library caught still leaves --out as it was
        done = True
    except WorkerDied as ex:
        raise WorkerDied(f"{ex}; nothing was written: --out {args.out} is unchanged") from None
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        writer.close(commit=done)
    return code


class Stop:
    """Ctrl-C (SIGINT) and SIGTERM while analyze writes.

    Raised at once as `Interrupted` (the workers are ended, the folder being written
    dropped, one line, exit 130 or 143), and again at the next progress line and before
    --out is replaced, should a library the analysis calls have caught it (a bare
    `except:` swallows a KeyboardInterrupt).
    """

    def __init__(self) -> None:
        self.signum: int | None = None

    def __call__(self, signum: int, frame: object) -> None:
        """Record the signal and raise it as `Interrupted` (the signal handler)."""
        self.signum = signum
        raise Interrupted(signum)

    def check(self) -> None:
        """Raise the interruption that came, if one did."""
        if self.signum is not None:
            raise Interrupted(self.signum)

    def progress(self, text: str) -> None:
        """A progress line (`console.progress`), after `check`."""
        self.check()
        progress(text)


def _checked(args: argparse.Namespace) -> Listing:
    """The log folder's walk, once what can be refused without reading a log is refused.

    Refused: an --out that is the filesystem root, a file or the user's folder, a missing
    log folder or one without logs. Nothing is written before.
    """
    from ..core.atomic import FolderWrite
    from ..core.folders import folder_entries
    from ..core.io import FRAME_CACHE_DIR
    from ..logs.listing import list_folder, log_folder

    target = Path(args.out).absolute()
    if target.parent == target or Path(os.path.realpath(target)).parent == Path(os.path.realpath(target)):
        raise InputError(f"--out {args.out}: the filesystem root; choose a new or empty folder for the report")
    if target.exists() and not target.is_dir():
        raise InputError(f"--out {args.out}: exists and is not a directory")
    log_folder(args.log_dir)  # a missing log folder, or not a folder
    _refuse_foreign(args.out, FolderWrite(target, OUTPUTS))
    listing = list_folder(args.log_dir, folder_entries(os.path.abspath(args.log_dir), skip=(FRAME_CACHE_DIR,)))
    if not listing.logs:
        skipped = f" (skipped, as Inspect does: {'; '.join(listing.skipped[:5])})" if listing.skipped else ""
        raise InputError(f"no Inspect logs (.eval or .json) found{skipped}", file=args.log_dir)
    return listing


def _refuse_foreign(out: str, writer: FolderWrite) -> None:
    """Refuse an --out that holds files or folders analyze did not write (the user's)."""
    if foreign := writer.foreign():
        raise InputError(
            f"--out {out}: holds {len(foreign)} file(s) or folder(s) analyze did not write "
            f"({', '.join(foreign[:3])}{', ...' if len(foreign) > 3 else ''}); choose a new or empty folder"
        )


def _run_into(args: argparse.Namespace, temp: Path, walked: Listing, stop: Stop) -> int:
    """Reuse the stored analysis or compute it (restoring the stored sections it can), into `temp`.

    Computed from the log folder's one walk (`walked`).
    """
    from ..report.reuse import Reuse, StoreInvalid, StoreUnusable, log_listing

    started = time.perf_counter()
    reuse, sections = None, None
    if not (args.no_cache or args.no_reuse):
        listing = log_listing(Path(args.log_dir).resolve(), walked.entries)
        try:
            reuse = Reuse.of(
                args.log_dir, {k: v for k, v in vars(args).items() if k not in NOT_IN_KEY}, args.out, listing=listing
            )
            stored = reuse.restore(temp)
        except StoreUnusable as ex:
            _say(f"note: the analysis store is not used ({ex}); the analysis is computed and not stored for reuse")
            reuse, stored = None, None
        except StoreInvalid as ex:
            _say(f"note: the stored analysis of these logs is not served ({ex}); computing it again")
            stored = None
        if stored is not None:
            lines, created = stored
            _say(
                f"reused the analysis computed {created}: the logs in {args.log_dir}, the options and the code are "
                "unchanged (--no-reuse computes it again)"
            )
            for line in lines:
                _say(line)
            _say(f"\nwrote {Path(args.out).resolve()}/ from the stored analysis ({time.perf_counter() - started:.1f}s)")
            return 0
        if reuse is not None:  # imported here: a reused analysis imports no analysis library
            from ..report.section_store import SectionStore

            sections = SectionStore.of(args.log_dir, listing, root=reuse.root, note=_say)
    code, lines = _analyze(args, temp, started, walked, stop, sections)
    if reuse is not None and code == 0:
        try:
            reuse.store(temp, lines)
        except StoreUnusable as ex:
            _say(f"note: the analysis is not stored for reuse ({ex})")
    return code


def _analyze(
    args: argparse.Namespace, into: Path, started: float, walked: Listing, stop: Stop, store: SectionStore | None = None
) -> tuple[int, list[str]]:
    """Read the logs, compute and write every section; the exit code and the lines a reused analysis prints again.

    The notes on the logs (left out, skipped, unreadable, read with Inspect's reader: said
    on every run) and the summary printed at the end.
    """
    from ..logs.frame import read_frame  # noqa: F401  # imported before the figure process forks: both have them
    from ..report.render import figure_worker

    figures = figure_worker()  # prepares while the logs are read; ended by write_report, or below
    try:
        return _analyzed(args, into, started, walked, stop, store, figures)
    except BaseException:  # stopping: the worker is ended, not waited for
        figures.close(kill=True)
        raise
    finally:
        figures.close()


def _analyzed(
    args: argparse.Namespace,
    into: Path,
    started: float,
    walked: Listing,
    stop: Stop,
    store: SectionStore | None,
    figures: EarlyWorker,
) -> tuple[int, list[str]]:
    """`_analyze` with the process that draws the Figures section started."""
    from ..logs.frame import read_frame
    from ..report.render import write_report
    from ..shared.cells import cells_of
    from ..stats.options import AnalysisOptions

    def progressing(text: str) -> None:  # each progress line: an interruption or a dead figure worker stops the run
        figures.check()
        stop.progress(text)

    _say(f"reading logs in {args.log_dir} ...")
    load = read_frame(args.log_dir, cache=not args.no_cache, progress=progressing, entries=walked.entries)
    _say(
        f"[logs] {load.files} file(s): {load.read} read, {load.cached} from cache, {len(load.ignored)} ignored, "
        f"{len(load.unreadable)} unreadable; {len(load.frame):,} samples ({time.perf_counter() - started:.1f}s)"
    )
    notes = [f"  note: {note}" for note in load.notes]
    for line in notes:
        _say(line)
    options = AnalysisOptions(
        bootstrap_draws=args.bootstrap,
        sign_flip_draws=args.sign_flip_draws,
        seed=args.seed,
        mixed_spec=args.mixed_spec,
        mixed_slopes=args.mixed_slopes,
        mixed_engine=args.mixed_engine,
        mixed_conditions=args.mixed_conditions,
        mixed_rows=args.mixed_rows,
        power_effect=args.power_effect,
        alpha=args.alpha,
        power=args.power,
    )
    t = time.perf_counter()
    cells = cells_of(load.frame, options.cache)
    _say(f"[cells] {len(cells):,} model x instrument x condition x item cells ({time.perf_counter() - t:.1f}s)")
    result = write_report(
        load.frame,
        into,
        source=str(Path(args.log_dir).resolve()),
        options=options,
        progress=progressing,
        store=store,
        jobs=args.jobs,
        figure_process=figures,
    )
    lines: list[str] = [line for _, section in result.sections for line in section.console]
    not_computable = result.summary.get("not_computable") or []
    if not_computable:
        lines.append("\nnot computable from these logs:")
        lines += [f"  - {line.replace('`', '')}" for line in not_computable]
    for line in lines:
        _say(line)
    out = Path(args.out).resolve()
    _say(
        f"\nwrote {out}/report.html, report.md, summary.json and {len(result.tables)} tables"
        f" ({time.perf_counter() - started:.1f}s)"
    )
    if result.failed:
        say(
            f"political-sycophancy: {len(result.failed)} section(s) failed: {', '.join(result.failed)} (details in the"
            " report)",
            err=True,
        )
        return 1, notes + lines
    return 0, notes + lines
