"""Session-wide test set-up: the reference-data fixture and the `scripted/<letter>` model
provider. Helpers the test modules share live in the `support` package (tests import them
from there, never from this file)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from inspect_ai.model import GenerateConfig, ModelAPI, ModelOutput, modelapi
from support import REFERENCE, output


@pytest.fixture(scope="session", autouse=True)
def analysis_store(tmp_path_factory) -> Path:
    """Stored analyses (report.reuse) go to a folder of this test session, not the user's cache."""
    root = tmp_path_factory.mktemp("analysis-store")
    os.environ["POLITICAL_SYCOPHANCY_CACHE"] = str(root)
    return root


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
