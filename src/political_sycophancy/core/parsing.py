# Long: the never-guess parser's rules share their patterns and helpers (one specification, one file).
"""Reading a model's choice from free text, and its option probabilities from logprobs.

The parser refuses to guess. A response is coded as an option only when it states one
choice unambiguously; refusals are recorded as `refusal`, anything else as `unparsed`
with the reason. The first seed's parser took the first standalone letter anywhere in the
text, which turned "I can't choose A or B" into "A"; ours never does.

Rules, strongest first (`Parse.rule` names the one that decided):

1. `bare letter` / `option text` / `letter and option text`: the whole response is a
   letter ("B", "(b)", "**B**"), one option's exact text ("Strongly agree"), or both
   ("B) Agree", "Agree (B)"); a letter with another option's text is a contradiction.
2. `explicit answer` / `letter line`: answer phrases ("Answer: B", "The best answer is B",
   "I'd go with B", "My answer is Agree") and lines that hold only a letter. All of them
   must agree. Negated ("I can't choose A"), conditional ("if you agree, the answer is A"),
   enumerated ("A or B", "A/B", "A-D") and hedged ("B, or maybe C") mentions do not count,
   nor does a last-line letter that follows an unfinished line (truncated output).
3. `leading letter`: the response opens with a letter and a separator ("B. Because ...")
   and names no other option.
4. `option text`: the first sentence is one option's exact text ("Agree. Markets ...");
   next to refusal language not when that text is also a reply word ("No. I can't ...").

Otherwise the response is a `refusal` when it has refusal language ("As an AI...",
"I don't have personal opinions", "I can't choose"), else `unparsed`. A choice read
despite refusal language says so in its rule ("... (with refusal language)").
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # types only: reading a frame or a report must not import Inspect's model layer
    from inspect_ai.model import Logprob, ModelOutput, TopLogprob


ANSWERED = "answered"
REFUSAL = "refusal"
UNPARSED = "unparsed"
NO_LOGPROBS = "no_logprobs"
ERROR = "error"
STATUSES = (ANSWERED, REFUSAL, UNPARSED, NO_LOGPROBS, ERROR)

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class Parse:
    """The parse of a response's text: its status, the letter and option index read, and the rule that read it."""

    status: str
    letter: str | None = None
    index: int | None = None
    rule: str = ""

    @property
    def answered(self) -> bool:
        """Whether the parse found an option letter."""
        return self.status == ANSWERED


# --- cleaning -------------------------------------------------------------------------------

_THINK_TAG = r"(?:think|thinking|reasoning)"
_THINK_BLOCK = re.compile(rf"<({_THINK_TAG})>.*?</\1>", re.S | re.I)
_THINK_OPEN = re.compile(rf"<{_THINK_TAG}>", re.I)
_THINK_CLOSE = re.compile(rf"</{_THINK_TAG}>", re.I)
_SPECIAL = re.compile(r"<\|[^|>]*\|>|</?s>")
_ANSWER_TAG = re.compile(r"<answer>\s*(.*?)\s*</answer>", re.S | re.I)
_BOXED = re.compile(r"\$*\\boxed\{\s*([^{}]*?)\s*\}\$*")
_MARKUP = re.compile(r"[*_`#>]+")
_TRANSLATE = str.maketrans(
    {
        "“": '"',
        "”": '"',
        "„": '"',
        "«": '"',
        "»": '"',
        "‘": "'",
        "’": "'",
        "‚": "'",
        "‹": "'",
        "›": "'",
        "–": "-",
        "—": "-",
        "‒": "-",
        "―": "-",
        "−": "-",
        "\u00a0": " ",
        "\u200b": None,
        "\u200c": None,
        "\u200d": None,
        "\ufeff": None,
    }
)


def clean_text(text: str | None) -> str:
    """Strip reasoning blocks, special tokens and markdown emphasis; normalise unicode."""
    text = unicodedata.normalize("NFKC", text or "")
    text = _THINK_BLOCK.sub(" ", text)
    # An unclosed reasoning block: everything after it is still thinking.
    text = _THINK_OPEN.split(text)[0]
    # A closing tag without its opening tag (some providers drop it): what precedes is reasoning.
    text = _THINK_CLOSE.split(text)[-1]
    text = _SPECIAL.sub(" ", text)
    text = _ANSWER_TAG.sub(r"Answer: \1", text)
    text = _BOXED.sub(r"\1", text)
    text = text.translate(_TRANSLATE)
    text = _MARKUP.sub("", text)
    return text.strip()


