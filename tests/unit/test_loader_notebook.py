"""The notebook loader: cells as Markdown and code, outputs optional, images never, cell numbers cited."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ragkit.cli.main import cli
from ragkit.errors import ConfigError, LoaderError
from ragkit.loaders.base import loader_name_for
from ragkit.registry import loaders, splitters
from ragkit.types import Document

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk" + "A" * 400


def cell(kind: str, source: Any, **extra: Any) -> dict[str, Any]:
    return {"cell_type": kind, "metadata": {}, "source": source, **extra}


def notebook_json(cells: list[dict[str, Any]], **meta: Any) -> dict[str, Any]:
    return {"nbformat": 4, "nbformat_minor": 5, "cells": cells,
            "metadata": {"kernelspec": {"name": "python3", "language": "python"}, **meta}}


CELLS = [
    cell("markdown", ["# US Births\n", "\n", "The births data set counts births per day since 1969."]),
    cell("code", "# load the table\nimport pandas as pd\nbirths = pd.read_csv('births.csv')\nprint(len(births))",
         execution_count=1, outputs=[
             {"output_type": "stream", "name": "stdout", "text": ["15547\n"]},
             {"output_type": "stream", "name": "stderr", "text": "DeprecationWarning: noisy\n"},
         ]),
    cell("markdown", "## Weekday effect\n\nFewer babies are born on weekends, because induced labour is scheduled."),
    cell("code", "births.plot()", execution_count=2, outputs=[
        {"output_type": "display_data", "metadata": {},
         "data": {"image/png": PNG, "text/plain": ["<Figure size 640x480 with 1 Axes>"]}},
        {"output_type": "execute_result", "execution_count": 2, "metadata": {},
         "data": {"text/html": ["<div><table><tr><td>secret-html</td></tr></table></div>"],
                  "text/plain": ["dow  births\n", "Mon    5120"]}},
        {"output_type": "error", "ename": "KeyError", "evalue": "'x'",
         "traceback": ["\x1b[0;31mKeyError\x1b[0m: 'x'"]},
    ]),
    cell("raw", "raw nbconvert text"),
    cell("markdown", "### Holidays\n\nBirths drop sharply on the Fourth of July and at Christmas."),
]


def write(tmp_path: Path, data: Any, name: str = "births.ipynb") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def load(path: Path, **options: Any) -> Document:
    docs = list(loaders.get("notebook")(**options).load(path, source=path.name))
    assert len(docs) == 1
    return docs[0]


def test_ipynb_goes_to_the_notebook_loader() -> None:
    assert loader_name_for(Path("a/Analysis.IPYNB")) == "notebook"


def test_cells_become_markdown_and_fenced_code(tmp_path: Path) -> None:
    doc = load(write(tmp_path, notebook_json(CELLS)))
    text = doc.text
    assert text.startswith("# US Births\n\nThe births data set counts births per day since 1969.")
    assert "```python\n# load the table\nimport pandas as pd" in text
    assert "```text\n15547\n```" in text  # stdout
    assert "```text\ndow  births\nMon    5120\n```" in text  # the text form of an HTML table
    assert doc.metadata["title"] == "US Births" and doc.metadata["mime"] == "application/x-ipynb+json"


def test_images_html_errors_stderr_and_raw_cells_are_never_indexed(tmp_path: Path) -> None:
    text = load(write(tmp_path, notebook_json(CELLS))).text
    for absent in ("iVBOR", "Figure size", "secret-html", "<table", "KeyError", "\x1b", "DeprecationWarning",
                   "raw nbconvert"):
        assert absent not in text, absent


def test_outputs_are_optional_and_long_ones_are_cut(tmp_path: Path) -> None:
    path = write(tmp_path, notebook_json(CELLS))
    without = load(path, include_outputs=False).text
    assert "15547" not in without and "Mon    5120" not in without and "import pandas" in without
    long = notebook_json([cell("code", "print(x)", outputs=[{"output_type": "stream", "name": "stdout",
                                                             "text": "row of data\n" * 500}])])
    cut = load(write(tmp_path, long, "long.ipynb"), max_output_chars=120).text
    assert cut.count("row of data") == 10 and "(output cut)" in cut
    with pytest.raises(ConfigError, match="include_outputs"):
        loaders.get("notebook")(include_outputs="yes")
    with pytest.raises(ConfigError, match="max_output_chars"):
        loaders.get("notebook")(max_output_chars=0)


def test_headings_are_the_path_and_the_cell_number_is_the_page(tmp_path: Path) -> None:
    doc = load(write(tmp_path, notebook_json(CELLS)))
    chunks = splitters.get("markdown")(chunk_size=80, chunk_overlap=0, unit="chars").split(doc)

    def chunk(words: str):  # type: ignore[no-untyped-def]
        return next(c for c in chunks if words in c.text)

    assert chunk("since 1969").metadata["page"] == 1
    assert chunk("import pandas").metadata["page"] == 2
    assert chunk("# load the table").metadata["heading"] == "US Births"  # a comment in code is no heading
    assert chunk("Fewer babies").metadata["page"] == 3
    assert chunk("Fewer babies").metadata["heading"] == "US Births > Weekday effect"
    assert chunk("Fourth of July").metadata["page"] == 6  # every cell counts, the raw one too
    assert chunk("Fourth of July").metadata["heading"] == "US Births > Weekday effect > Holidays"
    assert all("page_offsets" not in c.metadata for c in chunks)
    assert all(doc.text[c.start:c.end] == c.text for c in chunks)
    assert len({c.id for c in chunks}) == len(chunks)


def test_nbformat_3_and_bad_notebooks(tmp_path: Path) -> None:
    v3 = {"nbformat": 3, "metadata": {"name": "old"}, "worksheets": [{"cells": [
        {"cell_type": "heading", "level": 1, "source": "Old notebook"},
        {"cell_type": "code", "language": "python", "input": ["x = 1\n", "print(x)"],
         "outputs": [{"output_type": "stream", "stream": "stdout", "text": "1\n"}]},
        {"cell_type": "markdown", "source": "Plain words."},
    ]}]}
    text = load(write(tmp_path, v3, "old.ipynb")).text
    assert text.startswith("# Old notebook") and "x = 1\nprint(x)" in text and "Plain words." in text
    for name, content, match in [
        ("broken.ipynb", '{"cells": [', "malformed JSON"),
        ("list.ipynb", "[1, 2]", "not a Jupyter notebook"),
        ("nocells.ipynb", notebook_json([cell("code", ""), cell("markdown", "  ")]), "no text"),
    ]:
        path = write(tmp_path, content, name)
        with pytest.raises(LoaderError, match=match) as info:
            load(path)
        assert str(path) in str(info.value)


def test_a_markdown_cell_is_found_by_its_words_and_cited_by_cell(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    write(docs, notebook_json(CELLS))
    (docs / "other.md").write_text("# Ferries\n\nThe ferry leaves the harbour at noon.\n", encoding="utf-8")
    pipe = tmp_path / "pipe.yaml"
    pipe.write_text(json.dumps({"index": str(tmp_path / "index"), "embedder": {"type": "hashing", "dimension": 64},
                                "store": {"type": "faiss", "index": "flat"}}), encoding="utf-8")
    run = CliRunner().invoke(cli, ["index", str(docs), "--pipeline", str(pipe), "--json"], catch_exceptions=False)
    assert run.exit_code == 0 and json.loads(run.stdout)["skipped"] == []
    run = CliRunner().invoke(cli, ["search", "babies born on weekends induced labour", "--index",
                                   str(tmp_path / "index"), "-k", "1", "--json"])
    hit = json.loads(run.stdout)[0]
    assert hit["source"] == "births.ipynb" and hit["page"] == 3 and "Fewer babies" in hit["text"]
    assert hit["heading"] == "US Births > Weekday effect"
    run = CliRunner().invoke(cli, ["search", "babies born on weekends", "--index", str(tmp_path / "index"), "-k", "1"])
    assert "births.ipynb" in run.stdout and "cell 3" in run.stdout


def test_an_answer_cites_a_notebook_by_cell_not_page(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    write(docs, notebook_json(CELLS))
    pipe = tmp_path / "pipe.yaml"
    pipe.write_text(json.dumps({"index": str(tmp_path / "index"), "embedder": {"type": "hashing", "dimension": 64},
                                "store": {"type": "faiss", "index": "flat"}}), encoding="utf-8")
    assert CliRunner().invoke(cli, ["index", str(docs), "--pipeline", str(pipe)]).exit_code == 0
    run = CliRunner().invoke(cli, ["ask", "Why are fewer babies born on weekends?", "--index",
                                   str(tmp_path / "index"), "--provider", "local", "--json"])
    assert run.exit_code == 0, run.output
    cited = json.loads(run.stdout)["citations"]
    assert cited and all(c["page_unit"] == "cell" for c in cited if c["source"] == "births.ipynb")
    run = CliRunner().invoke(cli, ["ask", "Why are fewer babies born on weekends?", "--index",
                                   str(tmp_path / "index"), "--provider", "local"])
    assert "births.ipynb, cell " in run.stdout and "births.ipynb, page" not in run.stdout
