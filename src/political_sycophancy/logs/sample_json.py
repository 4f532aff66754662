"""An imported sample's JSON and summary, written as bytes from a checked template.

An import writes tens of thousands of samples that differ only in a few fields (id,
epoch, prompt, response, metadata, score, uuid). Building each as Inspect's pydantic
`EvalSample`, serialising it and thinning its summary was most of an import's time. Here
one pydantic sample per log is serialised as Inspect serialises it (`json_bytes`); its
members every sample shares are kept as JSON bytes and each sample's JSON is those bytes
joined with its own fields'; each score, prompt and item's metadata is serialised and
thinned once per import.

The template is Inspect's layout, not a public contract, so it is checked: the last
sample of each shape (scored, errored) of every log is also built as Inspect's objects
and both serialisations must be equal (`Template.difference`); on the first difference
the importer writes through Inspect's objects instead and says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from json.encoder import encode_basestring_ascii
from typing import Any

import numpy as np
import shortuuid
from inspect_ai.log import EvalError, EvalSample, EvalSampleReductions
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput
from inspect_ai.scorer import Score

from ..core.inspect_compat import json_bytes, sample_summaries, summary_metadata_thinner

# a sample's fields filled per sample; every other field is the template's
PER_SAMPLE = ("id", "epoch", "input", "messages", "output", "scores", "metadata", "error", "uuid")
SUMMARY_PER_SAMPLE = ("id", "epoch", "input", "metadata", "scores", "error", "uuid")


@dataclass(slots=True)
class Record:
    """One response row as a sample: what its sample and summary are written from.

    `item_metadata` is shared by every sample of an item (never mutated), `row_metadata`
    is the row's own; the sample's metadata is both, in that order.
    """

    id: str
    epoch: int
    prompt: str
    raw: str
    item_metadata: dict[str, Any]
    row_metadata: dict[str, Any]
    score: Score | None
    error: str | None
    uuid: str
    message_ids: tuple[str, str, str]  # the user message, the assistant's, the output's

    @property
    def metadata(self) -> dict[str, Any]:
        """The sample's metadata: the item's, then the row's own."""
        return {**self.item_metadata, **self.row_metadata}

    @property
    def shape(self) -> tuple[bool, bool]:
        """Whether the record is unscored and whether it is error-free: records of one shape share a template."""
        return self.score is None, self.error is None


def random_ids(n: int) -> list[str]:
    """`n` random ids in shortuuid's form, drawn at once from fresh OS entropy.

    22 characters of its alphabet, as Inspect names samples and messages; shortuuid's own
    encoding, one id at a time, was a tenth of an import's time.
    """
    alphabet = np.frombuffer(shortuuid.get_alphabet().encode(), dtype="S1")
    digits = np.random.default_rng().integers(0, len(alphabet), size=(n, 22))
    return alphabet[digits].view("S22").ravel().astype(str).tolist()


def sample_of(record: Record, model: str, scorer_name: str) -> EvalSample:
    """The record as Inspect's `EvalSample`, with the record's ids."""
    output = ModelOutput.from_content(model=model, content=record.raw)
    output.choices[0].message.id = record.message_ids[2]
    return EvalSample(
        id=record.id,
        epoch=record.epoch,
        input=record.prompt,
        target="",
        messages=[
            ChatMessageUser(content=record.prompt, id=record.message_ids[0]),
            ChatMessageAssistant(content=record.raw, model=model, id=record.message_ids[1]),
        ],
        output=output,
        scores=None if record.score is None else {scorer_name: record.score},
        metadata=record.metadata,
        error=None if record.error is None else EvalError(message=record.error, traceback="", traceback_ansi=""),
        uuid=record.uuid,
    )


def _dumps(value: Any) -> bytes:
    # a string as json.dumps writes one (its own encoder, without json.dumps's set-up, most
    # of the cost for the short strings of a sample); what json.dumps cannot write (a
    # numpy scalar) goes through Inspect's serialiser
    if type(value) is str:
        return encode_basestring_ascii(value).encode()
    return json.dumps(value, separators=(",", ":"), default=lambda v: json.loads(json_bytes(v))).encode()


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=lambda v: json.loads(json_bytes(v)))


def _tail(fields: dict[str, Any], leave: tuple[str, ...]) -> bytes:
    """`fields` but `leave` as the JSON members that follow others in an object: `,"k":v...`."""
    return b"".join(b"," + _dumps(k) + b":" + _dumps(v) for k, v in fields.items() if k not in leave)


def _object_open(fields: dict[str, Any]) -> bytes:
    """A dict's JSON without its closing brace, to be continued by more members."""
    return _dumps(fields)[:-1]


def _closed(head: bytes, members: list[bytes]) -> bytes:
    """The object `head` (an open object) continued by `members` (JSON `"key":value`), closed."""
    if not members:
        return head + b"}"
    return head + (b"," if head != b"{" else b"") + b",".join(members) + b"}"