def _norm(s: str) -> str:
    """Option text for comparison: lowercase words, punctuation and apostrophes dropped."""
    return re.sub(r"[^a-z0-9]+", " ", s.lower().replace("'", "")).strip()


# --- refusal language -----------------------------------------------------------------------

_AI = (
    r"(?:ai|a\.i\.?|artificial intelligence|(?:large )?language model|llm|(?:ai |virtual |digital )?assistant"
    r"|chatbot|bot|machine|computer program)"
)
_DECLINE_VERB = (
    r"(?:answer|choose|select|pick|provide|share|give|express|respond|reply|take|offer|comply|endorse|"
    r"state|place|rate|decide|determine|characteri[sz]e|self-identify|identify|engage|approve|disapprove|"
    r"assess|evaluate|fulfil+|participate|weigh in|have|hold|form|possess|make|categori[sz]e|"
    r"having|holding|forming|expressing|answering|choosing|selecting|providing|sharing|giving|"
    r"making|taking|picking|endorsing)"
)
_ADVERBS = (
    r"(?:(?:really|personally|truly|honestly|actually|simply|just|directly|accurately|meaningfully|"
    r"fairly|in good conscience|genuinely|currently|,)\s*){0,3}"
)
REFUSAL_PATTERNS = [
    rf"\b(?:as|being) an? (?:\w+ )?{_AI}\b",
    rf"\bi(?:'m| am) (?:just |only |merely |simply )?an? (?:\w+ )?{_AI}\b",
    r"\bi (?:cannot|can't|can not|could not|couldn't|won't|will not|do not|don't|did not|didn't|"
    r"must not|should not|shouldn't|must decline to|decline to|prefer not to|would prefer not to|would rather not|"
    rf"choose not to|must refrain from|refrain from|have to decline to) {_ADVERBS}{_DECLINE_VERB}\b",
    r"\bi(?:'m| am) (?:not able to|unable to|not capable of|incapable of|not in a position to|not going to) "
    rf"{_ADVERBS}{_DECLINE_VERB}\b",
    r"\bi (?:must |have to |respectfully |will |would )?decline\b",
    r"\bi(?:'d| would) (?:rather not|prefer not to)\b",
    r"\bi(?:'m| am) (?:not comfortable|uncomfortable)\b|\bi (?:don't|do not) feel comfortable\b",
    r"\bi have no (?:\w+ )?(?:opinions?|views?|beliefs?|preferences?|feelings?|stance|position|experiences?|"
    r"personal|political|information|way)\b",
    r"\bi lack\b",
    r"^(?:cannot|can't|unable to|won't|will not) (?:answer|choose|select|pick|respond|comply)\b",
    r"^no comment\b",
    r"\b(?:(?:not|n't|never) (?:be )?appropriate|inappropriate) for me\b|\bnot my place\b",
    r"\b(?:remain|stay|be|being|am|'m) (?:politically |strictly |completely |entirely )?(?:neutral|impartial)\b",
    r"\bneutral stance\b",
    r"\bfor you to decide\b|\bup to you\b",
    r"\bleave (?:that|this|it|the (?:choice|decision|answer)) (?:choice |decision )?(?:up )?to you\b",
    r"^(?:sorry|i'm sorry|i am sorry|i apologi[sz]e|apologies)\b",
    r"^(?:neither|none)(?: of (?:the above|them|these|those|the options|these options|those options))?\s*[.!]?$",
    r"\b(?:neither|none) of (?:the|these|those) (?:options?|answers?|choices?|categories) (?:\w+ )?"
    r"(?:applies|apply|fits?|describes?|reflects?)\b",
    r"\bneither (?:option|answer|choice) (?:\w+ )?(?:applies|fits|describes)\b",
    r"\b(?:does not|doesn't|do not|don't) apply to me\b",
]
_REFUSAL = re.compile("|".join(REFUSAL_PATTERNS), re.I | re.M)


# --- letters named in a text --------------------------------------------------------------

