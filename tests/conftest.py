"""Every test gets a temporary home and cache, offline model loading, and seeded randomness."""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(autouse=True)
def _temporary_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("RAGKIT_INDEX", str(home / "index"))
    random.seed(1234)
    np.random.seed(1234)


@pytest.fixture(autouse=True)
def _fresh_prices(monkeypatch: pytest.MonkeyPatch) -> None:
    """The packaged model registry only: no $RAGKIT_MODELS_FILE, no prices registered by an earlier
    test (a pipeline's ``pricing:`` registers process-wide), every unpriced-model warning given anew."""
    from ragkit import pricing

    monkeypatch.delenv(pricing.ENV_VAR, raising=False)
    pricing.reload()
    yield
    pricing.reload()


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def msmarco_dir() -> Path:
    d = SHARED / "datasets" / "msmarco-5k"
    if not d.is_dir():
        pytest.skip(f"the shared msmarco-5k dataset is not at {d} (only present beside the repo on dev/CI machines)")
    return d
