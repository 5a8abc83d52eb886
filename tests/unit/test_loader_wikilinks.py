"""Wiki links (an Obsidian vault's, a GitHub wiki's ``[[…]]``) read as the text they show: a
folder path never reaches a sentence, code keeps its brackets, a broken link stays text."""

from __future__ import annotations

from pathlib import Path

from ragkit.loaders.wikilinks import MAX_LINK_CHARS, render_wikilinks
from ragkit.registry import loaders

NOTE = """\
---
aliases: [Bailing]
tags: [rules/flood]
---
## Bailing

When the tide reaches your deck, you fall [[Rules/Crew/Conditions/Soaked|soaked]] and can only \
[[Rules/Actions/Bail]]. Roll a d20: on 14+ you keep the ship afloat (see [[Tide-Marker#Rising]] and \
[[#Bailing]]).

![[diagrams/bailing.png]]

Inline code keeps its brackets: `[[bin]]`.

```toml
[[crew]]
name = "Orla"
```

## Index
- [[Rules/Index|Index of rules]]
- [[Tide-Marker#^a1b2c3]]
"""


def test_links_read_as_the_text_they_show(tmp_path: Path) -> None:
    path = tmp_path / "Bailing.md"
    path.write_text(NOTE, encoding="utf-8")
    (doc,) = loaders.get("markdown")().load(path, source="Bailing.md")
    assert "you fall soaked and can only Bail. Roll a d20" in doc.text
    assert "(see Tide-Marker > Rising and Bailing)" in doc.text
    assert "bailing.png" not in doc.text and "Rules/" not in doc.text
    assert "`[[bin]]`" in doc.text and "[[crew]]" in doc.text  # code as written
    assert "- Index of rules\n- Tide-Marker\n" in doc.text


def test_what_is_no_link_stays_as_written() -> None:
    assert render_wikilinks("a [[ lone bracket pair") == "a [[ lone bracket pair"
    assert render_wikilinks("escaped \\[[Note]] stays") == "escaped \\[[Note]] stays"
    long = "[[" + "x" * (MAX_LINK_CHARS + 1) + "]]"
    assert render_wikilinks(long) == long
    assert render_wikilinks("[[Note.md]] and [[Guide|]]") == "Note and Guide"


def test_hostile_runs_of_brackets_are_read_in_one_pass() -> None:
    for text in ("[[" * 200_000 + "a|" * 50_000, "[[a" + "|b" * 200_000, "`" * 100_000 + "[[a]]", "[[a]" * 100_000):
        # the link's parts are bounded and a line is read once: a quadratic pattern would take minutes
        assert len(render_wikilinks(text)) <= len(text)