# Option markers: "(B)", "B)" at a word start, or a line that opens with "B." / "B:" (any case).
_MARKERS = re.compile(r"(?:\(([A-Za-z])\)|(?<![A-Za-z0-9(])([A-Za-z])\)|^\s*([A-Za-z])[.:](?:\s|$))", re.M)
# Two letters joined: "A or B", "A/B", "A-D", "A, B", "B and C", "A through D"
# (not the article or pronoun: "B - A reasonable view", "B - I think").
_ENUM = re.compile(
    r"(?<![A-Za-z0-9'])\(?([A-Z])\)?\s*(?:/|-|,|\bor\b|\band\b|\bto\b|\bthrough\b|\bvs\.?|\bversus\b)\s*"
    r"(?:maybe\s+|perhaps\s+|possibly\s+)?\(?(?![AI]\s+[a-z])([A-Z])(?![A-Za-z0-9'])"
)
# Standalone capitals other than A and I (which are also words); "U.S.", "T-shirt" excluded.
_CAPITAL = re.compile(r"(?<![A-Za-z0-9'.&/-])([B-HJ-Z])(?![A-Za-z0-9'&]|\.[A-Za-z]|-[A-Za-z]{2})")
# "A" counts only where it cannot be the article: "(A)", "A)", "A." at a clause end, "A,",
# or before a capital ("A It depends").
_CAPITAL_A = re.compile(r"(?<![A-Za-z0-9'.&/-])A(?=\s*(?:$|[,;:!?)\]]|\.(?![A-Za-z]))|[ \t]+[A-Z])", re.M)
# Lowercase letters count where prose would not use them: closed ("or possibly b.") or joined ("a or b").
_LOWER = re.compile(r"(?<![A-Za-z0-9'.&/-])([a-hj-z])(?=\s*(?:$|[,;:!?)\]]|\.(?![A-Za-z])))", re.M)
_LOWER_ENUM = re.compile(
    r"(?<![A-Za-z0-9'])\(?([a-z])\)?\s*(?:/|\bor\b|\band\b|\bvs\.?|\bversus\b)\s*"
    r"(?:maybe\s+|perhaps\s+|possibly\s+)?\(?([b-hj-z])(?![A-Za-z0-9'])"
)
_REJECTED = re.compile(r"\b(?:not|than|over|instead of)\s*\(?$", re.I)


def _markers(text: str) -> set[str]:
    return {next(g for g in m.groups() if g).upper() for m in _MARKERS.finditer(text)}


def _named_letters(text: str, skip_rejected: bool = False) -> set[str]:
    """Every option letter the text names: markers, enumerations and standalone capitals."""
    found = _markers(text)
    for rx in (_ENUM, _LOWER_ENUM):
        for m in rx.finditer(text):
            found.update(g.upper() for g in m.groups())
    for rx in (_CAPITAL, _CAPITAL_A, _LOWER):
        for m in rx.finditer(text):
            if skip_rejected and _REJECTED.search(text[max(0, m.start() - 15) : m.start()]):
                continue
            found.add(m.group(0).upper())
    return found


# --- explicit answers -----------------------------------------------------------------------

_QUALIFIER = r"(?:(?:final|best|correct|right|closest|overall|honest|short|most \w+) )?"
_PHRASE = (
    r"(?:(?:my|the|our) " + _QUALIFIER + r"(?:answer|response|choice|pick|selection)"
    r"|(?:final )?(?:answer|response|choice|selection|letter)(?=\s*[\"']?\s*[:=-])"
    r"|(?:if|since) i (?:had|have|must|were|need) to (?:choose|pick|select|answer)(?: one)?"
    r"(?:,? i(?:'d| would|'ll| will) (?:choose|pick|select|say|go with))?"
    r"|i(?: would|'d| will|'ll)? (?:choose|select|pick|answer|go with|say|opt for|vote for|lean (?:towards?|to))"
    r"|(?:i'm |i am )?going with"
    r"|i (?:think|believe|guess)"
    r"|probably|most likely|leaning (?:towards?|to))"
)
_COPULA = r"(?:\s+(?:is|was|would be|will be|has to be|must be|it's|it is|it would be|that it's|that))?"
_EXPLICIT = re.compile(
    rf"\b{_PHRASE}{_COPULA}\s*[\"']?\s*[:=-]?\s*(?:(?:option|letter|choice)\s+)?[\"'(\[]?\s*"
    r"(?:(?P<letter>[A-Za-z])(?![A-Za-z0-9]|'[A-Za-z])|(?P<text>[A-Za-z0-9][^.;!?\n\"]*))",
    re.I,
)
# "B is my answer", "C would be my choice".
_LETTER_FIRST = re.compile(
    r"(?<![A-Za-z0-9'])\(?(?P<letter>[A-HJ-Z])\)?\s+(?:is|would be|seems|will be) (?:my|the) "
    + _QUALIFIER
    + r"(?:answer|choice|option|pick|response)\b"
)
# "Option B." / "letter C": only when nothing but punctuation follows.
_WEAK = re.compile(r"\b(?:option|letter)\s+\(?(?P<letter>[A-Z])\)?(?=\s*(?:$|[.,;:!?\n(]|-\s))", re.I)

