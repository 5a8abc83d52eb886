"""The scaling guide's one-machine cluster commands are the ones the multi-node tests run
(``ragkit.testing.ray_cluster`` builds both), and its tables come from result files."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from ragkit.testing.ray_cluster import head_command, node_command

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "scaling.md"


def test_the_guide_shows_the_commands_the_tests_run() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    head = head_command(port=6379, num_cpus=0, temp_dir=Path("/tmp/ray-head"), dashboard_port=8265, client_port=10001)
    assert shlex.join(head) in text
    for name in ("w1", "w2"):
        node = node_command(address="HEAD_IP:6379", num_cpus=1, temp_dir=Path(f"/tmp/ray-{name}"), name=name)
        assert shlex.join(node) in text


def test_the_guide_has_no_hand_written_result_table() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    assert not re.search(r"^\s*\|", text, re.MULTILINE), "a table in docs/scaling.md: put it in benchmarks/results/"
    for name in re.findall(r"<!-- benchmark: ([\w.-]+) -->", text):
        assert (ROOT / "benchmarks" / "results" / f"{name}.json").is_file(), name


def test_the_guide_shows_the_run_reports_ray_line() -> None:
    from ragkit.index.report import IndexReport

    report = IndexReport(ray_nodes={"77506fdd9b26659": 5, "5f4ddc2f6cd7b61": 7})
    line = report.ray_line()
    assert line == "ray: 12 batches on 2 node(s) (5f4ddc2f 7, 77506fdd 5)"
    assert line in report.summary_lines() and line in GUIDE.read_text(encoding="utf-8")
    report.ray_reshipped = 6
    assert report.ray_line().endswith("; 6 source(s) shipped again after lost work")
