"""What the commands print: through one function, so no value from a log or an input file reaches the terminal raw.

No value (a model name, an item text, a file name) can send escape sequences to the
terminal, and argparse's own messages (which repeat the bad value) go the same way, on
one line.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from .text import one_line, terminal_safe

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

PROG = "political-sycophancy"


def say(text: object = "", *, err: bool = False) -> None:
    """Print one message (several lines allowed) with its control characters made visible.

    Written in one piece, so lines from forked import processes do not interleave.
    """
    stream = sys.stderr if err else sys.stdout
    stream.write(terminal_safe(text) + "\n")
    stream.flush()


def error_line(message: object) -> None:
    """The one-line error every refused command ends with (a line break in a value quoted in it becomes a space)."""
    say(f"{PROG}: error: {one_line(message)}", err=True)


def progress(text: object) -> None:
    """One progress line of a long step (a value in it cannot start a line of its own)."""
    say(one_line(text))


class UsageError(SystemExit):
    """A refused command line (exit 2); its one-line message is already printed."""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors, raised as `UsageError` so `main` returns 2.

    Errors read `political-sycophancy: error: --seed must be ...`; its help and messages are
    made terminal-safe.
    """

    def error(self, message: str) -> NoReturn:
        """Print argparse's complaint as one line, the option first, and exit 2 (`UsageError`)."""
        # argparse says "argument --seed: must be ..."; the option leads the sentence instead
        message = re.sub(r"^argument ([^:]+): (must )", r"\1 \2", message)
        error_line(f"{message} (see {self.prog} --help)")
        raise UsageError(2)

    def parse_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:  # type: ignore[override]
        """Argparse's parse_args, with an unknown option refused by the (sub)command it was given to.

        The message then points to that command's help (`political-sycophancy audit --help`).
        """
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self._command_parser(parsed).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def _command_parser(self, parsed: argparse.Namespace) -> argparse.ArgumentParser:
        """The innermost (sub)command parser the parsed command line chose (this one without subcommands)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):  # argparse's private class: the only way to its choices
                chosen = action.choices.get(getattr(parsed, action.dest, None) or "")
                if isinstance(chosen, Parser):
                    return chosen._command_parser(parsed)
        return self

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:  # argparse's private hook
        if message:
            (file or sys.stderr).write(terminal_safe(message))
