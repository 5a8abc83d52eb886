"""``ragkit.contracts`` exports every extension point and every error class, and stays light."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import ragkit
import ragkit.contracts as contracts
import ragkit.errors as errors

EXTENSION_POINTS = ("Embedder", "VectorStore", "Capabilities", "Loader", "Splitter", "Retriever", "Provider",
                    "Message", "ToolCall", "AgentEvent")


def test_every_extension_point_and_error_is_exported() -> None:
    for name in EXTENSION_POINTS:
        assert name in contracts.__all__ and getattr(contracts, name) is not None
    error_classes = {n for n, v in vars(errors).items() if inspect.isclass(v) and issubclass(v, errors.RagkitError)}
    assert {"IndexLockedError", "MissingDependencyError", "RegistryError"} <= error_classes
    assert error_classes <= set(contracts.__all__)
    assert error_classes <= set(ragkit.__all__)
    assert ragkit.IndexLockedError is errors.IndexLockedError


def test_importing_contracts_loads_no_heavy_dependency() -> None:
    code = ("import sys, ragkit, ragkit.contracts; heavy = ('torch', 'faiss', 'chromadb', 'openai', 'anthropic', "
            "'cohere', 'duckdb', 'sentence_transformers'); print([m for m in heavy if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == "[]"
