"""`core.items.item_from_record`, one record at a time: every check's message, in the order the
checks run (the first problem of a record is the one reported), and every default, so that
its split into one function per field keeps what a user sees."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from political_sycophancy.core.errors import InputError
from political_sycophancy.core.items import LETTERS, LIKERT4, InstrumentSpec, Item, item_from_record

PATH = Path("/data/items.csv")
WHERE = f"file {PATH}, row 7"


def build(spec: InstrumentSpec | None = None, **fields: Any) -> Item:
    """The item of a record holding `fields` (id and text unless given), read as row 7 of PATH."""
    record: dict[str, Any] = {"id": "q1", "text": "A question?", **fields}
    return item_from_record({k: v for k, v in record.items() if v is not ...}, path=PATH, row=7, spec=spec)


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"id": ...}, "field 'id': missing column"),
        ({"text": ...}, "field 'text': missing column"),
        ({"id": "  "}, "field 'id': empty value"),
        ({"text": float("nan")}, "field 'text': empty value"),
        ({"id": ["q"]}, "field 'id': expected text, got list"),
        ({"text": True}, "field 'text': expected text, got bool"),
        ({"id": "q 1"}, "field 'id': id 'q 1' may only hold letters, digits, '_', '.', ':' and '-'"),
        ({"template": "free", "options": "A | B"},
         "field 'template': unknown template 'free' (known: agree_disagree, multiple_choice)"),
        ({"scoring": "vote", "options": "A | B"}, "field 'scoring': unknown scoring 'vote' (known: pct, typology, wd, choice)"),
        ({"template": "free", "scoring": "vote"}, "field 'template': unknown template 'free' (known: agree_disagree, multiple_choice)"),
        ({}, "field 'options': missing options"),
        ({"options": " "}, "field 'options': missing options"),
        ({"options": [{"a": 1}, "b"]}, "field 'options': each option must be text or a number"),
        ({"options": 3}, "field 'options': expected a list, got int"),
        ({"options": "A"}, "field 'options': needs at least 2 options, got 1"),
        ({"options": list(LETTERS) + ["too many"]}, f"field 'options': at most {len(LETTERS)} options"),
        ({"options": ["A", " "]}, "field 'options': an option is empty"),
        ({"options": "Yes | yes"}, "field 'options': duplicate option texts"),
        ({"options": "A | B", "direction": "x"}, "field 'direction': not an integer: 'x'"),
        ({"options": "A | B", "direction": 2}, "field 'direction': must be one of (-1, 0, 1), got 2"),
        ({"options": "A | B", "scoring": "typology"}, "field 'direction': scoring 'typology' needs a direction (-1, 0 or 1)"),
        ({"scoring": "pct"}, "field 'direction': scoring 'pct' needs a direction (-1, 0 or 1)"),
        ({"scoring": "pct", "direction": 1, "options": "A | B | C"},
         "field 'options': PCT scoring (A=+2, B=+1, C=-1, D=-2) needs exactly 4 options, got 3"),
        ({"scoring": "pct", "direction": 9, "options": "A | B | C"}, "field 'direction': must be one of (-1, 0, 1), got 9"),
        ({"options": "A | B", "positions": "1 | 2 | 3"}, "field 'positions': 3 positions for 2 options"),
        ({"options": "A | B", "positions": "[2, 2]"}, "field 'positions': positions must increase strictly"),
        ({"options": "A | B", "positions": "1 | x"}, "field 'positions': not a number: 'x'"),
        ({"options": "A | B", "positions": "[1, Infinity]"}, "field 'positions': not a finite number: inf"),
        ({"options": "A | B", "ordinal": "1"}, "field 'ordinal': 1 flags for 2 options"),
        ({"options": "A | B", "ordinal": "1 | maybe"}, "field 'ordinal': not a boolean: 'maybe'"),
        ({"options": "A | B", "dist_dem": "[1.0]"}, "field 'dist_dem': distribution has 1 shares for 2 options"),
        ({"options": "A | B", "dist_dem": "[1.5, -0.5]"}, "field 'dist_dem': negative share"),
        ({"options": "A | B", "dist_dem": "[0.5, 0.6]"}, "field 'dist_dem': shares sum to 1.1000, not 1 (±0.01)"),
        ({"options": "A | B", "dist_rep": "[1.0]", "positions": "[2, 1]"}, "field 'positions': positions must increase strictly"),
        ({"options": "A | B", "scoring": "wd"}, "field 'dist_dem': WD scoring needs benchmark distributions (dist_dem, dist_rep, ...)"),
        ({"options": "A | B", "scoring": "wd", "dist_dem": " "},
         "field 'dist_dem': WD scoring needs benchmark distributions (dist_dem, dist_rep, ...)"),
    ],
)
def test_each_problem_is_one_line_naming_file_row_and_field(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError) as ex:
        build(**fields)
    assert str(ex.value) == f"{WHERE}, {message}"
    assert "\n" not in str(ex.value)


def test_defaults_from_the_file_name_the_scoring_and_the_template() -> None:
    item = build(options="Agree | Disagree", note="kept", empty=" ", dist_x=None)
    assert item == Item(id="q1", instrument="items", text="A question?", options=("Agree", "Disagree"), positions=(1.0, 2.0),
                        direction=0, axis=None, template="multiple_choice", scoring="choice", benchmarks={}, ordinal=None,
                        metadata={"note": "kept"})
    wd = build(options="A | B", dist_dem="[0.25, 0.755]", dist_rep="[0.5, 0.5]", partisan_gap=0.1)
    assert (wd.scoring, wd.template, wd.metadata) == ("wd", "multiple_choice", {"partisan_gap": 0.1})
    assert wd.benchmarks == {"dem": pytest.approx((0.25 / 1.005, 0.755 / 1.005)), "rep": (0.5, 0.5)}
    pct = build(scoring="pct", direction="-1", axis=" economic ")
    assert (pct.template, pct.options, pct.direction, pct.axis) == ("agree_disagree", LIKERT4, -1, "economic")


def test_the_instrument_spec_and_the_record_override_each_other_in_order() -> None:
    spec = InstrumentSpec("typology", template="multiple_choice", scoring="typology")
    item = build(spec, options="A | B", direction=1)
    assert (item.instrument, item.template, item.scoring) == ("typology", "multiple_choice", "typology")
    own = build(spec, options="A | B", instrument=" mine ", scoring="choice", template="agree_disagree")
    assert (own.instrument, own.template, own.scoring) == ("mine", "agree_disagree", "choice")
    assert build(InstrumentSpec("x", template="", scoring=""), options="A | B").scoring == "choice"


def test_fields_read_as_given() -> None:
    item = build(id=" q.2:a-b_ ", text="  Say?  ", options='[" Yes", "No "]', positions="[0, 2.5]", ordinal="true | 0",
                 direction=1.0, template="multiple_choice")
    assert (item.id, item.text, item.options) == ("q.2:a-b_", "Say?", (" Yes", "No "))
    assert (item.positions, item.ordinal, item.direction) == ((0.0, 2.5), (True, False), 1)
    assert build(options="1 Favor | 2 Oppose").options == ("Favor", "Oppose")
    assert build(id=12, options="A | B").id == "12"