@dataclass
class Pieces:
    """What an import's logs share, serialised once.

    Each score by identity (the importer shares a score among the rows that repeat it; the
    entry keeps it alive), each prompt, each prompt's summary input, each item's metadata
    and thinned metadata by identity, each reduced score by the identities of its parts, and
    each member of a row's own metadata.
    """

    thin: Callable[[dict[str, Any]], dict[str, Any]]
    scores: dict[int, tuple[Score, bytes, bytes]] = field(default_factory=dict)
    prompts: dict[str, tuple[bytes, bytes]] = field(default_factory=dict)
    items: dict[int, tuple[dict, bytes, bytes]] = field(default_factory=dict)
    reduced: dict[tuple[int, ...], tuple[tuple, bytes]] = field(default_factory=dict)
    members: dict[tuple[str, type, Any], tuple[bytes, bytes | None]] = field(default_factory=dict)

    @classmethod
    def of(cls) -> Pieces | None:
        """None without the internals that thin a summary's metadata (then Inspect's objects are written)."""
        thin = summary_metadata_thinner()
        return None if thin is None else cls(thin)

    def score(self, score: Score, scorer_name: str) -> tuple[bytes, bytes]:
        """The score's JSON in a sample and in a summary."""
        hit = self.scores.get(id(score))
        if hit is None:
            probe = EvalSample(id="x", epoch=1, input="", target="", scores={scorer_name: score})
            summary = json.loads(json_bytes(sample_summaries([probe])[0]))["scores"][scorer_name]
            hit = self.scores[id(score)] = (score, json_bytes(score), _dumps(summary))
        return hit[1], hit[2]

    def prompt(self, prompt: str) -> tuple[bytes, bytes]:
        """The prompt's JSON, and its summary's input's."""
        hit = self.prompts.get(prompt)
        if hit is None:
            probe = EvalSample(id="x", epoch=1, input=prompt, target="")
            hit = self.prompts[prompt] = (
                _dumps(prompt),
                _dumps(json.loads(json_bytes(sample_summaries([probe])[0]))["input"]),
            )
        return hit

    def reductions(self, reductions: list[EvalSampleReductions]) -> bytes:
        """A log's reductions as Inspect serialises them.

        A reduced score of the importer shares its value, texts and metadata with those of
        the same content (the reducer's cache, the scores' metadata), so its JSON but the
        sample id is made once per such parts (the entry keeps them alive, so their
        identities are not reused).
        """
        out = []
        for reduction in reductions:
            head = json_bytes(reduction.model_copy(update={"samples": []}))
            if not head.endswith(b'"samples":[]}'):
                out.append(json_bytes(reduction))
                continue
            samples = []
            for sample in reduction.samples:
                fields = tuple(v for k, v in sample.__dict__.items() if k != "sample_id")
                key = tuple(map(id, fields))
                hit = self.reduced.get(key)
                if hit is None:
                    opened = json_bytes(sample.model_copy(update={"sample_id": None}))[:-1]
                    hit = self.reduced[key] = (fields, opened + (b"," if opened != b"{" else b""))
                samples.append(hit[1] + b'"sample_id":' + _dumps(sample.sample_id) + b"}")
            out.append(head[:-2] + b",".join(samples) + b"]}")
        return b"[" + b",".join(out) + b"]"

    def metadata(self, record: Record) -> tuple[bytes, bytes]:
        """The record's metadata as its sample and its summary (thinned key by key) hold it."""
        hit = self.items.get(id(record.item_metadata))
        if hit is None:
            item = record.item_metadata
            hit = self.items[id(item)] = (item, _object_open(item), _object_open(self.thin(item)))
        sample, summary = self._members(record.row_metadata)
        return _closed(hit[1], sample), _closed(hit[2], summary)

    def _members(self, fields: dict[str, Any]) -> tuple[list[bytes], list[bytes]]:
        """`fields` as JSON members `"key":value`, in a sample and thinned in a summary, each distinct one made once.

        A thinned value may leave its key out of the summary. Each distinct key and value
        is made once: the rows of an import repeat most of their own metadata (condition,
        file, question).
        """
        sample, summary = [], []
        for key, value in fields.items():
            if type(value) is int:  # a row number: one per row, not worth keeping; a summary keeps numbers as they are
                member = _dumps(key) + b":" + str(value).encode()
                sample.append(member)
                summary.append(member)
                continue
            # by type and, for a float, its text: 1, 1.0 and True are equal keys, and so are 0.0 and -0.0
            token = (key, type(value), repr(value) if type(value) is float else value)
            try:
                hit = self.members.get(token)
            except TypeError:  # a value that cannot be a key (a list): made every time
                hit = None
            if hit is None:
                thinned = self.thin({key: value})
                hit = (
                    _dumps(key) + b":" + _dumps(value),
                    _dumps(key) + b":" + _dumps(thinned[key]) if key in thinned else None,
                )
                try:
                    self.members[token] = hit
                except TypeError:
                    pass
            sample.append(hit[0])
            if hit[1] is not None:
                summary.append(hit[1])
        return sample, summary


