"""XML documents (.xml): the text a reader of the rendered document sees, the text after an inline
element or an entity reference included, sections as headings, table rows and list items as
Markdown; written by the test as a standards body's drafts and data files write them, hostile
ones too."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.errors import LoaderError
from ragkit.loaders.base import loader_name_for
from ragkit.registry import loaders
from ragkit.splitters.markdown import MarkdownSplitter
from ragkit.types import Document
from tests.unit.linear_time import assert_linear

DRAFT = """<?xml version='1.0' encoding='UTF-8'?>
<!DOCTYPE memo SYSTEM 'memo.dtd' [
  <!ENTITY % ents SYSTEM 'memo.ent'>
%ents;
]>
<?xml-stylesheet type='text/xsl' href='memo.xsl'?>
<memo>
<header>
  <title>Tide Tables over Pigeon Post</title>
  <abstract>How harbours exchange tide tables by pigeon.</abstract>
  &BOILERPLATE;
  <status>Draft</status>
  <version>0.2.1</version>
</header>
<section1 topic='Requirements' anchor='reqs'>
  <p>This memo is <em>not</em> meant to replace the harbour's own almanac, which stays authoritative.</p>
  <p>A loft that relays tables (see &memo0042;) SHOULD keep them for 3&nbsp;days&mdash;no longer.</p>
  <ul>
    <li>Pigeons MUST carry at most <strong>two</strong> tables per flight.</li>
    <li>Relays MAY batch tables.</li>
  </ul>
  <p>A loft that is full answers with a &lt;loft-full/&gt; error.</p>
  <dl>
    <di><dt>&lt;max-birds/&gt;</dt><dd>The most pigeons a loft houses.</dd></di>
    <di><dt>&lt;idle-days/&gt;</dt><dd>Days without a flight before a loft counts as idle.</dd></di>
  </dl>
  <section2 topic='Sizes' anchor='sizes'>
    <p>Support for version 1 of the pigeon format implies the following:</p>
    <table caption='Table sizes'>
      <tr><th>Table</th><th>Weight</th><th>Support</th></tr>
      <tr><td>Daily</td><td>2 g</td><td>MUST</td></tr>
      <tr><td>Weekly</td><td>9 g</td><td>SHOULD NOT</td></tr>
    </table>
  </section2>
</section1>
<section1 topic='Examples' anchor='examples'>
  <example caption='A relayed table'><![CDATA[
<table harbour='Penwith'>
  <high at='06:12'/>
</table>
]]></example>
</section1>
</memo>
"""


def _load(tmp_path: Path, text: str | bytes, name: str = "memo.xml") -> Document:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    docs = list(loaders.get(loader_name_for(path) or "")().load(path, source=name))
    assert len(docs) == 1
    return docs[0]


def test_xml_files_go_to_the_xml_loader() -> None:
    assert loader_name_for(Path("memo.xml")) == "xml"
    assert loader_name_for(Path("MEMO.XML")) == "xml"


def test_the_text_after_an_inline_element_or_an_entity_is_kept(tmp_path: Path) -> None:
    text = _load(tmp_path, DRAFT).text
    assert "This memo is not meant to replace the harbour's own almanac, which stays authoritative." in text
    # an entity the DTD would define is its name; an HTML character name its character (a space a space)
    assert "A loft that relays tables (see memo0042) SHOULD keep them for 3 days\u2014no longer." in text
    assert "- Pigeons MUST carry at most two tables per flight." in text
    assert "BOILERPLATE" not in text  # an entity between elements stands for blocks: left out
    # markup written as text is a code span (downstream Markdown would take it for a tag and drop it)
    assert "A loft that is full answers with a `<loft-full/>` error." in text
    assert ("- `<max-birds/>`: The most pigeons a loft houses.\n\n"
            "- `<idle-days/>`: Days without a flight before a loft counts as idle.") in text


def test_sections_tables_and_examples_are_markdown(tmp_path: Path) -> None:
    doc = _load(tmp_path, DRAFT)
    assert doc.metadata["title"] == "Tide Tables over Pigeon Post"
    assert doc.metadata["markup"] == "markdown"
    text = doc.text
    assert "# Tide Tables over Pigeon Post\n\nHow harbours exchange tide tables by pigeon." in text
    assert "status: Draft" in text and "version: 0.2.1" in text  # a short value labelled with its element
    assert "# Requirements" in text and "## Sizes" in text
    assert ("| Table | Weight | Support |\n| --- | --- | --- |\n| Daily | 2 g | MUST |\n"
            "| Weekly | 9 g | SHOULD NOT |\n\nTable: Table sizes") in text  # the caption after: the sentence leads the table
    assert "A relayed table\n\n```\n<table harbour='Penwith'>\n  <high at='06:12'/>\n</table>\n```" in text
    chunks = MarkdownSplitter(chunk_size=400, chunk_overlap=0, unit="chars").split(doc)
    under = next(c for c in chunks if "| Daily | 2 g | MUST |" in c.text)
    assert "Sizes" in under.metadata.get("heading", "")


def test_a_definition_list_of_terms_and_definitions(tmp_path: Path) -> None:
    text = _load(tmp_path, "<glossary><dl><dt>ebb</dt><dd>The tide going out.</dd><dt>flood</dt>"
                           "<dd>The tide coming in.</dd><dt>slack</dt></dl></glossary>").text
    assert text.startswith("- ebb: The tide going out.\n\n- flood: The tide coming in.\n\n- slack")


def test_a_data_file_labels_its_values(tmp_path: Path) -> None:
    text = _load(tmp_path, "<catalog><cd><title>Harbour Songs</title><artist>Ann Lind</artist>"
                           "<year>1985</year></cd><cd><title>Ebb</title><year>1990</year></cd></catalog>").text
    assert text.startswith("# Harbour Songs\n\nartist: Ann Lind\n\nyear: 1985\n\n# Ebb\n\nyear: 1990")


def test_entities_are_never_expanded_nor_files_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the vault code is 4711", encoding="utf-8")
    laughs = "".join(f'<!ENTITY l{i} "{"".join(f"&l{i - 1};" for _ in range(10))}">' for i in range(1, 10))
    text = _load(tmp_path, f"""<?xml version="1.0"?>
