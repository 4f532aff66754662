"""`political-sycophancy import-responses`: a published response file -> Inspect `.eval` logs."""

from __future__ import annotations

import argparse

from ..core import arguments
from ..core.console import progress, say


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add the `import-responses` command (a response file -> Inspect .eval logs)."""
    p = sub.add_parser(
        "import-responses",
        help="turn a response file (the first seed's results_phase1.csv or Phase 2 shape) into Inspect .eval logs",
        description=(
            "Write one Inspect .eval log per model x instrument x condition x temperature of a response file, with the"
            " prompts rebuilt from the items and conditions, the raw responses as outputs and our scorers applied."
            " Re-importing the same file into the same directory replaces the logs it wrote. The first seed's probe and"
            " persona files (results_expected_answer.csv, results_perception_probe.csv, results_neutral_persona.csv)"
            " are recognised by their columns and become logs of the expected_answer, perception and audit (persona)"
            " tasks."
        ),
    )
    p.add_argument(
        "responses", help="CSV with model_id, question_id, raw_response (+ letter, error, condition, rep, temperature)"
    )
    p.add_argument(
        "--items",
        nargs="+",
        required=True,
        help="instrument files holding the questions (e.g. pct.csv typology.csv atp.csv)",
    )
    p.add_argument("--log-dir", required=True, help="directory to write the .eval logs into")
    p.add_argument(
        "--use-source-letters",
        action="store_true",
        help="score the file's letter column (reproduces the paper) instead of parsing raw_response with our parser",
    )
    p.add_argument("--conditions-file", default=None, help="YAML/JSON file of extra conditions used in the file")
    p.add_argument(
        "--skip-unknown",
        action="store_true",
        help="leave out (and count) responses to question ids not in the item files instead of stopping",
    )
    p.add_argument(
        "--skip-mismatched",
        action="store_true",
        help=(
            "leave out (and count) rows whose options, n_options, question text or letter disagree with the "
            "item files instead of stopping"
        ),
    )
    p.add_argument(
        "--replace-changed",
        action="store_true",
        help="replace the logs imported from an earlier version of this file (same path, other content)",
    )
    p.add_argument(
        "--model-column",
        default="model_id",
        metavar="COLUMN",
        help=(
            "the column whose values name the models (default model_id; the first seed's model_label gives "
            "the names its Phase 2 grid and probe files use)"
        ),
    )
    p.add_argument(
        "--note",
        default=None,
        metavar="TEXT",
        help=(
            "what the file is and how it was made (e.g. 'rebuilt from phase2_alignment_by_condition.csv: "
            "each cell's letter is the argmax of llm_dist'), recorded in every log and shown with the "
            "report's provenance"
        ),
    )
    p.add_argument(
        "--jobs",
        type=arguments.count,
        default=None,
        help="processes writing logs at once (default: one per CPU; each log is written whole by one process)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Import a response or probe file into .eval logs and print what was written and excluded."""
    import warnings

    from ..core.conditions import ConditionWarning
    from ..core.io import output_dir
    from ..logs.importer import AUDIT, import_responses
    from ..logs.probe_importer import file_kind, import_probe_file

    output_dir(args.log_dir, "--log-dir")
    found = file_kind(args.responses)
    say(f"importing {args.responses}" + (f" ({found.description})" if found else "") + " ...")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConditionWarning)
        result = (import_probe_file if found else import_responses)(
            args.responses,
            args.items,
            args.log_dir,
            use_source_letters=args.use_source_letters,
            conditions_file=args.conditions_file,
            skip_unknown=args.skip_unknown,
            skip_mismatched=args.skip_mismatched,
            replace_changed=args.replace_changed,
            progress=progress,
            model_column=args.model_column,
            jobs=args.jobs,
            note=args.note,
        )
    for w in caught:
        say(f"political-sycophancy: warning: {w.message}", err=True)
    say(
        f"wrote {len(result.logs)} log(s) with {result.samples:,} samples to {args.log_dir}"
        + (f" (replaced {result.replaced} earlier log(s) of this file)" if result.replaced else "")
        + (f" (replaced {result.replaced_changed} log(s) of its earlier version)" if result.replaced_changed else "")
    )
    for note in result.notes:
        say(f"note: {note}")
    if result.mismatches:
        row, field, reason = result.mismatches[0]
        say(
            f"left out {len(result.mismatches)} response(s) that disagree with the item files "
            f"(first: row {row}, field '{field}': {reason})"
        )
    if result.errors:
        say(f"{result.errors} response(s) were provider errors in the file: logged as error samples")
    if result.skipped_unknown:
        say(
            f"left out {result.skipped_unknown} response(s) to {len(result.unknown_ids)} question id(s) not in the item"
            f" files, e.g. {', '.join(result.unknown_ids[:5])}"
        )
    if args.use_source_letters and (found is None or found.kind is AUDIT):
        say(
            "source letters vs our parser (per model: rows, letter only in the file, letter only ours, different"
            " letters):"
        )
        for model, d in sorted(result.disagreements.items()):
            say(f"  {model}: {d['rows']}, {d['source_only']}, {d['ours_only']}, {d['different']}")
    return 0
