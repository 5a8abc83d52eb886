"""MDX pages read as the Markdown they show: front matter is metadata, imports, exports, JSX
components and comments leave (their text children stay), code stays code, ``:::`` admonitions
become their label and text."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.errors import LoaderError
from ragkit.loaders.base import loader_name_for
from ragkit.loaders.mdx import MAX_DEPTH, render_admonitions, render_mdx
from ragkit.registry import loaders, splitters
from ragkit.types import Document

PAGE = """\
---
title: Keeping the lamp
sidebar_position: 3
---
import Tabs from '@theme/Tabs'
import {
  Wick,
  Lens,
} from '../components/lamp'

export const meta = {
  keeper: 'Orla',
}

{/* editors: keep this page short
   and check the oil table */}

## Lighting

The lamp is lit at dusk.{" "}<Badge kind="new">Since 1871</Badge> Call `<Lamp on />` to light it.

<Playground id="lamp-demo" file="src%2FLamp.tsx" />

<Sandbox
  id="oil-table"
  options={{ theme: 'dark', ready: (x) => x > 1 }}
/>

## Trimming the wick

:::caution Outdated
Trimming with a knife is no longer advised.
:::

:::tip
Keep spare wicks dry.
:::

<Tabs>
  <TabItem value="brass" label="Brass lamp">

    Polish the brass every Sunday.

    ```bash
    polish --brass
    ```

  </TabItem>
  <TabItem value="iron" label="Iron lamp">
    Oil the iron hinges monthly.
  </TabItem>
</Tabs>

```jsx
import { Lamp } from 'harbour-lamp'
export const App = () => <div><Lamp on /></div>
```

<>
Fragments keep their words.
</>

The ratio x < y holds and a<b too.
"""


def load(path: Path) -> Document:
    [doc] = loaders.get("markdown")().load(path, source=path.name)
    return doc


@pytest.fixture()
def page(tmp_path: Path) -> Document:
    path = tmp_path / "lamp.mdx"
    path.write_text(PAGE, encoding="utf-8")
    return load(path)


def test_mdx_and_markdown_files_go_to_the_markdown_loader() -> None:
    assert loader_name_for(Path("docs/lamp.mdx")) == "markdown"
    assert loader_name_for(Path("docs/LAMP.MDX")) == "markdown"
    assert loader_name_for(Path("docs/lamp.markdown")) == "markdown"


def test_front_matter_is_metadata_not_text(page: Document) -> None:
    assert page.metadata["title"] == "Keeping the lamp"
    assert page.metadata["mime"] == "text/markdown"
    assert "sidebar_position" not in page.text and "---" not in page.text


def test_imports_exports_comments_and_components_leave_their_text(page: Document) -> None:
    text = page.text
    for gone in ("@theme/Tabs", "Wick", "../components", "export const meta", "keeper", "editors",
                 "oil table", "Playground", "lamp-demo", "Sandbox", "theme: 'dark'", "<Tabs>", "TabItem",
                 "<Badge", "</Badge>", "<>", "</>", "{/*", '{" "}'):
        assert gone not in text, gone
    assert "The lamp is lit at dusk. Since 1871 Call `<Lamp on />` to light it." in text  # code span kept
    assert "Brass lamp:\nPolish the brass every Sunday." in text  # a tab's label, its children dedented
    assert "Iron lamp:\nOil the iron hinges monthly." in text
    assert "Fragments keep their words." in text
    assert "The ratio x < y holds and a<b too." in text


def test_code_fences_stay_code_as_written(page: Document) -> None:
    text = page.text
    assert "```bash\npolish --brass\n```" in text
    assert "```jsx\nimport { Lamp } from 'harbour-lamp'\nexport const App = () => <div><Lamp on /></div>\n```" in text


def test_admonitions_become_their_label_and_text(page: Document) -> None:
    text = page.text
    assert "Outdated:\nTrimming with a knife is no longer advised." in text
    assert "Tip:\nKeep spare wicks dry." in text
    assert ":::" not in text


def test_headings_give_chunks_their_heading_path(page: Document) -> None:
    chunks = splitters.get("markdown")(chunk_size=120, chunk_overlap=0, unit="chars").split(page)
    knife = next(c for c in chunks if "knife" in c.text)
    assert knife.metadata["heading"] == "Trimming the wick"
    assert next(c for c in chunks if "dusk" in c.text).metadata["heading"] == "Lighting"


def test_admonitions_in_plain_markdown_and_fences_left_alone() -> None:
    text = render_admonitions(
        ":::note[Ferry times]\nThe ferry sails on Tuesdays.\n:::\n\n::: {.warning}\nMind the gap.\n:::\n\n"
        "::: {.sidebar}\nA div of another class keeps its text.\n:::\n\n"
        "```text\n:::note\nin code\n:::\n```\n\n::: harbour.tide.level\n    options:\n      depth: 2\n\n"
        ":::mystery\n\n:::\n"
    )
    assert "Ferry times:\nThe ferry sails on Tuesdays." in text
    assert "Warning:\nMind the gap." in text
    assert "\nA div of another class keeps its text." in text and "sidebar" not in text
    assert "```text\n:::note\nin code\n:::\n```" in text  # code is code
    assert "::: harbour.tide.level\n    options:" in text  # mkdocstrings' autodoc line is no admonition
    assert text.rstrip().endswith(":::mystery\n\n:::")  # an unknown kind, and a closing fence with nothing open


def test_only_mdx_pages_lose_imports_and_components(tmp_path: Path) -> None:
    words = "import lamp from 'harbour'\n\nImportant: keep the <Lamp> lit.\n"
    (tmp_path / "a.md").write_text(words, encoding="utf-8")
    (tmp_path / "a.mdx").write_text(words, encoding="utf-8")
    assert load(tmp_path / "a.md").text == words  # in Markdown it is what the author wrote
    assert load(tmp_path / "a.mdx").text == "Important: keep the  lit.\n"


def test_hostile_pages_stay_bounded_and_keep_their_text(tmp_path: Path) -> None:
    unclosed = "<Panel title='x'\n" + "words and more words\n" * 2000
    assert "words and more words" in render_mdx(unclosed)  # a tag never closed is text
    nested = "".join(f"<Box{i}>\n" for i in range(MAX_DEPTH * 4)) + "deep words\n"
    assert "deep words" in render_mdx(nested)
    one_line = "<Pin />keep " * 20000 + "{/* never closed " * 2000 + "`" * 7 + " end"
    rendered = render_mdx(one_line)  # one long line of tags, open comments and a lone backtick run
    assert rendered.count("keep") == 20000 and "<Pin" not in rendered and rendered.endswith(" end")
    open_fence = "```js\nimport a from 'b'\n<Lamp />\n"  # a fence never closed runs to the end
    assert render_mdx(open_fence) == open_fence
    only_code_of_the_site = tmp_path / "empty.mdx"
    only_code_of_the_site.write_text("---\ntitle: x\n---\nimport A from 'a'\n\n<A />\n", encoding="utf-8")
    with pytest.raises(LoaderError, match="empty file") as info:
        load(only_code_of_the_site)
    assert str(only_code_of_the_site) in str(info.value)
