"""Markdown as the page shows it: a heading's glued anchor id (Hugging Face's doc-builder writes
``## Setup[[setup]]``) is no part of its heading, a GitHub alert's ``[!NOTE]`` is a label, and a
character reference (``&#39;``) is the character it names, outside code."""

from __future__ import annotations

from pathlib import Path

from ragkit.loaders.markdown_html import character_references
from ragkit.loaders.mdx import render_alerts
from ragkit.registry import loaders, splitters
from ragkit.types import Document
from tests.unit.linear_time import assert_linear

PAGE = """\
# Ferry crossings[[ferry-crossings]]

The harbour&#39;s night ferry leaves at 22:10 from pier&nbsp;4 &mdash; bring a &quot;blue&quot; ticket.

## Storm days[[storm-days]]

> [!WARNING]
> Crossings stop when the wind passes force 8.

Keep `&amp;` and &lt;b&gt; and &#35;3 as written; R&amp;D leads the crew.

```text
pier&#39;s log [[not-a-heading]]
```

    indented code &amp; stays

## See [[Tide tables]]
"""


def load(tmp_path: Path, name: str = "ferry.md", text: str = PAGE) -> Document:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    (doc,) = loaders.get("markdown")().load(path, source=name)
    return doc


def test_a_glued_anchor_id_is_no_part_of_the_heading(tmp_path: Path) -> None:
    doc = load(tmp_path, "ferry.mdx")
    assert doc.metadata["title"] == "Ferry crossings"
    chunks = splitters.get("markdown")(chunk_size=200, chunk_overlap=0, unit="chars").split(doc)
    storm = next(c for c in chunks if "force 8" in c.text)
    assert storm.metadata["heading"] == "Ferry crossings > Storm days"
    assert "storm-days" not in doc.text and "ferry-crossings" not in doc.text
    assert "## See Tide tables" in doc.text  # a wiki link after a space is a link, read as its text
    assert "pier&#39;s log [[not-a-heading]]" in doc.text  # code is code


def test_a_github_alert_reads_as_its_label(tmp_path: Path) -> None:
    assert "> Warning:\n> Crossings stop when the wind passes force 8." in load(tmp_path).text
    text = render_alerts("> [!TIP]\n> Ask at the kiosk.\n\n```md\n> [!NOTE]\n```\n> [!RUMOUR]\n")
    assert text == "> Tip:\n> Ask at the kiosk.\n\n```md\n> [!NOTE]\n```\n> [!RUMOUR]\n"  # code, unknown kinds stay


def test_character_references_read_as_their_characters_outside_code(tmp_path: Path) -> None:
    text = load(tmp_path).text
    assert "The harbour's night ferry leaves at 22:10 from pier 4 — bring a \"blue\" ticket." in text
    assert "Keep `&amp;` and &lt;b&gt; and &#35;3 as written; R&D leads the crew." in text
    assert "    indented code &amp; stays" in text
    # no ";" (a URL's query), unknown names, invalid and control code points stay as written
    assert character_references("?a=1&para=2 &harbour; &#0; &#7;\n") == "?a=1&para=2 &harbour; &#0; &#7;\n"
    assert character_references("&amp;lt; &#x1F6A2;\n") == "&lt; \U0001f6a2\n"  # read once


def test_hostile_references_and_headings_read_in_linear_time(tmp_path: Path) -> None:
    assert_linear(character_references, lambda k: "&#39;`x` &amp" * k + "\n", 40_000)
    assert_linear(character_references, lambda k: "&" * k + ";\n", 200_000)
    assert_linear(render_alerts, lambda k: "> [!NOTE]\n" * k, 40_000)
    reader = loaders.get("markdown")()

    def read(text: str) -> object:
        path = tmp_path / "h.md"
        path.write_text(text, encoding="utf-8")
        return list(reader.load(path, source="h.md"))

    assert_linear(read, lambda k: "# " + "[[a]]" * k + "[[b]]\n", 20_000)