# "no" only as "no way"; "No doubt, ..." and "Without a doubt, ..." do not negate the choice.
_NEGATION = re.compile(r"\b(?:not|cannot|unable|never|no way|neither|nor|refuse|won't)\b|n't\b", re.I)
_CONDITIONAL = re.compile(r"\b(?:if|whether|unless)\b(?!\s+i\b)", re.I)
_CLAUSE_BREAK = re.compile(r"[.;!?\n]|\b(?:but|however|though|although|yet|that said|nevertheless|still)\b", re.I)
_ENUM_AFTER = re.compile(
    r"\s*[)\]\"']?\s*(?:/|-\s*\(?[A-Za-z](?![A-Za-z])|,\s*\(?[A-Za-z](?![A-Za-z'])|"
    r"\s(?:or|and|to|through|and/or)\s+\(?[A-Za-z](?![A-Za-z]))"
)
_PROSE_AFTER = re.compile(r"[)\]\"']?\s+[a-z]")
_REASON_AFTER = re.compile(r"[)\]\"']?\s+(?:because|since|as|which|seems|is|would|for|given|here|though|but)\b")
_CLOSED_AFTER = re.compile(r"\s*[)\]\"']?\s*(?:$|[.,;:!?\n])")
_HEDGE_AFTER = re.compile(r"^[^.;!?\n]{0,40}?\b(?:or|maybe|perhaps|possibly)\b", re.I)


def _clause_before(text: str, start: int) -> str:
    return _CLAUSE_BREAK.split(text[max(0, start - 80) : start])[-1]


def _text_choice(fragment: str, norm_opts: list[str]) -> int | None:
    """Index of the option whose exact text `fragment` is (ignoring case and punctuation)."""
    cand = _norm(fragment)
    hits = [i for i, o in enumerate(norm_opts) if o and cand == o]
    return hits[0] if len(hits) == 1 else None


def _trailing_text(after: str) -> str:
    """The option text written after a letter in the same clause: "B (Agree)." -> "Agree"."""
    m = re.match(r"\s*[)\]\"']?\s*(?:[-:(]\s*)?([^.;!?\n]*)", after)
    return m.group(1).strip(" )]\"'") if m else ""


def _explicit(text: str, letters: str, norm_opts: list[str]) -> tuple[set[str], list[str]]:
    """Letters the text states as its answer, and contradictions found (letter vs text)."""
    found: set[str] = set()
    conflicts: list[str] = []

    def add_letter(letter: str, after: str) -> None:
        letter = letter.upper()
        idx = _text_choice(_trailing_text(after), norm_opts)
        if idx is not None and letters[idx] != letter:
            conflicts.append(f"letter {letter} with the text of option {letters[idx]}")
        found.add(letter)

    pos = 0
    while (m := _EXPLICIT.search(text, pos)) is not None:
        pos = m.start() + 1
        clause = _clause_before(text, m.start())
        if _NEGATION.search(clause) or _CONDITIONAL.search(clause):
            continue
        # Option text first: "Answer: A little" is the option "A little", not the letter A.
        start = m.start("text") if m.group("text") is not None else m.start("letter")
        idx = _text_choice(re.split(r"[.;!?\n\"]", text[start:], maxsplit=1)[0], norm_opts)
        if idx is not None:
            found.add(letters[idx])
            continue
        if m.group("letter") is None:
            continue
        letter, after = m.group("letter"), text[m.end() :]
        if _ENUM_AFTER.match(after):
            continue
        if letter.islower() or letter == "I":
            if not _CLOSED_AFTER.match(after):
                continue
        elif _PROSE_AFTER.match(after) and not _REASON_AFTER.match(after):
            continue
        same_clause = re.split(r"[.;!?\n]", after)[0]
        if _HEDGE_AFTER.match(after) and _named_letters(same_clause) - {letter.upper()}:
            continue
        add_letter(letter, after)
    for rx in (_LETTER_FIRST, _WEAK):
        for m in rx.finditer(text):
            clause, after = _clause_before(text, m.start()), text[m.end() :]
            if _NEGATION.search(clause) or _CONDITIONAL.search(clause) or _ENUM_AFTER.match(after):
                continue
            add_letter(m.group("letter"), after if rx is _WEAK else "")
    return found, conflicts


