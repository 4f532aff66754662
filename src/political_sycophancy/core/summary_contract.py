"""The contract of summary.json.

Which keys each node holds, as TypedDicts, written and read through this module, so that a
renamed or moved key fails loudly instead of reading as a silent `None`.

A node is a TypedDict (its keys are the contract; every key optional, since a section that
cannot compute a number leaves it out), `dict[str, Node]` for a node keyed by data (models,
conditions, instruments, cues), `Annotated[Node, Keyed(Child)]` for a TypedDict whose
other keys are data (a node of fixed keys beside one per model), a list or a scalar for a
leaf, or `Any` for a node whose inside the contract does not describe.
`read` walks a path and raises `SummaryContractError` at the first key the contract does
not declare (an absent declared key is `None`: not computed); `undeclared` lists the
written keys the contract does not know (the report refuses to write them). The summary
carries `summary_version`; a stored summary of another version is not read as this one.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Any, NotRequired, Required, Union, get_args, get_origin, get_type_hints, is_typeddict

SUMMARY_VERSION = 2


@dataclass(frozen=True)
class Keyed:
    """Marks a TypedDict node whose keys beyond its own are data: `Annotated[Node, Keyed(Child)]`.

    The data keys (model names, conditions) each hold a `Child`.
    """

    child: Any


class SummaryContractError(KeyError):
    """A path the summary contract does not declare: a key was renamed or moved."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


@functools.cache
def _hints(node: Any) -> dict[str, Any]:
    """A TypedDict's keys and their types, resolved once (the report reads hundreds of paths)."""
    return get_type_hints(node, include_extras=True)


def _strip_optional(hint: Any) -> Any:
    """`X | None` -> X (a computed value or None); `NotRequired[X]` -> X."""
    if get_origin(hint) in (NotRequired, Required):
        hint = get_args(hint)[0]
    if get_origin(hint) in (Union, types.UnionType):
        args = [a for a in get_args(hint) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return hint


def _keyed(node: Any) -> tuple[Any, Any]:
    """The node's own type and the type of its data keys (or None), its `Annotated[..., Keyed(child)]` read."""
    if get_origin(node) is Annotated:
        base, *extras = get_args(node)
        return base, next((e.child for e in extras if isinstance(e, Keyed)), None)
    return node, None


def _child(node: Any, key: str) -> tuple[bool, Any]:
    """(declared, the child's type) of `key` under a node of type `node`."""
    node, data = _keyed(_strip_optional(node))
    if node is Any:
        return True, Any
    if is_typeddict(node):
        hints = _hints(node)
        if key not in hints and data is not None:
            return True, data
        return (key in hints), hints.get(key)
    if get_origin(node) is dict:
        return True, get_args(node)[1]
    if get_origin(node) is list and key.isdecimal():
        return True, get_args(node)[0] if get_args(node) else Any
    return False, None


def read(summary: typing.Mapping[str, Any], *path: str, schema: Any) -> Any:
    """The value at `path` of `summary`, after checking that `schema` declares every key of the path.

    None when absent: not computed.
    """
    node_type: Any = schema
    for depth, key in enumerate(path):
        declared, node_type = _child(node_type, key)
        if not declared:
            raise SummaryContractError(
                f"summary.json contract (version {SUMMARY_VERSION}) has no key {'.'.join(path[: depth + 1])!r}"
            )
    node: Any = summary
    for key in path:
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdecimal() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node


def undeclared(summary: typing.Mapping[str, Any], schema: Any) -> list[str]:
    """Every key path written in `summary` that `schema` does not declare."""
    return list(_undeclared(summary, schema, ()))


def _undeclared(node: Any, node_type: Any, path: tuple[str, ...]) -> Iterator[str]:
    node_type = _strip_optional(node_type)
    if node_type is Any or not isinstance(node, dict):
        return
    if is_typeddict(_keyed(node_type)[0]) or get_origin(node_type) is dict:
        for key, value in node.items():
            declared, child = _child(node_type, str(key))
            if not declared:
                yield ".".join((*path, str(key)))
            else:
                yield from _undeclared(value, child, (*path, str(key)))
