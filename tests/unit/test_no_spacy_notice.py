"""A run that needs no `unstructured` never imports it, so spaCy's notice never appears."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .pipeline.helpers import write_tree

pytest.importorskip("unstructured")  # the notice can only appear where unstructured is installed

NOTEBOOK = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
    {"cell_type": "markdown", "metadata": {}, "source": "# Births\n\nBirths per day."},
    {"cell_type": "code", "metadata": {}, "source": "births.plot()", "outputs": [], "execution_count": 1},
]}

RUN = """
import json, logging, sys
logging.basicConfig(level=logging.INFO)
from ragkit.config import parse_pipeline
from ragkit.index.writer import IndexingPipeline
spec = parse_pipeline({"index": sys.argv[2], "embedder": {"type": "hashing", "dimension": 32},
                       "store": {"type": "memory"}, "retriever": {"type": "dense"}}, origin="t.yaml")
report = IndexingPipeline(spec).index_paths([sys.argv[1]])
print(json.dumps({"skipped": report.skipped, "added": sorted(report.added),
                  "imported": sorted(m for m in ("unstructured", "spacy") if m in sys.modules)}))
"""


def test_a_folder_of_native_formats_never_imports_unstructured(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs", {
        "guide.md": "# Guide\n\nRead this first.\n",
        "config.rst": "Config\n======\n\n.. py:data:: DEBUG\n\n   Debug mode.\n",
        "analysis.ipynb": json.dumps(NOTEBOOK),
        "data/births.csv": "year,births\n1969,4000\n",
        "scripts/plot.py": "import matplotlib\n# plot the births\n",
        "settings.yaml": "debug: true\n",
        "data/meta.json": '{"source": "CDC"}\n',
        "LICENSE": "MIT License\n",
    })
    done = subprocess.run([sys.executable, "-c", RUN, str(docs), str(tmp_path / "index")], capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
                          timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["skipped"] == [] and len(result["added"]) == 8
    assert result["imported"] == []
    assert "spacy" not in done.stderr.lower() and "unstructured" not in done.stderr.lower()