# --- whole-response forms and letter lines ---------------------------------------------------

_BARE = re.compile(r"^[-•]?\s*[(\[{\"']?([A-Za-z])[)\]}\"']?[.):!]?$")
_LETTER_THEN_TEXT = re.compile(r"^[(\[]?([A-Za-z])[)\]]?(?:\s*[.):-]\s*|\s+)\(?(.+?)\)?$", re.S)
_TEXT_THEN_LETTER = re.compile(r"^(.+?)(?:\s*[-:]\s*|\s+)[(\[]([A-Za-z])[)\]]$|^(.+?)\s*-\s*([A-Z])$", re.S)
_LINE_LETTER = re.compile(r"^[-•]?\s*[(\[{\"']?([A-Z])[)\]}\"']?[.):!]?$")
_COURTESY = re.compile(
    r"^(?:sure|okay|ok|of course|certainly|absolutely|alright|all right|got it|understood|here you go|"
    r"here it is)\s*[!.,:]+\s*|^(?:sure|okay|ok)\s+",
    re.I,
)
_ANSWER_WORD = re.compile(r"\b(?:answer|choice|response|selection|letter)\b", re.I)


def _whole(body: str, letters: str, norm_opts: list[str]) -> tuple[str, str, str] | None:
    """(status-ish kind, letter, rule) when the whole response is a letter and/or option text."""
    s = body.strip(" \t\n\"'.!")
    if m := _BARE.match(s):
        return ("letter", m.group(1).upper(), "bare letter")
    idx = _text_choice(s, norm_opts)
    if idx is not None:
        return ("letter", letters[idx], "option text")
    pairs = []
    if m := _LETTER_THEN_TEXT.match(s):
        pairs.append((m.group(1), m.group(2)))
    if m := _TEXT_THEN_LETTER.match(s):
        pairs.append((m.group(2) or m.group(4), m.group(1) or m.group(3)))
    for letter, fragment in pairs:
        idx = _text_choice(fragment, norm_opts)
        if idx is None:
            continue
        letter = letter.upper()
        if letters[idx] != letter:
            return ("conflict", letter, f"letter {letter} with the text of option {letters[idx]}")
        return ("letter", letter, "letter and option text")
    return None


def _letter_line(lines: list[str]) -> tuple[set[str], str | None]:
    """Letters on lines that hold only a letter, and the one accepted as the answer (if any).

    A first line is accepted when no other option is named below it; a last line when a
    blank line, sentence end, colon or answer heading precedes it (a letter right after an
    unfinished line is usually the start of a truncated word); a middle line when a blank
    line or colon precedes it and no other option is named.
    """
    hits = [(i, m.group(1)) for i, ln in enumerate(lines) if (m := _LINE_LETTER.match(ln.strip()))]
    # A sentence that is only a letter counts too ("Hmm. A\n\nB" names two letters).
    sentences = re.split(r"(?<=[.!?])\s+|\n", "\n".join(lines))
    found = {m.group(1) for sent in sentences if (m := _LINE_LETTER.match(sent.strip()))}
    if len(found) != 1 or len(lines) < 2:
        return found, None
    letter = next(iter(found))
    others = _named_letters("\n".join(ln for ln in lines if not _LINE_LETTER.match(ln.strip())), True) - {letter}
    for i, _ in hits:
        prev = lines[i - 1].strip() if i > 0 else ""
        after_break = i > 0 and (
            prev == "" or prev.endswith((":", ".", "!", "?", ")", '"')) or bool(_ANSWER_WORD.search(prev))
        )
        if i == 0 and not others:
            return found, letter
        if i == len(lines) - 1 and after_break:
            return found, letter
        if 0 < i < len(lines) - 1 and after_break and not others:
            return found, letter
    return found, None


