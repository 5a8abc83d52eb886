"""A Hugo site's Markdown: shortcodes read as the text a page shows of them, never quoted with
their image paths and parameters."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.loaders.hugo_shortcodes import render_shortcodes
from ragkit.rag.extractive import extractive_answer
from ragkit.registry import loaders
from tests.unit.markdown_passages import markdown_passages

PAGE = """\
---
title: Gauge blocks
---

## Block a gauge {#create}

{{< hint style="warning" >}}
Blocking a gauge stops its readings from reaching the public feed.
{{< /hint >}}

##### Form data parameters

gauge
: {{<required>}} String. The station code of the gauge to block.

severity
: String. Whether to apply a `mute`, `hide`, or `drop` to the gauge's readings. Defaults to `mute`

obfuscate
: Boolean. Whether to partially censor the station code when the block list is published. Defaults to false

reason
: String. A note for other moderators on why the gauge is blocked.

See [the gauge entity]({{< relref "entities/gauge.md" >}}) for its fields.

{{< figure src="/img/block.png" title="The block form in the admin panel" >}}

## Lift a block {#delete}

### `expires_at` {{%nullable%}} {#expires_at}

When the block ends on its own, in ISO 8601; a block without it lasts until it is lifted.

```go-html-template
{{< figure src="/img/in-code.png" >}}
```

Write `{{< figure >}}` in a page, or {{</* figure src="a.png" */>}} to show the tag itself.
"""


def _read(tmp_path: Path) -> str:
    path = tmp_path / "gauge_blocks.md"
    path.write_text(PAGE, encoding="utf-8")
    (doc,) = loaders.get("markdown")().load(path, source="gauge_blocks.md")
    return doc.text


def test_shortcodes_read_as_the_text_a_page_shows(tmp_path: Path) -> None:
    text = _read(tmp_path)
    assert "The block form in the admin panel" in text  # a figure's title, not its image path
    assert "/img/block.png" not in text and "entities/gauge.md" not in text and "warning" not in text
    assert "Blocking a gauge stops" in text  # a paired shortcode's content stays
    assert "### `expires_at` nullable\n" in text  # a badge shows its name
    assert '{{< figure src="/img/in-code.png" >}}' in text  # fenced code as written
    assert "Write `{{< figure >}}` in a page" in text  # a code span as written
    assert '{{< figure src="a.png" >}} to show' in text  # an escaped tag shows as the tag


@pytest.mark.parametrize(("text", "read"), [
    ('{{< collapsible "Golang" >}}\nfmt.Println()\n{{< /collapsible >}}\n', "Golang\nfmt.Println()\n\n"),
    ('{{% alert title="Warning" color="warning" %}}\nBack up first.\n{{% /alert %}}\n', "Warning\nBack up first.\n\n"),
    ('{{< provider name="Tide Store" home="https://example.org/" config="/tide/#setup" >}}\n', "Tide Store\n"),
    ("Gauge v{{< current-version >}} adds it.\n", "Gauge vcurrent version adds it.\n"),
    ("{{< gauge-list >}}\n", "\n"),  # generated content alone on its line: nothing
    ("| {{< download linux amd64 >}} | x |\n", "|  | x |\n"),
    ("{{< figure src=a.png >}} and {{% x >}}\n", " and {{% x >}}\n"),  # mismatched brackets are no tag
    ("{{< unclosed\n", "{{< unclosed\n"),
    ("a \x0012\x00 {{</* x */>}}\n", "a \x0012\x00 {{< x >}}\n"),  # text that looks like nothing special stays
])
def test_shortcode_shapes(text: str, read: str) -> None:
    assert render_shortcodes(text) == read


def test_an_answer_quotes_no_shortcode(tmp_path: Path) -> None:
    passages = markdown_passages(_read(tmp_path), "gauge_blocks.md")
    answer = extractive_answer("Is the station code required when blocking a gauge?", passages)
    assert "required String. The station code of the gauge to block." in answer
    assert "{{" not in answer
