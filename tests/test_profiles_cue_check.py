"""The political-word check of implicit and conversational cues cannot be bypassed (issue 44):
a user's file that switches it off or leaves the key out, hyphenated compounds, zero-width and
other format characters, lookalike letters from other scripts, fullwidth letters and a word
assembled from the template and a fragment are each refused in one line naming the file, the
cue and the word; a user file may extend the word list."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from political_sycophancy.core.errors import InputError
from political_sycophancy.shared.persona_design import persona_design
from political_sycophancy.shared.personas import cue_file, load_cue_sets, load_schema
from political_sycophancy.shared.political_words import first_political_word, normalise, political_words

NURSE = "I just got off a twelve-hour shift at the hospital."


@pytest.fixture(scope="module")
def schema():
    return load_schema()


def nurse_row() -> int:
    records = yaml.safe_load(cue_file("implicit").read_text())["fragments"]
    return [r["level"] for r in records].index("nurse") + 1


def implicit_file(
    tmp_path: Path, nurse: str = NURSE, header: str | None = None, name: str = "my_implicit.yaml"
) -> Path:
    """The packaged implicit cue file with the nurse's text replaced and, when given, its
    `political_words` line replaced by `header` (an empty header removes the line)."""
    text = cue_file("implicit").read_text().replace(NURSE, nurse)
    if header is not None:
        text = text.replace("political_words: forbidden\n", header + ("\n" if header else ""))
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def refused(path: Path, schema, mode: str = "implicit") -> str:
    with pytest.raises(InputError) as err:
        load_cue_sets([mode], [path], schema)
    message = str(err.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize("header", ["political_words: allowed", ""], ids=["says-allowed", "key-left-out"])
def test_a_users_implicit_file_cannot_switch_the_check_off(tmp_path, schema, header):
    path = implicit_file(tmp_path, "I'm a Democrat and a nurse.", header)
    message = refused(path, schema)
    assert message.startswith(f"file {path}, row {nurse_row()}, field 'text': 'Democrat' (occupation=nurse)")
    if header:
        assert "political_words: allowed does not switch it off" in message


def test_a_users_conversational_file_that_says_allowed_is_still_checked(tmp_path, schema):
    path = tmp_path / "conv.yaml"
    text = cue_file("conversational").read_text().replace("political_words: forbidden", "political_words: allowed")
    path.write_text(text.replace("What would you like to ask?", "Which party do you vote for?"), encoding="utf-8")
    assert "field 'reply': 'party'" in refused(path, schema, "conversational")


@pytest.mark.parametrize(
    "nurse,word",
    [
        ("I'm an anti-Democrat nurse.", "Democrat"),
        ("I'm an ex-Republican nurse.", "Republican"),
        ("I wear my MAGA-hat to every shift.", "MAGA"),
        ("Our GOP-leaning town needs nurses.", "GOP"),
        ("I'm a Dem\u200bocrat and a nurse.", "Dem\u200bocrat"),  # zero-width space
        ("I'm a Demo\u00adcrat and a nurse.", "Demo\u00adcrat"),  # soft hyphen
        ("I'm a D\u0435mocrat and a nurse.", "D\u0435mocrat"),  # Cyrillic e
        ("I'm a Rep\u03c5blican and a nurse.", "Rep\u03c5blican"),  # Greek upsilon for u
        (
            "I'm a \uff24\uff45\uff4d\uff4f\uff43\uff52\uff41\uff54 and a nurse.",
            "\uff24\uff45\uff4d\uff4f\uff43\uff52\uff41\uff54",
        ),
        ("I'm a Re\u0301publican nurse.", "Re\u0301publican"),  # a combining accent
        ("My G.O.P. friends say hi.", "G.O.P"),
        ("I'm a neoconservative nurse.", "neoconservative"),
        ("I'm a Republ1can nurse.", "Republ1can"),
        ("Vote\u2011early is my motto.", "Vote"),  # a non-breaking hyphen
    ],
)
def test_disguised_political_words_are_refused_naming_file_cue_and_word(tmp_path, schema, nurse, word):
    path = implicit_file(tmp_path, nurse)
    message = refused(path, schema)
    assert message.startswith(f"file {path}, row {nurse_row()}, field 'text': {word!r} (occupation=nurse)"), message


def test_a_word_assembled_from_the_template_and_a_fragment_is_refused(tmp_path, schema):
    path = tmp_path / "implicit.yaml"
    text = cue_file("implicit").read_text().replace("{occupation} {region}", "Repub{occupation} {region}")
    text = text.replace("order: random", "order: fixed")  # a random order would move another text into that place
    path.write_text(text.replace(NURSE, "lican through and through."), encoding="utf-8")
    load_cue_sets(["implicit"], [path], schema)  # neither the template nor the fragment holds a word alone
    with pytest.raises(InputError) as err:
        persona_design("factorial", "occupation", "implicit", cues=str(path), baseline_persona=False)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"file {path}, field 'template': 'Republican' in the implicit cue of persona p")
    assert "(occupation=nurse)" in message and "assembled from the template and the fragments" in message


def test_a_user_file_may_extend_the_word_list(tmp_path, schema):
    path = implicit_file(
        tmp_path,
        "I go deer hunting on my days off.",
        "political_words: forbidden\nextra_political_words: [hunting, flag on my porch]",
    )
    assert "'hunting' (occupation=nurse)" in refused(path, schema)
    clean = implicit_file(tmp_path, NURSE, "extra_political_words: [hunting]", name="clean.yaml")
    assert load_cue_sets(["implicit"], [clean], schema)["implicit"].extra_words == ("hunting",)
    bad = implicit_file(tmp_path, NURSE, "extra_political_words: hunting", name="bad.yaml")
    assert "field 'extra_political_words': a list of words" in refused(bad, schema)


def test_an_explicit_file_may_name_parties_but_a_new_mode_is_checked_unless_it_says_allowed(tmp_path, schema):
    explicit = load_cue_sets(["explicit"], schema=schema)["explicit"]
    assert not explicit.checked
    text = (
        cue_file("explicit")
        .read_text()
        .replace("mode: explicit", "mode: stated")
        .replace("political_words: allowed\n", "")
    )
    path = tmp_path / "stated.yaml"
    path.write_text(text, encoding="utf-8")
    assert "'Democrat' (partisanship=progressive_dem)" in refused(path, schema, "stated")
    path.write_text(
        text.replace("\nplacement: preamble\n", "\nplacement: preamble\npolitical_words: allowed\n"), encoding="utf-8"
    )
    assert not load_cue_sets(["stated"], [path], schema)["stated"].checked


@pytest.mark.parametrize(
    "text,word",
    [
        ("I'm a Democrat.", "Democrat"),
        ("our democratic club", "democratic"),
        ("I watch Fox  News", "Fox  News"),
        ("I bought a sofa and a party hat", "party"),
        ("Sunday mornings are for sleeping in.", None),
        ("partying", None),
        ("I'm 30 and on my 2nd job.", None),
        ("The deli sells pastrami.", None),
        ("I like left-handed scissors.", None),
        ("I'm pro-life.", "pro-life"),
        ("a left\u2013wing band", "left\u2013wing"),
    ],
)
def test_political_words_match_whole_words_after_normalising(text, word):
    assert first_political_word(text, political_words()) == word


def test_normalise_folds_format_characters_lookalikes_and_hyphens():
    assert normalise("D\u0435m\u200bo\uff43rat-le\u0430ning G.O.P.") == "democrat leaning gop."
    assert normalise("caf\u00e9") == "cafe"


def test_every_text_of_a_checked_mode_names_its_source_or_says_it_is_unvalidated(tmp_path, schema):
    cues = load_cue_sets(["implicit", "conversational"], schema=schema)
    for c in cues.values():
        assert all(c.sources.get(k) for k, text in c.fragments.items() if text)
    assert cues["conversational"].sources == cues["implicit"].sources
    text = cue_file("implicit").read_text()
    start = text.index('    text: "I just got off')
    end = text.index("\n", text.index("    source:", start))
    path = tmp_path / "implicit.yaml"
    path.write_text(text[:start] + text[start:end].split("\n")[0] + text[end:], encoding="utf-8")
    message = refused(path, schema)
    assert message.startswith(f"file {path}, row {nurse_row()}, field 'source': occupation=nurse: missing source")
    assert 'write source: "unvalidated: <why>"' in message
