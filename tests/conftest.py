"""Session-wide test set-up: the reference-data fixture and the `scripted/<letter>` model
provider. Helpers the test modules share live in the `support` package (tests import them
from there, never from this file)."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest
from inspect_ai.model import GenerateConfig, ModelAPI, ModelOutput, modelapi
from matplotlib.figure import Figure
from support import REFERENCE, output


@pytest.fixture(scope="session", autouse=True)
def analysis_store(tmp_path_factory) -> Path:
    """Stored analyses (report.reuse) go to a folder of this test session, not the user's cache."""
    root = tmp_path_factory.mktemp("analysis-store")
    os.environ["POLITICAL_SYCOPHANCY_CACHE"] = str(root)
    return root


# a 1x1 PNG and an empty SVG: what a figure's file holds in a test that does not look at it
PLACEHOLDER = {
    "png": base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="),
    "svg": b'<?xml version="1.0" encoding="utf-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n',
}


@pytest.fixture(autouse=True)
def figures_drawn_where_checked(request, monkeypatch) -> None:
    """Matplotlib draws a figure's file only in tests marked `figures` (those that read the
    image, its labels, or what drawing may raise); elsewhere `Figure.savefig` writes a
    placeholder of the requested format. Drawing was a fifth of the suite's time, spent on
    images no assertion looked at; the figure code up to the drawing runs either way, and
    subprocesses (the CLI tests) always draw."""
    if request.node.get_closest_marker("figures"):
        return

    def placeholder(self, fname, *args, format=None, **kwargs):
        kind = format or Path(str(fname)).suffix.lstrip(".") or "png"
        data = PLACEHOLDER[kind]
        if hasattr(fname, "write"):
            fname.write(data)
        else:
            Path(fname).write_bytes(data)

    monkeypatch.setattr(Figure, "savefig", placeholder)


@pytest.fixture
def reference_dir() -> Path:
    """The first seed's replication data in ../shared; tests using it skip when it is absent."""
    if not (REFERENCE / "phase2_pool.json").exists():
        pytest.skip(f"replication data not found at {REFERENCE}")
    return REFERENCE


@modelapi(name="scripted")
class ScriptedAPI(ModelAPI):
    """`scripted/<letter>`: always answers <letter>, with usage set (offline-safe mock for
    code paths that take a model name, such as the CLI)."""

    def __init__(self, model_name: str, base_url=None, api_key=None, config: GenerateConfig = GenerateConfig(), **kwargs):
        super().__init__(model_name, base_url, api_key, [], config)

    async def generate(self, input, tools, tool_choice, config) -> ModelOutput:
        return output(self.model_name, model=f"scripted/{self.model_name}")
