"""Who answered, and how: a model's identity in the analysis.

A model's identity is its name, its model arguments (`-M`, and the base URL) and the
generate config it actually ran under, read from the log header: Inspect records the task's
config merged with `--temperature`, `--max-tokens`, `--seed` ... in `plan.config` and the
eval-level overrides in `eval.model_generate_config`; like `inspect score`, the overrides
win. The task's metadata and `-T` arguments are never read for it (a `--temperature 0` run
of a task whose default temperature is 1 ran at 0).

- Different model arguments make different models: the `model` column is the name, followed
  by `[k=v, ...]` of the arguments that tell its runs apart when one name was run with
  several (the bare name for the runs without those arguments).
- Different generate configs of one model within one measure's logs (its kind) are its
  variants: the `variant` column names the settings that tell them apart (`temperature=0`;
  `(base)` when none is set), and each is reported beside the others, never merged or dropped
  as duplicates. Another measure's task in the same folder runs under its own defaults (the
  even-handedness task's temperature 0.1 beside the audit's 1): not a variant of the audit.
- Only a true re-run (same model, variant, answer mode, task, sample and epoch) is a
  duplicate.

Arguments whose name says they hold a credential (api_key, token, secret, password, ...)
are not part of the identity and never enter the frame; settings that change how calls are
made but not what the model answers (timeouts, retries, connections, caching, headers) are
left out of the variant.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from ..core.generation import BASE_LABEL

# GenerateConfig fields that change how calls are made, not what the model answers.
OPERATIONAL_CONFIG = frozenset(
    {
        "max_retries",
        "timeout",
        "attempt_timeout",
        "stream_idle_timeout",
        "max_connections",
        "adaptive_connections",
        "cache_prompt",
        "cache",
        "batch",
        "extra_headers",
    }
)
SECRET_PARTS = frozenset(
    {
        "key",
        "apikey",
        "token",
        "secret",
        "password",
        "passwd",
        "pwd",
        "auth",
        "authorization",
        "credential",
        "credentials",
        "cookie",
        "bearer",
    }
)
_UNSET = "\0unset"


def is_secret(name: str) -> bool:
    """Whether a model argument's name says it holds a credential (`api_key`, `hf_token`, ...; not `tokenizer`)."""
    return any(part in SECRET_PARTS for part in re.split(r"[^a-z0-9]+", str(name).lower()))


def canonical(value: dict[str, Any]) -> str:
    """A dict as canonical JSON (sorted keys), so equal settings compare equal."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _set(values: dict | None) -> dict[str, Any]:
    return {k: v for k, v in (values or {}).items() if v is not None}


def model_args(header: dict) -> dict[str, Any]:
    """The log's model arguments without credentials, with the base URL when one was given."""
    ev = header.get("eval") or {}
    args = {k: v for k, v in _set(ev.get("model_args")).items() if not is_secret(k)}
    if ev.get("model_base_url"):
        args["base_url"] = ev["model_base_url"]
    return args


def generate_config(header: dict) -> dict[str, Any]:
    """The generate config the model ran under, without the operational fields.

    The plan config, then the eval's overrides.
    """
    ev = header.get("eval") or {}
    merged = {**_set((header.get("plan") or {}).get("config")), **_set(ev.get("model_generate_config"))}
    return {k: v for k, v in merged.items() if k not in OPERATIONAL_CONFIG}


def temperature_of(config: dict[str, Any]) -> float:
    """The temperature of a generate config, NaN when unset (the provider's default) or not a number."""
    value = config.get("temperature")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan


def _show(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (str, int)):
        return str(value)
    return json.dumps(value, sort_keys=True)


def distinguishing_labels(settings: Iterable[str]) -> dict[str, str]:
    """A label per canonical-JSON setting naming the fields that differ between the settings.

    Only the fields set in that setting are named (`max_tokens=7, temperature=1`; ""
    when none is).
    """
    parsed = {s: json.loads(s) for s in set(settings)}
    keys = sorted({k for d in parsed.values() for k in d})
    differing = [k for k in keys if len({canonical({"v": d.get(k, _UNSET)}) for d in parsed.values()}) > 1]
    return {s: ", ".join(f"{k}={_show(d[k])}" for k in differing if k in d) for s, d in parsed.items()}