@dataclass
class Template:
    """One log's sample and summary JSON, from its first record.

    The members every sample shares serialised once, the rest written per sample.
    """

    model: str
    scorer_name: str
    pieces: Pieces
    parts: dict[str, bytes]

    @classmethod
    def of(cls, first: Record, model: str, scorer_name: str, pieces: Pieces) -> Template:
        """The template of a log, from its first record serialised as Inspect's own objects are."""
        proto = sample_of(first, model, scorer_name)
        sample = json.loads(json_bytes(proto))
        summary = json.loads(json_bytes(sample_summaries([proto])[0]))
        user, assistant = sample["messages"]
        output = sample["output"]
        choice = output["choices"][0]
        parts = {
            "sample": _tail(sample, PER_SAMPLE),
            "user": _tail(user, ("id", "content")),
            "assistant": _tail(assistant, ("id", "content")),
            "output": _tail(output, ("choices", "completion")),
            "choice": _tail(choice, ("message",)),
            "message": _tail(choice["message"], ("id", "content")),
            "summary": _tail(summary, SUMMARY_PER_SAMPLE),
            "scorer": _dumps(scorer_name),
        }
        if len(sample["messages"]) != 2 or len(output["choices"]) != 1:
            raise ValueError("a sample of two messages and one choice was expected")
        return cls(model, scorer_name, pieces, parts)

    def sample_bytes(self, record: Record, metadata: bytes) -> bytes:
        """One sample's JSON: the record's own values between the template's shared parts."""
        p = self.parts
        prompt = self.pieces.prompt(record.prompt)[0]
        raw = _dumps(record.raw)
        ids = record.message_ids
        out = [
            b'{"id":',
            _dumps(record.id),
            b',"epoch":',
            str(record.epoch).encode(),
            b',"input":',
            prompt,
            b',"messages":[{"id":',
            _dumps(ids[0]),
            b',"content":',
            prompt,
            p["user"],
            b'},{"id":',
            _dumps(ids[1]),
            b',"content":',
            raw,
            p["assistant"],
            b'}],"output":{"choices":[{"message":{"id":',
            _dumps(ids[2]),
            b',"content":',
            raw,
            p["message"],
            b"}",
            p["choice"],
            b'}],"completion":',
            raw,
            p["output"],
            b"}",
        ]
        if record.score is not None:
            out += [b',"scores":{', p["scorer"], b":", self.pieces.score(record.score, self.scorer_name)[0], b"}"]
        if record.error is not None:
            out += [b',"error":', _dumps({"message": record.error, "traceback": "", "traceback_ansi": ""})]
        out += [b',"metadata":', metadata, b',"uuid":', _dumps(record.uuid), p["sample"], b"}"]
        return b"".join(out)

    def summary_bytes(self, record: Record, metadata: bytes) -> bytes:
        """One sample summary's JSON, filled as `sample_bytes` fills the sample."""
        p = self.parts
        out = [
            b'{"id":',
            _dumps(record.id),
            b',"epoch":',
            str(record.epoch).encode(),
            b',"input":',
            self.pieces.prompt(record.prompt)[1],
        ]
        if record.score is not None:
            out += [b',"scores":{', p["scorer"], b":", self.pieces.score(record.score, self.scorer_name)[1], b"}"]
        if record.error is not None:
            out += [b',"error":', _dumps(record.error)]
        out += [b',"metadata":', metadata, b',"uuid":', _dumps(record.uuid), p["summary"], b"}"]
        return b"".join(out)

    def difference(self, record: Record) -> str | None:
        """None when the record's JSON reads as Inspect's objects of it serialise, else which differs."""
        sample = sample_of(record, self.model, self.scorer_name)
        ours, summary = self.json([record])
        if _canonical(json.loads(ours[0][2])) != _canonical(json.loads(json_bytes(sample))):
            return "a sample"
        if _canonical(json.loads(summary)) != _canonical(json.loads(json_bytes(sample_summaries([sample])))):
            return "a sample summary"
        return None

    def json(self, records: list[Record]) -> tuple[list[tuple[str | int, int, bytes]], bytes]:
        """The records' sample JSON ((id, epoch, JSON) each) and their summaries' JSON list."""
        samples: list[tuple[str | int, int, bytes]] = []
        summaries: list[bytes] = []
        for r in records:
            metadata, thinned = self.pieces.metadata(r)
            samples.append((r.id, r.epoch, self.sample_bytes(r, metadata)))
            summaries.append(self.summary_bytes(r, thinned))
        return samples, b"[" + b",".join(summaries) + b"]"
