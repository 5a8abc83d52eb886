"""MyST Markdown: roles and directive fences read as the text they stand for; plain Markdown,
code and Quarto chunks stay as written."""

from __future__ import annotations

from pathlib import Path

from ragkit.loaders.myst import has_myst, render_myst
from ragkit.loaders.rst import rst_to_markdown
from ragkit.registry import loaders, splitters

GUIDE = """\
(lighthouse-guide)=
# Keeping the lamp

Call {func}`~beacon.lamp.ignite` before dusk and read {ref}`the logbook rules <logbook>`.
The {class}`beacon.Lens` turns; `{not_a_role}` stays as code.

```{note}
The lens must be cleaned every Tuesday.
```

:::{warning}
Never look into the lamp.
:::

```{code-block} python
:caption: setup.py
lamp = ignite(hours=3)
```

```{contents}
---
depth: 2
local: true
---
```

```{toctree}
:maxdepth: 1

winter
summer
```

```{eval-rst}
.. versionadded:: 2.1
   The :class:`Foghorn` sounds at :data:`FOG_LEVEL`.
```

```{beacon:example}
import beacon

@beacon.command()
def flash(times):
    beacon.blink(times)
```

```js
const line = `lamp ${name}` + {x}`y`;
```
"""


def test_roles_become_their_text_and_code_spans_keep_braces() -> None:
    text = render_myst(GUIDE)
    assert "Call `ignite()` before dusk and read the logbook rules." in text
    assert "The `beacon.Lens` turns; `{not_a_role}` stays as code." in text
    assert "{func}" not in text and "{class}" not in text and "(lighthouse-guide)=" not in text


def test_directives_give_their_content_or_nothing() -> None:
    text = render_myst(GUIDE)
    assert "Note:\nThe lens must be cleaned every Tuesday." in text
    assert "Warning:\nNever look into the lamp." in text
    assert "```python\nlamp = ignite(hours=3)\n```" in text
    assert "caption" not in text and "depth: 2" not in text and "maxdepth" not in text
    assert "winter" not in text  # the toctree's entries are navigation, not text
    assert "New in version 2.1: The `Foghorn` sounds at `FOG_LEVEL`." in " ".join(text.split())


def test_a_project_example_directive_with_code_stays_code() -> None:
    text = render_myst(GUIDE)
    assert "```\nimport beacon\n\n@beacon.command()\ndef flash(times):\n    beacon.blink(times)\n```" in text


def test_code_fences_and_quarto_chunks_are_left_as_written() -> None:
    assert "const line = `lamp ${name}` + {x}`y`;" in render_myst(GUIDE)
    chunk = "Intro {func}`f`.\n\n```{python}\nx = {a}`b`\n```\n"
    assert render_myst(chunk) == "Intro `f()`.\n\n```python\nx = {a}`b`\n```\n"


def test_plain_markdown_is_untouched() -> None:
    assert not has_myst("# Title\n\nA set {1, 2} and a {brace} word.\n")
    plain = "# Title\n\nA set {1, 2} and `code {x}` and ```\n{weird}\n```\n"
    assert render_myst(plain) == plain


def test_the_markdown_loader_reads_myst(tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_text(GUIDE, encoding="utf-8")
    (doc,) = loaders.get("markdown")().load(path, source="guide.md")
    assert doc.metadata["title"] == "Keeping the lamp"
    assert "{func}" not in doc.text and "{note}" not in doc.text and "Note:" in doc.text


def test_rst_example_directive_written_without_a_blank_line_is_code() -> None:
    # docutils reads code that follows the marker without a blank line as the directive's argument
    text, _ = rst_to_markdown("Intro.\n\n.. beacon:example::\n    import beacon\n\n    beacon.blink(3)\n\nAfter.\n")
    assert "# import beacon" not in text
    assert "```\nimport beacon\nbeacon.blink(3)\n```" in text


def test_rst_object_descriptions_still_describe() -> None:
    text, _ = rst_to_markdown("Intro.\n\n.. py:function:: blink(times)\n\n   Flashes the lamp ``times`` times.\n")
    assert "blink" in text and "Flashes the lamp `times` times." in " ".join(text.split())
    assert "```" not in text


def test_html_headings_in_markdown_become_headings(tmp_path: Path) -> None:
    from ragkit.loaders.markdown_html import html_headings

    faq = (
        '<h1 align="center"><img src="logo.png"></h1>\n\n## FAQ\n\n<h3 name="keeper">\nWho keeps the &amp; lamp?\n</h3>\n\n'
        "The keeper's daughter.\n\n```html\n<h2>code, not a heading</h2>\n```\n"
    )
    text = html_headings(faq)
    assert "### Who keeps the & lamp?\n\nThe keeper's daughter." in text
    assert "<h2>code, not a heading</h2>" in text and "<img" not in text
    path = tmp_path / "FAQ.md"
    path.write_text(faq, encoding="utf-8")
    (doc,) = loaders.get("markdown")().load(path, source="FAQ.md")
    chunks = splitters.get("markdown")(chunk_size=200, chunk_overlap=0, unit="chars").split(doc)
    answer = next(c for c in chunks if "daughter" in c.text)
    assert answer.metadata["heading"] == "FAQ > Who keeps the & lamp?"


def test_hostile_fences_cost_lines_not_lines_squared() -> None:
    from ragkit.loaders.markdown_html import html_headings

    unclosed = "\n".join(f"{'`' * (3 + n % 50)}{{note}}" for n in range(20_000))
    assert render_myst(unclosed).count("{note}") > 19_000  # nested past MAX_DEPTH: kept as written
    ladder = "\n".join("`" * (3_003 - n) for n in range(3_000)) + "\n<h2>Kept</h2>\n"
    assert html_headings(ladder).endswith("<h2>Kept</h2>\n")  # inside the first, never closed, fence
    assert html_headings("<h2>Not closed\n\n\n\n\n\n\n\ntext</h2>").startswith("<h2>Not closed")


def test_object_options_sphinx_shows_and_authors_stay_as_text() -> None:
    text = render_myst(
        "# Ferry settings\n\n```{confval} ferry_days\n:type: list\n:default: {code}`['Tue', 'Fri']`\n"
        ":no-index:\n\nThe days the ferry sails.\n```\n\n"
        ":::{py:attribute} Ferry.seats\n---\ntype: int\nvalue: 40\n---\nSeats on deck.\n:::\n\n"
        "```{sectionauthor} Dee Wharf <dee@wharf.example>\n```\n"
    )
    assert "`ferry_days`\nType: list\nDefault: `['Tue', 'Fri']`\n\nThe days the ferry sails." in text
    assert "`Ferry.seats`\nType: int\nValue: 40\nSeats on deck." in text
    assert "Section author: Dee Wharf" in text
    assert "no-index" not in text and "@" not in text
