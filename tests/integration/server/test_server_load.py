"""A short correctness run of benchmarks/server_load.py: 20 concurrent streaming clients against
2 workers and the echo LLM all finish, with no cross-talk between sessions (no timing asserted)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.network_local]
BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"


def test_twenty_streaming_clients_two_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    sys.modules.pop("server_load", None)
    import server_load

    result = server_load.run(clients=20, workers=2, rounds=1, delay=0.005, root=tmp_path)
    samples = result["samples"]
    assert len(samples["server"]) == len(samples["in_process"]) == 20
    assert result["all_finished"] and result["no_cross_talk"]
    assert sorted(s["client"] for s in samples["server"]) == list(range(20))
    assert all(s["ttft"] <= s["total"] for s in samples["server"])
    assert "TTFT p95 ms" in server_load.report(result)
