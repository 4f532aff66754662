"""Inputs of the profile tests and bench: a synthetic survey `.sav` file."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def write_sav(path: Path, rows: list[dict], labels: dict | None = None) -> Path:
    """A `.sav` file of `rows` (one dict per respondent), written with pyreadstat."""
    import pyreadstat

    frame = pd.DataFrame(rows)
    pyreadstat.write_sav(frame, str(path), variable_value_labels=labels or {})
    return path


def conversation_model(respond, calls: list | None = None, name: str = "mockllm/model"):
    """A mockllm model whose answer is `respond(<every message of the conversation, joined
    by blank lines>)` (the persona may sit in an earlier turn); `calls` collects the inputs."""
    from inspect_ai.model import get_model

    from support import output

    def generate(input, tools, tool_choice, config):
        if calls is not None:
            calls.append([(m.role, m.text) for m in input])
        out = respond("\n\n".join(m.text for m in input))
        return out if not isinstance(out, str) else output(out)

    return get_model(name, custom_outputs=generate, memoize=False)


def stable_hash(*parts: str) -> int:
    """A hash that is the same in every process (Python's str hash is salted)."""
    import hashlib

    return int.from_bytes(hashlib.sha256("\x1f".join(parts).encode()).digest()[:8], "big")


def write_pool(path: Path, ids: list[str]) -> Path:
    path.write_text("\n".join(ids) + "\n", encoding="utf-8")
    return path


# ---- planted effects: mock models whose answers depend on known persona attributes ----

# Planted shift of P(right-coded extreme answer) per (attribute, level): on a PCT item the
# answer is the right-coded extreme (+2) with probability q, else the left-coded one (-2),
# so E[score] = 4q - 2 and a level's planted AMCE is 4 x (its shift - its reference's).
STRONG = (("partisanship", "conservative_rep", 0.25), ("partisanship", "progressive_dem", -0.2))
WEAK = (("age", "65_plus", 0.05),)
PLANTED = STRONG + WEAK  # gender: the null attribute, no shift
PLANTED_ATTRIBUTES = "partisanship,age,gender"


def planted_amce(attribute: str, level: str, reference: str) -> float:
    shift = {(a, lv): s for a, lv, s in PLANTED}
    return 4 * (shift.get((attribute, level), 0.0) - shift.get((attribute, reference), 0.0))


class PlantedResponder:
    """Answers a PCT prompt from the persona levels it recognises in the conversation: the
    explicit cue texts only (`sees="explicit"`), or the implicit ones too (`sees="implicit"`).
    Randomness is a hash of (seed, prompt), so a run is reproducible."""

    def __init__(self, sees: str, seed: int, cues: dict, item_effects: dict[str, float] | None = None) -> None:
        modes = ("explicit",) if sees == "explicit" else ("explicit", "implicit")
        self.seed = seed
        self.texts = [(text, a, lv) for m in modes for (a, lv), text in cues[m].fragments.items() if text]
        self.shift = {(a, lv): s for a, lv, s in PLANTED}
        self.item_effects = item_effects or {}

    def q(self, text: str) -> float:
        seen = {(a, lv) for t, a, lv in self.texts if t in text}
        item = next((i for i in self.item_effects if i in text), None)
        return 0.5 + self.item_effects.get(item, 0.0) + sum(self.shift.get(k, 0.0) for k in seen)

    def __call__(self, text: str, direction: int, metadata: dict | None = None) -> str:
        u = stable_hash(str(self.seed), text) / 2**64
        right = u < self.q(text)
        return ("A" if right else "D") if direction > 0 else ("D" if right else "A")


def unit_hash(*parts: str) -> float:
    """A number in [-1, 1) that is a fixed function of `parts` (the same in every process)."""
    return 2 * stable_hash(*parts) / 2**64 - 1


class LeaningResponder(PlantedResponder):
    """A model that reacts to each persona's whole text: P(right-coded extreme) moves by a
    fixed lean per persona, `lean` x (a persona part + a part of its cue text in the mode) / 2,
    each in [-1, 1) and a hash of the persona id or its cue, so unrelated to its levels: no
    attribute effect. With `effects` (attribute, level, shift) the levels it recognises move
    it too, by shift x (1 + h_item), h_item spread evenly over [-heterogeneity, heterogeneity]
    across the items (mean exactly 0: the AMCE over the items is still 4 x shift)."""

    def __init__(self, seed: int, cues: dict, item_effects: dict[str, float], lean: float, effects: tuple = (),
                 heterogeneity: float = 0.0, sees: str = "implicit") -> None:
        super().__init__(sees, seed, cues, item_effects)
        self.shift = {(a, lv): s for a, lv, s in effects}
        self.lean = lean
        ranked = sorted(item_effects, key=lambda t: stable_hash("slope", str(seed), t))
        n = max(len(ranked) - 1, 1)
        self.slope = {t: 1 + heterogeneity * (2 * k / n - 1) for k, t in enumerate(ranked)}

    def q(self, text: str, metadata: dict | None = None) -> float:
        meta = metadata or {}
        seen = {(a, lv) for t, a, lv in self.texts if t in text}
        item = next((i for i in self.item_effects if i in text), None)
        lean = 0.0
        if meta.get("persona_id", "N") != "N":
            lean = self.lean * (unit_hash("lean", str(self.seed), str(meta["persona_id"]))
                                + unit_hash("cue", str(self.seed), str(meta.get("persona_cue", "")))) / 2
        slope = self.slope.get(item, 1.0) if item else 1.0
        return 0.5 + self.item_effects.get(item, 0.0) + lean + slope * sum(self.shift.get(k, 0.0) for k in seen)

    def __call__(self, text: str, direction: int, metadata: dict | None = None) -> str:
        u = stable_hash(str(self.seed), text) / 2**64
        right = u < self.q(text, metadata)
        return ("A" if right else "D") if direction > 0 else ("D" if right else "A")


def item_effects(items, seed: int = 0) -> dict[str, float]:
    """An item effect in [-0.15, 0.15] per item text (a fixed function of the text)."""
    return {i.text: (stable_hash("item", str(seed), i.text) / 2**64 - 0.5) * 0.3 for i in items}


def planted_items(n: int = 40):
    """The first n PCT items with a direction (direction-0 items cannot move)."""
    from political_sycophancy.core.items import load_instrument

    return [i for i in load_instrument("pct") if i.direction != 0][:n]


def simulated_frame(samples, answer, model: str = "mock/planted"):
    """The tidy frame a run of `samples` would log when the model answers `answer(prompt
    text, direction, sample metadata)` with a letter (PCT items, letter mode): the rows `logs.frame` writes,
    without Inspect (for the bench's hundreds of seeds)."""
    from political_sycophancy.core.measures import PCT_POINTS

    rows = []
    for s in samples:
        text = s.input if isinstance(s.input, str) else "\n\n".join(m.text for m in s.input)
        letter = answer(text, int(s.metadata["direction"]), s.metadata)
        k = "ABCD".index(letter)
        rows.append({"model": model, "variant": "base", "kind": "profiles", "task": "profiles_pct", "sample_id": str(s.id), "epoch": 1,
                     "status": "answered", "letter": letter, "answer_mode": "letter", "temperature": 1.0,
                     "probs": [1.0 if j == k else 0.0 for j in range(4)],
                     "ideology": float(s.metadata["direction"] * PCT_POINTS[k]), **s.metadata})
    return pd.DataFrame(rows)