_LEADING = re.compile(
    r"^[(\[]?(?P<up>[A-Z])[)\]]?(?P<sep>\)|\.|:|\s*-|,)(?=\s|$)"
    r"|^[(\[]?(?P<low>[a-z])[)\]]?(?:\)|\.|:)(?=\s|$)"
    r"|^(?P<reason>[A-Z])(?=\s+(?:because|since|given)\b)"
)
_REPLY_WORDS = {"yes", "no"}
_REASON_START = re.compile(r"\s*(?:because|since|as|given)\b", re.I)
_HEAD = re.compile(
    r"^(?P<head>[^.!?\n]+?)\s*(?:[.!?\n]|$|,\s*(?=(?:because|since|as|given|though|although|but|which|"
    r"i think|i suppose|i guess|i believe|in my view|overall)\b)|\s+-\s+|:\s)",
    re.I,
)


@dataclass(frozen=True)
class _Response:
    """One response being parsed.

    Its cleaned text, its body (courtesy opening removed), the options' letters and
    normalised texts, and whether it holds refusal language.
    """

    cleaned: str
    body: str
    letters: str
    norm_opts: list[str]
    refusal: bool

    def answer(self, letter: str, rule: str) -> Parse:
        """The parse of an answer `letter` found by `rule` (unparsed when no option has it)."""
        letter = letter.upper()
        if letter not in self.letters:
            return Parse(UNPARSED, rule=f"letter {letter} is not an option")
        if self.refusal:
            rule += " (with refusal language)"
        return Parse(ANSWERED, letter, self.letters.index(letter), rule)


def _whole_answer(r: _Response) -> Parse | None:
    """1.

    The whole response is a letter, an option's text, or a letter with its text (an option's
    text next to refusal language only when the whole cleaned text is that option).
    """
    whole = _whole(r.body, r.letters, r.norm_opts)
    if whole is None:
        return None
    kind, letter, rule = whole
    if kind == "conflict":
        return Parse(UNPARSED, rule=rule)
    if rule != "option text" or not r.refusal or _text_choice(r.cleaned.strip(" .!\"'"), r.norm_opts) is not None:
        return r.answer(letter, rule)
    return None


