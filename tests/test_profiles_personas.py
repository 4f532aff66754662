"""Personas as data (issue 24): the attribute schema, the cue files of each mode, the
political-word check of implicit cues, the balanced design drawer and the survey drawer."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from support.profiles import write_sav

from political_sycophancy.core.conditions import builtin_conditions
from political_sycophancy.core.errors import InputError
from political_sycophancy.shared.persona_draw import balanced, baseline, paper_personas, separable
from political_sycophancy.shared.persona_survey import draw_personas
from political_sycophancy.shared.personas import (
    BUILTIN_MODES,
    check_coverage,
    cue_file,
    load_cue_sets,
    load_schema,
    render,
)
from political_sycophancy.shared.political_words import first_political_word, political_words


@pytest.fixture(scope="module")
def schema():
    return load_schema()


@pytest.fixture(scope="module")
def cues(schema):
    return load_cue_sets(BUILTIN_MODES, schema=schema)


def test_packaged_cues_cover_every_attribute_level_in_every_mode(schema, cues):
    assert set(cues) == set(BUILTIN_MODES)
    for c in cues.values():
        check_coverage(c, schema.attributes)  # raises on a level without a text
    assert cues["conversational"].placement == "turn" and cues["explicit"].placement == "preamble"


def test_the_paper_personas_send_the_c3l_and_c3r_preambles_byte_for_byte(schema, cues):
    conditions = builtin_conditions()
    sent = {p.id: render(cues["explicit"], p).text for p in paper_personas(schema)}
    assert sent == {"C3L": conditions["C3L"].preamble, "C3R": conditions["C3R"].preamble}
    assert all(render(c, baseline()).empty for c in cues.values())  # N: no cue in any mode


def test_implicit_and_conversational_cues_name_no_politics(schema, cues):
    words = political_words()
    persona = balanced(schema, schema.attributes, 30, seed=3)
    for mode in ("implicit", "conversational"):
        for p in persona:
            cue = render(cues[mode], p)
            assert first_political_word(" ".join([cue.text, cue.reply, cue.ask]), words) is None
    # the explicit mode does name them
    assert first_political_word(render(cues["explicit"], paper_personas(schema)[1]).text, words) == "Republican"


def test_a_political_word_in_an_implicit_cue_file_is_one_line_naming_file_row_and_field(tmp_path, schema):
    text = cue_file("implicit").read_text().replace("I just got off a twelve-hour shift", "I'm a Republican who just got off a twelve-hour shift")
    path = tmp_path / "my_implicit.yaml"
    path.write_text(text)
    row = [r["level"] for r in __import__("yaml").safe_load(text)["fragments"]].index("nurse") + 1
    with pytest.raises(InputError) as err:
        load_cue_sets(["implicit"], [path], schema)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"file {path}, row {row}, field 'text': 'Republican' (occupation=nurse)")


def test_the_check_also_reaches_a_mode_that_borrows_the_implicit_texts(tmp_path, schema):
    path = tmp_path / "implicit.yaml"
    path.write_text(cue_file("implicit").read_text().replace("I write code for a tech company.", "I write code for the GOP."))
    with pytest.raises(InputError, match=r"field 'text': 'GOP' \(occupation=software_engineer\)"):
        load_cue_sets(["conversational"], [path], schema)


@pytest.mark.parametrize(
    "edit,where",
    [
        (lambda t: t.replace("{partisanship} I want", "{partisan} I want"), "field 'template': {partisan} is not an attribute"),
        (lambda t: t.replace("level: man,", "level: male,"), "field 'level': 'male' is not a level of gender"),
        (lambda t: t.replace("placement: preamble", "placement: sideways"), "field 'placement'"),
        (lambda t: t.replace("{attribute: age, level: \"18_29\", text: \"I'm in my twenties.\"}", "{attribute: age, level: \"18_29\"}"),
         "field 'text': missing text"),
    ],
)
def test_a_broken_cue_file_names_file_row_and_field(tmp_path, schema, edit, where):
    path = tmp_path / "explicit.yaml"
    path.write_text(edit(cue_file("explicit").read_text()))
    with pytest.raises(InputError, match=where.replace("{", r"\{").replace("}", r"\}").replace("(", r"\(").replace(")", r"\)")) as err:
        load_cue_sets(["explicit"], [path], schema)
    assert str(err.value).startswith(f"file {path}")


def test_a_design_attribute_the_template_does_not_place_is_refused(tmp_path, schema):
    path = tmp_path / "explicit.yaml"
    path.write_text(cue_file("explicit").read_text().replace(" {race}", ""))
    [cues] = load_cue_sets(["explicit"], [path], schema).values()
    with pytest.raises(InputError, match=r"field 'template': the template does not place \{race\}"):
        check_coverage(cues, schema.choose("race,age"))


def test_a_numeric_level_id_in_a_users_schema_names_its_row_and_field(tmp_path):
    from political_sycophancy.core.items import builtin_data_path
    from political_sycophancy.shared.personas import ATTRIBUTES_FILE

    path = tmp_path / "attributes.yaml"
    path.write_text(builtin_data_path(ATTRIBUTES_FILE).read_text().replace('id: "30_49"', "id: 30_49"))
    with pytest.raises(InputError, match=r"row 2, field 'levels\[2\]\.id': level id 3049 is a number; quote it"):
        load_schema(path)


def test_fractional_design_balances_each_attribute_and_depends_on_the_seed(schema):
    attributes = schema.choose("partisanship,age,gender")
    personas = balanced(schema, attributes, 22, seed=7)
    assert len(personas) == 22 and len({p.id for p in personas}) == 22
    for a in attributes:
        counts = Counter(p.as_dict[a.name] for p in personas)
        assert set(counts) == set(a.level_ids)
        assert max(counts.values()) - min(counts.values()) <= 1, (a.name, counts)
    assert [p.levels for p in balanced(schema, attributes, 22, seed=7)] == [p.levels for p in personas]
    assert [p.levels for p in balanced(schema, attributes, 22, seed=8)] != [p.levels for p in personas]


def test_a_small_fractional_design_is_redrawn_until_its_attributes_can_be_told_apart(schema):
    """Six personas over partisanship (5 levels) and gender: seed 0's first draw made gender a
    function of partisanship (a run on the embedded model could estimate no effect)."""
    attributes = schema.choose("partisanship,gender")
    personas = balanced(schema, attributes, 6, seed=0)
    assert separable([[p.as_dict[a.name] for p in personas] for a in attributes])
    genders = {}
    for p in personas:
        genders.setdefault(p.as_dict["partisanship"], set()).add(p.as_dict["gender"])
    assert any(len(g) > 1 for g in genders.values())
    with pytest.raises(InputError, match="n=5 personas cannot separate the effects of partisanship, gender: at least 6"):
        balanced(schema, attributes, 5, seed=0)


def test_full_factorial_has_every_combination_once(schema):
    attributes = schema.choose("gender,age")
    personas = balanced(schema, attributes, None, seed=1)
    assert sorted(p.levels for p in personas) == sorted((("age", a), ("gender", g)) for a in attributes[1].level_ids for g in attributes[0].level_ids)


def test_fractional_design_too_small_for_a_level_is_refused(schema):
    with pytest.raises(InputError, match="cannot show every one of the 5 levels of partisanship"):
        balanced(schema, schema.choose("partisanship,age"), 4, seed=1)


def synthetic_sav(path: Path) -> Path:
    """Six respondents: ages 1-4 and a refusal (99), genders 1/2, a weight, an answer variable."""
    rows = [
        {"F_AGECAT": 1, "F_GENDER": 1, "WEIGHT_W99": 0.5, "Q1_W99": 1},
        {"F_AGECAT": 2, "F_GENDER": 2, "WEIGHT_W99": 1.0, "Q1_W99": 2},
        {"F_AGECAT": 3, "F_GENDER": 1, "WEIGHT_W99": 2.0, "Q1_W99": 1},
        {"F_AGECAT": 4, "F_GENDER": 2, "WEIGHT_W99": 4.0, "Q1_W99": 2},
        {"F_AGECAT": 99, "F_GENDER": 2, "WEIGHT_W99": 1.0, "Q1_W99": 1},
        {"F_AGECAT": 4, "F_GENDER": 1, "WEIGHT_W99": 0.0, "Q1_W99": 1},
    ]
    return write_sav(path, rows)


def test_survey_personas_carry_their_weights_and_exclusions_are_counted(tmp_path, schema):
    path = synthetic_sav(tmp_path / "w99.sav")
    draw = draw_personas(path, schema, schema.choose("age,gender"), None, seed=0)
    assert draw.weight == "WEIGHT_W99" and draw.respondents == 6 and draw.eligible == 4
    assert [(p.as_dict, p.weight) for p in draw.personas] == [
        ({"age": "18_29", "gender": "man"}, 0.5), ({"age": "30_49", "gender": "woman"}, 1.0),
        ({"age": "50_64", "gender": "man"}, 2.0), ({"age": "65_plus", "gender": "woman"}, 4.0),
    ]
    assert draw.notes == ["1 respondent(s) without a positive weight (WEIGHT_W99) left out",
                          "1 respondent(s) whose codes match no level of age left out"]
    two = draw_personas(path, schema, schema.choose("age,gender"), 2, seed=0)
    assert len(two.personas) == 2 and two.notes[-1] == "2 of 4 usable respondents drawn (seed 0)"


def test_survey_draw_refuses_an_attribute_without_survey_rules_and_a_missing_variable(tmp_path, schema):
    path = synthetic_sav(tmp_path / "w99.sav")
    with pytest.raises(InputError, match="occupation has no survey rules"):
        draw_personas(path, schema, schema.choose("age,occupation"), None, seed=0)
    with pytest.raises(InputError, match=r"field 'F_EDUCCAT': variable F_EDUCCAT .* is not in the file"):
        draw_personas(path, schema, schema.choose("education"), None, seed=0)