def label_identities(frame: pd.DataFrame, plans: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, int, int]:
    """Set `model` and `variant` on the frame and on the logs' design records.

    `model` is the name + distinguishing model args, `variant` the distinguishing generate
    config, from `model_name`, `model_args` and `generate_config`; the design records
    (`plans`) are labelled alike so that a log without samples still has its identity.
    Returns both, how many extra models the split by model arguments made, and how many
    further variants (beyond each model's first) there are.
    """
    columns = ["model_name", "model_args", "generate_config", "kind"]
    parts = [f[columns] for f in (frame, plans) if f is not None and not f.empty]
    if not parts:
        return frame.assign(variant=pd.Series(dtype=object)), plans, 0, 0
    ident = pd.concat(parts, ignore_index=True).fillna({"model_args": "{}", "generate_config": "{}"})
    pairs = ident[["model_name", "model_args"]].drop_duplicates()
    display: dict[tuple, str] = {}
    for name, group in pairs.groupby("model_name", sort=False):
        labels = distinguishing_labels(group["model_args"]) if len(group) > 1 else {a: "" for a in group["model_args"]}
        for a, label in labels.items():
            display[(name, a)] = f"{name} [{label}]" if label else str(name)
    ident["model"] = [display[(n, a)] for n, a in zip(ident["model_name"], ident["model_args"], strict=True)]
    triples = ident[["model", "kind", "generate_config"]].drop_duplicates()
    variant: dict[tuple, str] = {}
    for (model, kind), group in triples.groupby(["model", "kind"], sort=False):
        for c, label in distinguishing_labels(group["generate_config"]).items():
            variant[(model, kind, c)] = label or BASE_LABEL

    def labelled(f: pd.DataFrame) -> pd.DataFrame:
        """The labels looked up once per distinct (name, args) and (model, config) pair, not per row."""
        if f.empty:
            return f.assign(variant=pd.Series(dtype=object))
        codes, pairs = pd.MultiIndex.from_arrays([f["model_name"], f["model_args"].fillna("{}")]).factorize()
        models = np.array([display[pair] for pair in pairs], dtype=object)[codes]
        codes, keys = pd.MultiIndex.from_arrays([models, f["kind"], f["generate_config"].fillna("{}")]).factorize()
        variants = np.array([variant[key] for key in keys], dtype=object)[codes]
        return f.assign(model=models.tolist(), variant=variants.tolist())

    extra_models = len(display) - pairs["model_name"].nunique()
    extra_variants = len(variant) - len(triples[["model", "kind"]].drop_duplicates())
    return labelled(frame), labelled(plans), extra_models, extra_variants


def identity_notes(frame: pd.DataFrame, extra_models: int, extra_variants: int, limit: int = 5) -> list[str]:
    """Notes naming the models split by model arguments and the variants kept apart."""
    notes = []
    if extra_models:
        split = frame.groupby("model_name")["model"].unique()
        split = split[split.map(len) > 1]
        notes.append(
            f"{extra_models} further model(s) kept apart: {len(split)} model name(s) were run with different model "
            "arguments, which make different models: " + "; ".join(", ".join(sorted(v)) for v in split.iloc[:limit])
        )
    if extra_variants:
        per = frame.groupby(["model", "kind"])["variant"].unique()
        per = per[per.map(len) > 1]
        notes.append(
            f"{extra_variants} further variant(s) of a model (different generate config within one measure's "
            "logs) kept apart, not dropped as duplicates; each model's main variant feeds the statistics and all "
            "are reported side by side (tables `variants`, `condition_summary_by_variant`): "
            + "; ".join(
                f"{m} ({kind}): {' | '.join(sorted(v))}"
                for (m, kind), v in zip(per.index[:limit], per.iloc[:limit], strict=True)
            )
        )
    return notes