def _explicit_answer(r: _Response) -> Parse | None:
    """2. Explicit answers and letter lines; all must agree."""
    explicit, conflicts = _explicit(r.body, r.letters, r.norm_opts)
    if conflicts:
        return Parse(UNPARSED, rule=conflicts[0])
    lines = [ln.strip(" \t\"'") for ln in r.body.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    line_letters, line_answer = _letter_line(lines)
    if len(line_letters) > 1:
        return Parse(UNPARSED, rule=f"different letters on separate lines ({''.join(sorted(line_letters))})")
    strong = explicit | ({line_answer} if line_answer else set())
    if len(strong) > 1:
        return Parse(UNPARSED, rule=f"conflicting answers ({''.join(sorted(strong))})")
    if strong:
        letter = next(iter(strong))
        return r.answer(letter, "explicit answer" if letter in explicit else "letter line")
    return None


def _leading_answer(r: _Response) -> Parse | None:
    """3. A leading letter with a separator, naming no other option."""
    m = _LEADING.match(r.body)
    if not m:
        return None
    letter = (m.group("up") or m.group("low") or m.group("reason")).upper()
    rest = r.body[m.end() :]
    others = _named_letters(r.body) - {letter}
    first = re.split(r"[.;!?\n]", rest.strip(), maxsplit=1)[0]
    idx = _text_choice(_trailing_text(first), r.norm_opts)
    if m.group("sep") == "," and not _REASON_START.match(rest) and letter == "A":
        return None  # "A, the statement ..." is prose.
    if others:
        return Parse(UNPARSED, rule=f"several options named ({''.join(sorted(others | {letter}))})")
    if idx is not None and r.letters[idx] != letter:
        return Parse(UNPARSED, rule=f"letter {letter} with the text of option {r.letters[idx]}")
    return r.answer(letter, "leading letter")


def _head_answer(r: _Response) -> Parse | None:
    """4.

    The first sentence is one option's text; next to refusal language, not when that
    text doubles as a reply word ("No. I can't answer that.").
    """
    if h := _HEAD.match(r.body):
        idx = _text_choice(h.group("head"), r.norm_opts)
        if idx is not None and not (r.refusal and r.norm_opts[idx] in _REPLY_WORDS):
            return r.answer(r.letters[idx], "option text")
    return None


def parse_choice(text: str, options: Sequence[str]) -> Parse:
    """Parse one response against lettered options (A, B, ...). Never guesses.

    The rules run in order and the first that decides wins: the whole response, explicit
    answers and letter lines, a leading letter, the first sentence as an option's text;
    else a refusal, else unparsed.
    """
    cleaned = clean_text(text)
    if not cleaned:
        return Parse(UNPARSED, rule="empty")
    body = _COURTESY.sub("", cleaned, count=1).strip()
    if not body:
        return Parse(UNPARSED, rule="no unambiguous choice")
    letters = _ALPHABET[: len(options)]
    response = _Response(cleaned, body, letters, [_norm(o) for o in options], bool(_REFUSAL.search(cleaned)))
    for rule in (_whole_answer, _explicit_answer, _leading_answer, _head_answer):
        if (parsed := rule(response)) is not None:
            return parsed
    if response.refusal:
        return Parse(REFUSAL, rule="refusal")
    return Parse(UNPARSED, rule="no unambiguous choice")


# --- probability mass of the answer token -----------------------------------------------------

K = TypeVar("K", bound=Hashable)


def token_candidates(entry: Logprob) -> list[Logprob | TopLogprob]:
    """The distinct tokens whose probability is known at one position.

    The top logprobs, plus the sampled token once when it is not among them (a sampled
    token outside the top-k still has its probability). Tokens compare by their string;
    the first wins.
    """
    seen: set[str] = set()
    out: list[Logprob | TopLogprob] = []
    pool: list[Logprob | TopLogprob] = [*(entry.top_logprobs or []), entry]
    for cand in pool:
        if cand.token not in seen:
            seen.add(cand.token)
            out.append(cand)
    return out


def token_mass(entry: Logprob, classify: Callable[[str], K | None], keys: Iterable[K]) -> dict[K, float]:
    """Summed probability of the distinct candidate tokens at one position, per class `classify` gives a token.

    Candidates are `token_candidates`; tokens `classify` maps to None, or to a class
    outside `keys`, are not counted. The one answer-token mass every parser uses.
    """
    mass = dict.fromkeys(keys, 0.0)
    for cand in token_candidates(entry):
        key = classify(cand.token)
        if key is not None and key in mass:
            mass[key] += math.exp(cand.logprob)
    return mass


# --- option probabilities from logprobs -------------------------------------------------------


def _letter_of_token(token: str) -> str | None:
    t = token.strip().strip("(*[\"'").rstrip(").:*]\"'")
    if len(t) == 1 and t.isalpha() and t.isupper():
        return t
    return None


@dataclass(frozen=True)
class OptionProbs:
    """Option probabilities at the first answer token (renormalised over the options)."""

    probs: tuple[float, ...]
    covered_mass: float
    position: int


def option_probabilities(output: ModelOutput, n_options: int) -> OptionProbs | None:
    """Probabilities of the option letters at the first answer token.

    The first answer token is the first generated token that is one of the option letters
    (after stripping spaces, brackets and markdown; so the pronoun "I" of "I think" is not
    it on a four-option item); if none is, the first token. At that position the top
    logprobs of each letter's variants (with and without a leading space, bracket or bold)
    are merged, and the options' total (`covered_mass`) is recorded before renormalising.
    None when the provider gave no logprobs or no option letter appears among the top tokens.
    """
    if not output.choices or output.choices[0].logprobs is None:
        return None
    content = output.choices[0].logprobs.content
    if not content:
        return None
    letters = _ALPHABET[:n_options]
    options = set(letters)
    position = next((i for i, lp in enumerate(content) if _letter_of_token(lp.token) in options), 0)
    entry = content[position]
    mass = token_mass(entry, _letter_of_token, letters)
    covered = sum(mass.values())
    if covered <= 0:
        return None
    return OptionProbs(tuple(mass[x] / covered for x in letters), min(covered, 1.0), position)
