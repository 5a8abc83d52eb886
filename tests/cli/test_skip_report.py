"""Skips are grouped by reason (one line each, a count and examples); a run that indexes nothing exits 1."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ragkit.cli.main import cli
from ragkit.index.report import group_skips

from ..unit.pipeline.helpers import write_cli_pipeline


def invoke(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return res.exit_code, res.stdout, res.stderr


def add_bad_files(docs: Path) -> None:
    (docs / "bins").mkdir()
    for i in range(76):
        (docs / "bins" / f"blob{i:02d}.txt").write_bytes(b"\x00\x01" * 40)
    for i, offset in enumerate((5, 17)):
        (docs / f"latin{i}.txt").write_bytes(b"x" * offset + "caf\u00e9".encode("latin-1"))


def test_skips_are_one_line_per_reason_in_the_report_and_in_status(tmp_path: Path) -> None:
    docs, pipe = write_cli_pipeline(tmp_path)
    add_bad_files(docs)
    code, out, _ = invoke("index", str(docs), "--pipeline", str(pipe))
    assert code == 0  # three files were indexed
    lines = out[out.index("skipped files"):].splitlines()
    assert lines[0] == "skipped files: 78 (2 reasons)"
    assert lines[1].startswith("  76 files: binary file (NUL bytes, and not UTF-16 or UTF-32 text), not text;")
    assert lines[1].endswith("(bins/blob00.txt, bins/blob01.txt, bins/blob02.txt and 73 more)")
    assert lines[2].startswith("  2 files: not valid UTF-8 text (undecodable byte 0xe9 at byte offset …);")
    assert lines[2].endswith("(latin0.txt, latin1.txt)")
    assert len(out) < 2500  # not 76 copies of a long reason
    code, out, _ = invoke("status", "--index", str(tmp_path / "index"))
    assert code == 0 and out.count("binary file") == 1 and "76 files: binary file" in out
    assert "sources: 3 indexed, 78 skipped" in out
    code, out, _ = invoke("status", "--index", str(tmp_path / "index"), "--json")
    groups = json.loads(out)["skipped_groups"]
    assert [(g["count"], len(g["examples"])) for g in groups] == [(76, 3), (2, 2)]
    code, out, _ = invoke("index", str(docs), "--pipeline", str(pipe), "--json")
    report = json.loads(out)
    assert len(report["skipped"]) == 78 and [g["count"] for g in report["skipped_groups"]] == [76, 2]


def test_a_run_where_every_file_is_skipped_exits_1(tmp_path: Path) -> None:
    docs, pipe = write_cli_pipeline(tmp_path)
    for f in list(docs.rglob("*.*")):
        f.write_bytes(b"\x00" * 10)
    code, out, err = invoke("index", str(docs), "--pipeline", str(pipe))
    assert code == 1 and "3 files: binary file" in out
    assert "nothing could be indexed: all 3 files were skipped" in err
    code, out, err = invoke("index", str(docs), "--pipeline", str(pipe), "--json")
    assert code == 1 and len(json.loads(out)["skipped"]) == 3  # skipped again (same content): still nothing
    (docs / "good.md").write_text("# Good\n\nA readable file.\n", encoding="utf-8")
    code, _, err = invoke("index", str(docs), "--pipeline", str(pipe))
    assert code == 0 and "nothing could be indexed" not in err


def test_group_skips_keeps_distinct_reasons_apart() -> None:
    groups = group_skips([("a.pdf", "encrypted PDF"), ("b.csv", "malformed CSV at line 3"),
                          ("c.csv", "malformed CSV at line 9"), ("d.pdf", "encrypted PDF")])
    assert [(g.count, g.reason, g.examples) for g in groups] == [
        (2, "encrypted PDF", ("a.pdf", "d.pdf")), (2, "malformed CSV at line …", ("b.csv", "c.csv"))]