<!DOCTYPE memo [<!ENTITY l0 "ha">{laughs}<!ENTITY xxe SYSTEM "file://{secret}">]>
<memo><p>Laughs: &l9;.</p><p>Secret: &xxe;.</p></memo>""").text
    assert "4711" not in text and "haha" not in text and text.startswith("Laughs:")


def test_what_is_not_well_formed_is_read_as_far_as_it_goes(tmp_path: Path) -> None:
    page = _load(tmp_path, "<!DOCTYPE html><html><head><meta charset='utf8'><title>Moved</title></head>"
                           "<body><p>The guide has moved to guide.html</p></body></html>")
    assert page.metadata["title"] == "Moved" and "The guide has moved to guide.html" in page.text
    assert _load(tmp_path, "404: Not Found\n", name="data.xml").text.strip() == "404: Not Found"


@pytest.mark.parametrize("data", [b"", b"   \n", b"<memo>  </memo>", b"\x00\x01\x02<memo/>"])
def test_a_file_without_text_is_skipped_with_its_reason(tmp_path: Path, data: bytes) -> None:
    with pytest.raises(LoaderError):
        _load(tmp_path, data, name="empty.xml")


@pytest.mark.parametrize(("declared", "encoding"), [("UTF-16", "utf-16"), ("windows-1252", "cp1252")])
def test_the_encoding_the_declaration_names_is_read(tmp_path: Path, declared: str, encoding: str) -> None:
    xml = f'<?xml version="1.0" encoding="{declared}"?>\n<memo><p>Die F\u00e4hre f\u00e4hrt dienstags.</p></memo>'
    assert _load(tmp_path, xml.encode(encoding)).text.strip() == "Die F\u00e4hre f\u00e4hrt dienstags."


GAUGE_CLASS = """<?xml version="1.0" encoding="UTF-8" ?>
<class name="TideGauge" inherits="Node" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
	<brief_description>
		Reads one harbour gauge.
	</brief_description>
	<description>
		TideGauge samples the water level and emits [signal reading_taken]. See [member window] and [TideTable].
		[b]Note:[/b] Readings are in metres; call [method calibrate] first. Use [code]reset()[/code] to clear them.
		[codeblock]
		var g = TideGauge.new()
		g.calibrate()
		[/codeblock]
	</description>
	<members>
		<member name="window" type="int" setter="set_window" getter="get_window" default="45">
			The minutes averaged for each reading. If not explicitly set, the gauge averages over the last tide.
		</member>
	</members>
	<constants>
		<constant name="EBB" value="0" enum="Phase">
			The tide is going out.
		</constant>
	</constants>
</class>
"""


def test_a_named_element_heads_its_text_and_a_godot_class_reference_reads_as_rendered(tmp_path: Path) -> None:
    """A member, a constant, a method an element documents by its ``name`` attribute is a section
    of its own with its type and default; Godot's BBCode is read as its page shows it."""
    text = _load(tmp_path, GAUGE_CLASS, "TideGauge.xml").text
    assert text.startswith("# TideGauge\n\nReads one harbour gauge.")
    assert "TideGauge samples the water level and emits reading_taken. See window and TideTable." in text
    assert "Note: Readings are in metres; call calibrate first. Use `reset()` to clear them." in text
    assert "```\nvar g = TideGauge.new()\ng.calibrate()\n```" in text
    assert ("## window\n\ntype: int\n\ndefault: 45\n\nThe minutes averaged for each reading. If not explicitly "
            "set, the gauge averages over the last tide.") in text
    assert "## EBB\n\nvalue: 0\n\nThe tide is going out." in text
    assert "[" not in text
    # another XML file's named elements: a short value labelled by its name, no BBCode read
    other = _load(tmp_path, "<resources><string name='app_name'>Tide [b]Log[/b]</string></resources>", "strings.xml").text
    assert other.strip() == "app_name: Tide [b]Log[/b]"


def test_a_class_reference_of_unclosed_bbcode_tags_is_read_in_linear_time(tmp_path: Path) -> None:
    """No BBCode pattern reaches past the next bracket it must not cross: 50,000 unclosed tags of
    each kind are read in time that grows with their length (a quadratic reader took minutes)."""
    for tag in ("[code]", "[url=", "[member ", "[codeblock]", "[[", "[code]a[0]", "[gdscript"):
        assert_linear(lambda text: _load(tmp_path, text, "TideGauge.xml"),
                      lambda k, tag=tag: GAUGE_CLASS.replace("Reads one harbour gauge.", tag * k), 50_000)
