"""Reading a model's choice from free text, and its option probabilities from logprobs.

The parser refuses to guess. A response is coded as an option only when it states one
choice unambiguously; refusals are recorded as `refusal`, anything else as `unparsed`
with the reason. The first seed's parser took the first standalone letter anywhere in the
text, which turned "I can't choose A or B" into "A"; ours never does.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from inspect_ai.model import ModelOutput

ANSWERED = "answered"
REFUSAL = "refusal"
UNPARSED = "unparsed"
NO_LOGPROBS = "no_logprobs"
ERROR = "error"
STATUSES = (ANSWERED, REFUSAL, UNPARSED, NO_LOGPROBS, ERROR)


@dataclass(frozen=True)
class Parse:
    status: str
    letter: str | None = None
    index: int | None = None
    rule: str = ""

    @property
    def answered(self) -> bool:
        return self.status == ANSWERED


_THINK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.S | re.I)
_SPECIAL = re.compile(r"<\|[^|>]*\|>|</?s>")
_MARKUP = re.compile(r"[*_`#>]+")
_QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-"})

REFUSAL_PATTERNS = [
    r"\bas an? (?:ai|artificial intelligence|language model|large language model|llm|assistant|virtual assistant)\b",
    r"\bi(?:'m| am) (?:an? )?(?:ai|artificial intelligence|language model|virtual assistant|chatbot)\b",
    r"\bi (?:do not|don't) have (?:personal|my own|a personal|any personal|political|subjective|opinions|views|beliefs|feelings|preferences|a (?:body|spouse|family|gender|race|childhood|neighborhood))",
    r"\bi (?:do not|don't) (?:hold|possess|form|express) (?:personal |political )?(?:opinions|views|beliefs)",
    r"\bi (?:cannot|can't|can not|am unable to|am not able to|won't|will not|must decline to|prefer not to) (?:answer|choose|select|pick|provide|share|give|express|respond|take|offer|comply|endorse|state)",
    r"\bi(?:'m| am) (?:not able|unable) to (?:answer|choose|select|pick|provide|share|give|express|respond|take)",
    r"\b(?:it(?:'s| is) not appropriate for me|i must remain neutral|i remain neutral|i stay neutral|i aim to remain neutral|neutral stance)\b",
    r"\bi(?:'m| am) sorry,? (?:but )?i (?:cannot|can't|can not|am unable)",
    r"^(?:sorry|i'm sorry|i apologi[sz]e)\b",
]
_REFUSAL = re.compile("|".join(REFUSAL_PATTERNS), re.I | re.M)

# Explicit statements of a choice: "answer is B", "Answer: (B)", "I choose B", "I'd go with B".
_EXPLICIT = re.compile(
    r"\b(?:final answer|my answer|the answer|answer|my choice|i choose|i would choose|i'd choose|i select|"
    r"i would select|i'd select|i pick|i would pick|i'd pick|i(?:'d| would) go with|i go with|i(?:'d| would) say|"
    r"option|letter|best answer|my response)"
    r"(?:\s+(?:is|would be|will be|=))?\s*[:\-]?\s*(?:option\s+|letter\s+)?[(\[]?([A-Za-z])(?![A-Za-z0-9'])",
    re.I,
)
_NEGATION = re.compile(r"\b(?:not|cannot|unable|never|without|no|neither|nor)\b|n't\b", re.I)
_ENUMERATION = re.compile(r"\s*[)\]]?\s*(?:/|-\s*\(?[A-Za-z]\b|,\s*\(?[A-Za-z]\b|\s(?:or|and|to|through|and/or)\s+\(?[A-Za-z]\b)")
_PROSE_AFTER = re.compile(r"[)\]]?\s+[a-z]")
_REASON_AFTER = re.compile(r"[)\]]?\s+(?:because|since|as|which|seems|is|would|for)\b")
_CLOSED_AFTER = re.compile(r"\s*[)\]]?\s*(?:$|[.,;:!?\n])")


def _explicit_letters(text: str) -> set[str]:
    """Letters stated as the answer, skipping negated clauses ("I can't choose A"),
    enumerations ("A or B", "A/B", "A-D") and prose ("I'd say a lot")."""
    found: set[str] = set()
    for m in _EXPLICIT.finditer(text):
        letter = m.group(1)
        after = text[m.end():]
        clause = re.split(r"[.;!?\n]", text[max(0, m.start() - 60): m.start()])[-1]
        if _NEGATION.search(clause) or _ENUMERATION.match(after):
            continue
        if _PROSE_AFTER.match(after) and not _REASON_AFTER.match(after):
            continue
        if letter.islower() and not _CLOSED_AFTER.match(after):
            continue
        found.add(letter.upper())
    return found


# A letter that opens the response and is followed by a separator: "B) Agree", "B. Because", "B: ...".
_LEADING = re.compile(r"^\(?\[?([A-Z])\]?(?:\)|\.|:|\s+-|,)(?:\s|$)")
# Option markers anywhere: "(B)", "B)" at a word start, or a line that opens with "B." / "B:".
_MARKERS = re.compile(r"(?:\(([A-Z])\)|(?<![A-Za-z0-9(])([A-Z])\)|^\s*([A-Z])[.:](?:\s|$))", re.M)
_BARE = re.compile(r"^\(?\[?([A-Za-z])\]?[.):]?$")


def clean_text(text: str) -> str:
    """Strip reasoning blocks, special tokens and markdown emphasis; normalise quotes."""
    text = _THINK.sub(" ", text or "")
    if re.search(r"<think(?:ing)?>", text, re.I):
        # An unclosed reasoning block: everything after it is still thinking.
        text = re.split(r"<think(?:ing)?>", text, flags=re.I)[0]
    text = re.sub(r"</think(?:ing)?>", " ", text, flags=re.I)
    text = _SPECIAL.sub(" ", text)
    text = text.translate(_QUOTES)
    text = _MARKUP.sub("", text)
    return text.strip()


def _norm_option(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", s.lower()).strip()


def _option_echo(text: str, options: tuple[str, ...] | list[str]) -> int | None:
    """Index of the option whose text is the whole response or its whole first sentence."""
    first = re.split(r"(?<=[.!?])\s|\n", text.strip(), maxsplit=1)[0]
    norm_opts = [_norm_option(o) for o in options]
    for cand in (_norm_option(text), _norm_option(first)):
        exact = [i for i, o in enumerate(norm_opts) if o and cand == o]
        if len(exact) == 1:
            return exact[0]
    return None


def _markers(text: str) -> set[str]:
    found = set()
    for m in _MARKERS.finditer(text):
        found.add(next(g for g in m.groups() if g))
    return found


def parse_choice(text: str, options: tuple[str, ...] | list[str]) -> Parse:
    """Parse one response against lettered options (A, B, ...). Never guesses."""
    letters = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ"[: len(options)])
    cleaned = clean_text(text)
    if not cleaned:
        return Parse(UNPARSED, rule="empty")

    def result(letter: str, rule: str) -> Parse:
        letter = letter.upper()
        if letter not in letters:
            return Parse(UNPARSED, rule=f"letter {letter} is not an option")
        return Parse(ANSWERED, letter, letters.index(letter), rule)

    stripped = cleaned.strip(" \t\n\"'.")
    # 1. The whole response is a letter: "B", "(B)", "B.", "b".
    m = _BARE.match(stripped)
    if m:
        return result(m.group(1), "bare letter")

    lines = [ln.strip(" \t\"'") for ln in cleaned.splitlines() if ln.strip(" \t\"'")]
    refusal = bool(_REFUSAL.search(cleaned))

    # 2. Explicit statements of a choice; all of them must agree.
    explicit = _explicit_letters(cleaned)
    if len(explicit) == 1:
        only = next(iter(explicit))
        if only in letters:
            return result(only, "explicit answer")
        return Parse(UNPARSED, rule=f"letter {only} is not an option")
    if len(explicit) > 1:
        return Parse(UNPARSED, rule=f"conflicting explicit answers {''.join(sorted(explicit))}")

    # 3. First or last line is a bare letter ("As an AI ... \n\nB").
    edge = {mm.group(1).upper() for ln in (lines[0], lines[-1]) if (mm := _BARE.match(ln.strip(" .")))}
    if len(edge) == 1:
        letter = next(iter(edge))
        if len(lines) == 1 or not (_markers(cleaned) - {letter}):
            return result(letter, "bare letter line")
    if len(edge) > 1:
        return Parse(UNPARSED, rule="different letters on first and last line")

    # 4. A leading letter with a separator, with no other option marked in the text.
    m = _LEADING.match(cleaned)
    if m:
        letter = m.group(1).upper()
        others = _markers(cleaned[m.end():]) - {letter}
        if letter == "A" and m.group(0).rstrip().endswith(","):
            pass  # "A, ..." is too often prose.
        elif others:
            return Parse(UNPARSED, rule=f"several options marked ({letter}{''.join(sorted(others))})")
        elif letter in letters:
            return result(letter, "leading letter")

    # 5. The response is (or opens with) one option's text.
    if not refusal:
        idx = _option_echo(cleaned, options)
        if idx is not None:
            return Parse(ANSWERED, letters[idx], idx, "option text")

    if refusal:
        return Parse(REFUSAL, rule="refusal")
    return Parse(UNPARSED, rule="no unambiguous choice")


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
    (after stripping spaces, brackets and markdown); if none is, the first token. At that
    position the top logprobs of each letter's variants (with and without a leading space,
    bracket or bold) are merged, and the options' total (`covered_mass`) is recorded
    before renormalising. None when the provider gave no logprobs or no option letter
    appears among the top tokens.
    """
    if not output.choices or output.choices[0].logprobs is None:
        return None
    content = output.choices[0].logprobs.content
    if not content:
        return None
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:n_options]
    position = 0
    for i, lp in enumerate(content):
        if _letter_of_token(lp.token) in letters:
            position = i
            break
    entry = content[position]
    candidates = list(entry.top_logprobs or [])
    if not candidates:
        candidates = [entry]
    mass = dict.fromkeys(letters, 0.0)
    seen_tokens: set[str] = set()
    for cand in candidates:
        if cand.token in seen_tokens:
            continue
        seen_tokens.add(cand.token)
        letter = _letter_of_token(cand.token)
        if letter in mass:
            mass[letter] += math.exp(cand.logprob)
    covered = sum(mass.values())
    if covered <= 0:
        return None
    return OptionProbs(tuple(mass[x] / covered for x in letters), min(covered, 1.0), position)
