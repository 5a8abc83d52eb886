"""A generated HTML site's search machinery is not indexed: the search box's status lines on every
page, the search result stub pages and the search scripts beside the pages; a library's own
scripts, a demo page beside them or not, still are."""

from __future__ import annotations

from pathlib import Path, PurePath

from ragkit.index.reader import KnowledgeBase
from ragkit.index.writer import IndexingPipeline
from ragkit.loaders.assets import is_asset

from .pipeline.helpers import make_spec

SEARCH_BOX = """<div id="MSearchSelectWindow" onmouseover="return searchBox.OnSearchSelectShow()"></div>
<div id="MSearchResultsWindow"><div id="MSearchResults"><div class="SRPage"><div id="SRIndex">
<div class="SRStatus" id="Loading">Loading...</div>
<div class="SRStatus" id="Searching">Searching...</div>
<div class="SRStatus" id="NoMatches">No Matches</div>
</div></div></div></div>"""

PAGE = """<html><head><title>Harbourlib: Tide Class Reference</title>
<script type="text/javascript" src="search/searchdata.js"></script></head><body>
<div id="projectname">Harbourlib 3.1.0</div>
{search_box}
<div class="contents"><h1>Tide Class Reference</h1>
<p>Tide::predict() returns the height of the next high water in metres, read from the
harbour's tide table; the table is reloaded every six hours.</p></div>
</body></html>"""

STUB = """<html><head><title></title><script type="text/javascript" src="all_0.js"></script></head>
<body class="SRPage"><div id="SRIndex">
<div class="SRStatus" id="Loading">Loading...</div><div id="SRResults"></div>
<div class="SRStatus" id="Searching">Searching...</div>
<div class="SRStatus" id="NoMatches">No Matches</div>
</div></body></html>"""


def doxygen_site(root: Path) -> Path:
    (root / "search").mkdir(parents=True)
    (root / "lib").mkdir()
    (root / "class_tide.html").write_text(PAGE.format(search_box=SEARCH_BOX))
    (root / "searchindex.js").write_text('Search.setIndex({"docnames": ["class_tide"], "terms": {"tide": 0}})\n')
    (root / "search" / "all_0.html").write_text(STUB)
    (root / "search" / "all_0.js").write_text("var searchData=\n[\n  ['tide_0',['Tide',['../class_tide.html',1,'']]]\n];\n")
    (root / "lib" / "tides.js").write_text(
        "/**\n * Predicts the next high water from the harbour's tide table.\n * @param {number} hours - how far ahead\n */\n"
        "export function predict(hours) { return hours * 2; }\n"
    )
    return root


def test_a_generated_sites_search_pages_and_data_are_not_indexed(tmp_path: Path) -> None:
    spec = make_spec(tmp_path / "index")
    report = IndexingPipeline(spec).index_paths([doxygen_site(tmp_path / "html")])
    assert sorted(report.added) == ["class_tide.html", "lib/tides.js"]
    assert report.assets_skipped == {".js": 2}  # searchindex.js and search/all_0.js, beside pages
    [(source, reason)] = report.skipped
    assert source == "search/all_0.html" and "no visible text" in reason
    with KnowledgeBase(spec) as kb:
        text = " ".join(h.text for h in kb.search("tide high water", k=10))
    assert "next high water in metres" in text and "Harbourlib 3.1.0" in text
    assert "No Matches" not in text and "Searching..." not in text and "Loading..." not in text


def test_only_a_sites_search_scripts_beside_its_pages_are_assets() -> None:
    pages = {PurePath("book"), PurePath("book/search"), PurePath("demo")}
    assert is_asset("book/search/all_0.js", site_folders=pages) and is_asset("book/searchindex.js", site_folders=pages)
    assert is_asset("mk/search/main.js", site_folders={PurePath("mk")})  # MkDocs: search/ beside the pages
    assert not is_asset("book/lib/tides.js", site_folders=pages)
    assert not is_asset("demo/tides.js", site_folders=pages)  # a library's source beside its demo page
    assert not is_asset("src/search/rank.js", site_folders=pages)  # a library's search module, no pages
    assert not is_asset("book/search/all_0.js", site_folders=pages, opted_in=[".js"])
    assert not is_asset("book/search/all_0.js")  # without its pages it is read as source
