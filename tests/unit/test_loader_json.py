"""The JSON loader writes a record's values out as a reader says them: short fields as ``name:
value`` items, long texts as paragraphs their names lead, nested objects as sections under their names; a file it cannot or
should not parse is read as the text loader reads it. Each file is written for the test, in the
shape of a talk record whose answers came quoted with their braces and quotes."""

from __future__ import annotations

import json
from pathlib import Path

from ragkit.loaders.base import loader_name_for
from ragkit.loaders.json_document import MAX_DEPTH, JsonLoader
from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage

TALK = {
    "category": "HarbourConf 2024",
    "copyright_text": None,
    "description": "Tide gauges log the sea level every six minutes.\n\nWe show how to read them with a few "
                   "lines of code and how to plot a month of tides.",
    "duration": 1544,
    "language": "eng",
    "recorded": "2024-08-03",
    "related_urls": [{"label": "Talk schedule", "url": "https://example.org/talks/reading-tide-gauges-with-python"}],
    "speakers": ["Ada Quill", "Tom Reed"],
    "tags": [],
    "title": "Reading tide gauges with Python",
}


def _load(tmp_path: Path, name: str, text: str) -> tuple[str, dict]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    (doc,) = JsonLoader().load(path, source=name)
    return doc.text, dict(doc.metadata)


def test_a_record_is_written_out_as_fields_and_sections(tmp_path: Path) -> None:
    text, meta = _load(tmp_path, "tides.json", json.dumps(TALK, indent=2))
    assert loader_name_for(tmp_path / "tides.json") == "json"
    assert meta["title"] == "Reading tide gauges with Python"
    assert meta["markup"] == "markdown"  # split as Markdown: its chunks carry the record's heading path
    lines = text.splitlines()
    assert lines[0] == "# Reading tide gauges with Python"  # the fields below are about it
    assert "- speakers: Ada Quill, Tom Reed" in lines  # a list of short values joined
    assert "related urls" in text and "copyright text" not in text  # a name's underscores; no empty field
    assert "tags:" not in text
    # a long text is a paragraph its name leads: its sentences stay sentences, under the talk's title
    assert "description:" in lines and "Tide gauges log the sea level every six minutes." in lines
    assert "- label: Talk schedule" in lines  # a list of objects: each a paragraph of items
    assert '"' not in text and "{" not in text


def test_the_speakers_of_a_record_answer_who_gave_the_talk(tmp_path: Path) -> None:
    """Read as text, the answer was the JSON around the names ("speakers": [ "Ada Quill", …); the
    speakers are under the talk's title, and the address that spells the title out is no sentence
    about it (its words are a path's)."""
    text, meta = _load(tmp_path, "tides.json", json.dumps(TALK, indent=2))
    answer = extractive_answer("Who presented the talk on reading tide gauges with Python?",
                               [Passage(1, text, {"source": "tides.json", "title": meta["title"]})])
    assert "Ada Quill, Tom Reed" in answer and '"' not in answer


def test_a_list_at_the_top_is_its_items_and_scalars_are_items(tmp_path: Path) -> None:
    text, _ = _load(tmp_path, "list.json", json.dumps([{"name": "gauge", "unit": "m"}, {"name": "buoy"}, "spare"]))
    assert text.splitlines()[:3] == ["## gauge", "", "- unit: m"]  # each record under its name
    assert "## buoy" in text.splitlines() and "- spare" in text


def test_malformed_deep_or_large_json_is_read_as_text(tmp_path: Path) -> None:
    broken = '{"title": "unterminated'
    assert _load(tmp_path, "broken.json", broken)[0] == broken
    assert "markup" not in _load(tmp_path, "broken.json", broken)[1]  # text, not Markdown
    deep = "[" * (MAX_DEPTH + 5) + "1" + "]" * (MAX_DEPTH + 5)
    assert _load(tmp_path, "deep.json", deep)[0] == deep
    very_deep = "[" * 100_000 + "]" * 100_000  # the parser's own recursion bound
    assert _load(tmp_path, "very-deep.json", very_deep)[0] == very_deep
