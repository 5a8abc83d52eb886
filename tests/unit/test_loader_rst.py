"""The reStructuredText loader: Sphinx files parse, markup leaves, structure stays."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragkit.cli.main import cli
from ragkit.errors import LoaderError
from ragkit.loaders.base import loader_name_for
from ragkit.registry import loaders, splitters
from ragkit.types import Document

from .pipeline.helpers import write_tree

#: what reStructuredText markup looks like in text: roles, inline literals, directives,
#: substitutions, references, field markers of a directive option
RST_MARKUP = re.compile(
    r":[\w:.+-]+:`|(?<!`)``(?!`)|^\s*\.\. [\w:.+-]+::|^\s*\.\. _|\|\w+\||`_|`[^`\n]+`__?\b|^\s*:[\w-]+:\s*$|"
    r"^\s*(={3,}|-{3,}|~{3,}|\^{3,})\s*$",
    re.MULTILINE,
)
FENCE = re.compile(r"^ {0,3}(`{3,})[^\n]*\n.*?\n {0,3}\1[ \t]*$", re.DOTALL | re.MULTILINE)

CONFIG_RST = """\
:orphan:

.. _config:

Configuration Handling
======================

The :attr:`~flask.Flask.config` attribute of the :class:`~flask.Flask` object holds the
configuration. Read :doc:`the quickstart </quickstart>` and :ref:`sessions` first; call
:func:`send_file` or :meth:`.Flask.run`. The ``--debug`` option of |project| matters.

.. code-block:: python
   :caption: ``app.py``
   :emphasize-lines: 2

   # a comment, not a heading
   app.config["TESTING"] = True

Builtin Configuration Values
----------------------------

The following configuration values are used internally:

.. py:data:: PERMANENT_SESSION_LIFETIME

    If ``session.permanent`` is true, the cookie's expiration will be set this number of
    seconds in the future.

    Default: ``timedelta(days=31)`` (``2678400`` seconds)

    .. versionchanged:: 0.8
        This can also be an integer, see :data:`SESSION_COOKIE_NAME`.

.. py:function:: send_file(path_or_file, mimetype=None)

    Send the contents of a file to the client.

    :param path_or_file: The path to the file to send.

.. data:: SERVER_NAME

    Inform the application what host and port it is bound to.

.. py:class:: Config(root_path, defaults=None)

    Works exactly like a dict.

    .. py:method:: from_envvar(variable_name)

        Loads a configuration from an environment variable.

Text after the objects belongs to the section again.

.. toctree::
   :maxdepth: 2

   quickstart

.. tabs::

   .. group-tab:: Windows

      .. code-block:: text

         > py -3 -m venv .venv

.. sphinx_only_directive:: with an argument
   :some-option: 1

   Words inside an unknown directive survive.

.. note::
   An :unknown-role:`unknown role` and a `Werkzeug`_ link keep their words.

.. autoclass:: Flask
   :members:

.. literalinclude:: ../secret.py

.. include:: /etc/passwd

.. raw:: html

   <script>alert(1)</script>
"""


def load(path: Path) -> Document:
    docs = list(loaders.get("rst")().load(path, source=path.name))
    assert len(docs) == 1
    return docs[0]


def prose(text: str) -> str:
    """``text`` without its fenced code blocks (code may look like anything)."""
    return FENCE.sub("", text)


@pytest.fixture()
def config_doc(tmp_path: Path) -> Document:
    path = tmp_path / "config.rst"
    path.write_text(CONFIG_RST, encoding="utf-8")
    return load(path)


def test_rst_and_rest_files_go_to_the_rst_loader() -> None:
    assert loader_name_for(Path("docs/config.rst")) == "rst"
    assert loader_name_for(Path("docs/CONFIG.REST")) == "rst"


def test_sphinx_roles_and_directives_leave_no_markup(config_doc: Document) -> None:
    text = config_doc.text
    assert RST_MARKUP.search(prose(text)) is None, RST_MARKUP.search(prose(text))
    assert "The `config` attribute of the `Flask` object holds the configuration." in text
    assert "Read the quickstart and sessions first; call `send_file()` or `Flask.run()`." in text
    assert "The `--debug` option of project matters." in text
    assert "Default: `timedelta(days=31)` (`2678400` seconds)" in text
    assert "Changed in version 0.8: This can also be an integer, see `SESSION_COOKIE_NAME`." in text
    assert "- path_or_file: The path to the file to send." in text
    assert "Words inside an unknown directive survive." in text
    assert "An unknown role and a Werkzeug link keep their words." in text
    assert "Windows:" in text  # a tab's label


def test_a_parameter_and_its_type_are_one_item_as_sphinx_shows_them(tmp_path: Path) -> None:
    path = tmp_path / "kiln.rst"
    path.write_text(
        ".. class:: Kiln(*, max_burn=7200.0)\n\n"
        "   Fires pots. Prefer `~kilns.GasBurner` to `!kilns.WoodBurner`; see `The Potter's Book`.\n\n"
        "   :param max_burn: The longest a firing may run, in\n"
        "                    seconds, before the kiln cools down.\n"
        "   :type max_burn: `!float`, default: 2 hours\n"
        "   :param int shelves: How many shelves it holds.\n"
        "   :raises KilnCracked: if the lining is damaged.\n"
        "   :rtype: `Kiln`\n", encoding="utf-8")
    text = load(path).text
    assert "Prefer GasBurner to kilns.WoodBurner; see The Potter's Book." in text
    assert ("- max_burn (float, default: 2 hours): The longest a firing may run, in seconds, before the kiln "
            "cools down.\n- shelves (int): How many shelves it holds.\n- Raises KilnCracked: if the lining is "
            "damaged.\n- Return type: Kiln") in text


def test_a_field_wrapped_with_deeper_indented_lines_is_one_paragraph(tmp_path: Path) -> None:
    # a note indented less than the wrapped line sets the field's indentation: docutils then reads
    # "… carries, 4" as a term and "kg by default." as its definition
    path = tmp_path / "kiln.rst"
    path.write_text(
        ".. class:: Kiln(*, max_load=4*1024)\n\n"
        "   Fires pots.\n\n"
        "   :param int max_load: the heaviest load a shelf carries, 4\n"
        "                        kg by default. To lift the limit use ``0``.\n\n"
        "      .. versionadded:: 2.1\n\n"
        "   :param int shelves: How many shelves it holds.\n", encoding="utf-8")
    text = load(path).text
    assert ("- max_load (int): the heaviest load a shelf carries, 4 kg by default. To lift the limit use `0`. "
            "New in version 2.1.\n- shelves (int): How many shelves it holds.") in text, text
    assert "4: kg" not in text


def test_escapes_inside_roles_are_resolved(tmp_path: Path) -> None:
    path = tmp_path / "esc.rst"
    path.write_text("Use :func:`send\\_file` and :attr:`the config <Flask.config\\_x>`, many :func:`f`\\s.\n",
                    encoding="utf-8")
    assert load(path).text == "Use `send_file()` and `the config`, many `f()`s.\n"


def test_navigation_includes_and_raw_html_leave_nothing(config_doc: Document) -> None:
    text = config_doc.text
    for absent in ("maxdepth", "toctree", "quickstart\n", "secret.py", "passwd", "root:", "script", "alert"):
        assert absent not in text, absent
    assert "orphan" not in text


def test_code_blocks_stay_code_with_their_language(config_doc: Document) -> None:
    text = config_doc.text
    assert '```python\n# a comment, not a heading\napp.config["TESTING"] = True\n```' in text
    assert "`app.py`:" in text  # the caption, its literal a code span
    assert "```text\n> py -3 -m venv .venv\n```" in text


def test_sections_and_python_objects_become_the_heading_path(config_doc: Document) -> None:
    assert config_doc.metadata["title"] == "Configuration Handling"
    assert config_doc.metadata["mime"] == "text/x-rst" and config_doc.metadata["source"] == "config.rst"
    chunks = splitters.get("markdown")(chunk_size=60, chunk_overlap=0, unit="chars").split(config_doc)

    def heading_of(words: str) -> str:
        return next(c.metadata["heading"] for c in chunks if words in c.text)

    assert heading_of("holds the") == "Configuration Handling"
    assert heading_of("2678400") == (
        "Configuration Handling > Builtin Configuration Values > PERMANENT_SESSION_LIFETIME"
    )
    assert heading_of("Send the contents") == "Configuration Handling > Builtin Configuration Values > send_file"
    assert heading_of("what host and port") == (
        "Configuration Handling > Builtin Configuration Values > SERVER_NAME"
    )
    assert heading_of("exactly like a dict") == "Configuration Handling > Builtin Configuration Values > Config"
    assert heading_of("from an environment") == (
        "Configuration Handling > Builtin Configuration Values > Config > from_envvar")
    # prose after the object descriptions is filed under its section again, not under the last object
    assert heading_of("belongs to the section") == "Configuration Handling > Builtin Configuration Values"
    # a '#' comment in code is not a heading
    assert all("a comment, not a heading" not in c.metadata["heading"] for c in chunks)
    assert next(c for c in chunks if "2678400" in c.text).metadata["headings"][-1] == "PERMANENT_SESSION_LIFETIME"
    signature = next(c for c in chunks if "send_file(path_or_file" in c.text)
    assert signature.metadata["heading"].endswith("send_file")


def test_lists_tables_and_admonitions_are_plain_text(tmp_path: Path) -> None:
    path = tmp_path / "misc.rst"
    path.write_text(
        "Misc\n====\n\n* first **bold** item\n* second item::\n\n    literal\n\n"
        "#. one\n#. two\n\n=====  =====\nName   Port\n=====  =====\nweb    8080\n=====  =====\n\n"
        "term\n   its definition\n\n.. warning:: Do not deploy the debugger.\n\n"
        "#hashtag at the start of a line is prose\n",
        encoding="utf-8",
    )
    text = load(path).text
    assert "- first bold item" in text and "- second item:\n  ```\n  literal\n  ```" in text
    assert "1. one\n2. two" in text
    assert "Name | Port\nweb | 8080" in text
    assert "- term: its definition" in text
    assert "Warning: Do not deploy the debugger." in text
    assert "\\#hashtag at the start" in text  # escaped: prose is never a heading


def test_a_file_without_text_and_broken_markup(tmp_path: Path) -> None:
    empty = tmp_path / "empty.rst"
    empty.write_text(".. comment only\n\n.. _target:\n\n.. toctree::\n\n   a\n", encoding="utf-8")
    with pytest.raises(LoaderError, match="no text in the reStructuredText file") as info:
        load(empty)
    assert str(empty) in str(info.value)
    broken = tmp_path / "broken.rst"
    broken.write_text("Title\n=====\n\n+---+\n| a |\n+--\n\nInconsistent\n~~~~~~~~~~~~\n\nT2\n====\n\nS\n~\n",
                      encoding="utf-8")
    text = load(broken).text  # docutils' complaints do not reach the text
    assert "# Title" in text and "Inconsistent" in text and "ERROR" not in text and "System Message" not in text


def test_the_stand_ins_do_not_stay_installed(tmp_path: Path) -> None:
    from docutils.core import publish_doctree

    path = tmp_path / "a.rst"
    path.write_text(CONFIG_RST, encoding="utf-8")
    load(path)
    plain = publish_doctree(".. py:data:: X\n", settings_overrides={"report_level": 5, "_disable_config": True})
    assert "Unknown directive type" in plain.astext()  # docutils outside the loader is untouched


SPHINX_PROJECT = {
    "conf.py": 'project = "Demo"\nextensions = ["sphinx.ext.autodoc"]\n',
    "Makefile": "SPHINXBUILD ?= sphinx-build\nhtml:\n\t$(SPHINXBUILD) -b html . _build\n",
    "make.bat": "@ECHO OFF\nset SPHINXBUILD=sphinx-build\n",
    "_build/html/index.html": "<html><body>generated copy</body></html>",
    "_templates/layout.html": "{% extends '!layout.html' %}",
    "index.rst": "Demo\n====\n\n.. toctree::\n\n   config\n   api\n\nDemo is a tool for ferries.\n",
    "config.rst": CONFIG_RST,
    "api.rst": "API\n===\n\n.. module:: demo\n\n.. autoclass:: Ferry\n   :members:\n\n"
               ".. py:function:: sail(port, *, when=None)\n\n   Sail from :class:`~demo.Port` ``port``.\n",
}


def test_index_a_sphinx_folder_skips_no_rst_and_no_hit_shows_markup(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs", SPHINX_PROJECT)
    pipe = tmp_path / "pipe.yaml"
    pipe.write_text(json.dumps({"index": str(tmp_path / "index"), "embedder": {"type": "hashing", "dimension": 64},
                                "store": {"type": "faiss", "index": "flat"}}), encoding="utf-8")
    run = CliRunner().invoke(cli, ["index", str(docs), "--pipeline", str(pipe), "--json"], catch_exceptions=False)
    report = json.loads(run.stdout)
    assert run.exit_code == 0 and report["skipped"] == []
    assert sorted(report["added"]) == ["api.rst", "config.rst", "index.rst"]  # no conf.py, Makefile, _build
    queries = ["PERMANENT_SESSION_LIFETIME default", "send_file path", "sail port", "ferries", "debug option",
               "unknown role", "Windows venv", "configuration values"]
    seen = set()
    for query in queries:
        run = CliRunner().invoke(cli, ["search", query, "--index", str(tmp_path / "index"), "-k", "5", "--json"])
        for hit in json.loads(run.stdout):
            seen.add(hit["id"])
            assert RST_MARKUP.search(prose(hit["text"])) is None, (query, hit["text"])
    assert len(seen) >= 5
    top = json.loads(CliRunner().invoke(cli, ["search", "PERMANENT_SESSION_LIFETIME", "--index",
                                              str(tmp_path / "index"), "-k", "1", "--json"]).stdout)[0]
    assert top["source"] == "config.rst" and top["heading"].endswith("PERMANENT_SESSION_LIFETIME")


HARBOUR_RST = """\
Harbour settings
================

.. module:: harbour.tide
.. moduleauthor:: Ada Quayle <ada@harbour.example>
.. sectionauthor:: Ben Pier
.. codeauthor:: Cy Dock <cy at dock dot example>

.. confval:: tide_table_path
   :type: :code-py:`str`
   :default: ``'tables/tide.csv'``

   Where the tide table is read from.

.. py:attribute:: Pier.berths
   :type: int
   :value: 12

   How many ships moor at once.

.. autoattribute:: harbour.Pier.depth
   :value: 9

.. envvar:: HARBOUR_HOME

   Where the harbour lives.
"""


def test_an_objects_type_default_and_value_are_text_under_its_heading(tmp_path: Path) -> None:
    path = tmp_path / "harbour.rst"
    path.write_text(HARBOUR_RST, encoding="utf-8")
    doc = load(path)
    assert RST_MARKUP.search(prose(doc.text)) is None, RST_MARKUP.search(prose(doc.text))
    chunks = splitters.get("markdown")(chunk_size=80, chunk_overlap=0, unit="chars").split(doc)

    def chunk_of(words: str) -> Document:
        return next(c for c in chunks if words in c.text)

    assert "Type: str\n\nDefault: `'tables/tide.csv'`" in chunk_of("Default: `'tables").text
    assert chunk_of("Default: `'tables").metadata["heading"] == "Harbour settings > tide_table_path"
    assert "Type: int\n\nValue: 12" in chunk_of("Value: 12").text
    assert chunk_of("Value: 12").metadata["heading"] == "Harbour settings > Pier.berths"
    assert chunk_of("Value: 9").metadata["heading"] == "Harbour settings > harbour.Pier.depth"
    assert "Where the harbour lives." in doc.text


def test_authors_are_named_without_their_email(tmp_path: Path) -> None:
    path = tmp_path / "harbour.rst"
    path.write_text(HARBOUR_RST, encoding="utf-8")
    text = load(path).text
    assert "Module author: Ada Quayle\n\nSection author: Ben Pier\n\nCode author: Cy Dock\n" in text
    assert "@" not in text and "dock dot" not in text


FERRY_CHANGELOG_RST = """\
=============
1.0 Changelog
=============

.. changelog_imports::

    .. include:: changelog_09.rst
        :start-line: 5

.. changelog::
    :version: 1.0.1
    :include_notes_from: unreleased_10

.. changelog::
    :version: 1.0.0
    :released: March 3, 2025

    .. change::
        :tags: bug, tide tables
        :tickets: 812, 813

        Fixed the :class:`.TideTable` reader, which skipped the last row.

    .. change::
        :tags: feature

        Added ``Ferry.timetable()``.
"""


def test_a_changelog_release_is_a_version_heading_over_its_date_and_tagged_changes(tmp_path: Path) -> None:
    path = tmp_path / "changelog_10.rst"
    path.write_text(FERRY_CHANGELOG_RST, encoding="utf-8")
    doc = load(path)
    assert RST_MARKUP.search(prose(doc.text)) is None, RST_MARKUP.search(prose(doc.text))
    assert doc.text.startswith("# 1.0 Changelog\n\n## 1.0.1\n\n## 1.0.0\n\nReleased: March 3, 2025\n\n"
                               "[bug] [tide tables] Fixed the `TideTable` reader, which skipped the last row.\n\n"
                               "References: #812, #813\n\n[feature] Added `Ferry.timetable()`."), doc.text
    chunks = splitters.get("markdown")(chunk_size=400, chunk_overlap=0, unit="chars").split(doc)
    dated = next(c for c in chunks if "Released: March 3, 2025" in c.text)
    assert dated.metadata["heading"] == "1.0 Changelog > 1.0.0" and "## 1.0.0" in dated.text
    assert loaders.get("rst").version >= 8  # indexes read their reStructuredText again


FERRY_RELEASES_RST = """\
=========
Changelog
=========

- :release:`2.1.0 <2025-06-02>`
- :bug:`812` Fixed the tide table reader, which skipped the last row.
- :feature:`790` Added a timetable export.
- :release:`2.0.0 <2025-03-03>`
- :support:`-` Dropped support for the old harbour API.
"""


def test_a_releases_changelog_bullet_is_a_version_heading_with_its_date(tmp_path: Path) -> None:
    """The ``releases`` extension's ``:release:`2.0.0 <2025-03-03>``` bullet opens a release: a
    heading with the version and its date over the bullets after it, as the changelog page shows
    it (before: the version alone, a bullet among the changes, its date lost)."""
    path = tmp_path / "changelog.rst"
    path.write_text(FERRY_RELEASES_RST, encoding="utf-8")
    doc = load(path)
    assert RST_MARKUP.search(prose(doc.text)) is None, RST_MARKUP.search(prose(doc.text))
    assert doc.text.startswith("# Changelog\n\n## 2.1.0 (2025-06-02)\n\n- 812 Fixed the tide table reader, which "
                               "skipped the last row.\n- 790 Added a timetable export.\n\n## 2.0.0 (2025-03-03)\n\n"), doc.text
    assert "Dropped support for the old harbour API." in doc.text
    chunks = splitters.get("markdown")(chunk_size=400, chunk_overlap=0, unit="chars").split(doc)
    fixed = next(c for c in chunks if "tide table reader" in c.text)
    assert fixed.metadata["heading"] == "Changelog > 2.1.0 (2025-06-02)"
    assert loaders.get("rst").version >= 9  # indexes read their reStructuredText again


def test_a_definition_list_is_one_list_that_answers_a_list_question(tmp_path: Path) -> None:
    """Each term of a definition list is an item of one list ("- Standards: …"), so the offline
    answerer quotes every term for "What are the three kinds of …?". Before: each term and its
    definition were paragraphs of their own, and the answer stopped at the first term."""
    from ragkit.rag.extractive import extractive_answer
    from ragkit.rag.passages import Passage

    path = tmp_path / "community.rst"
    path.write_text(
        "Tide reports\n============\n\nThere are three different kinds of tide reports (as defined by the harbour"
        " rules):\n\n    **Standard**\n        Describes the day's two high waters.\n\n    **Storm**\n"
        "        Describes a surge warning, its height and the hours it holds.\n\n    **Survey**\n"
        "        Describes a new gauge reading.\n\n\nNotable reports\n---------------\n\nSee the archive.\n",
        encoding="utf-8",
    )
    text = load(path).text
    assert "- Standard: Describes the day's two high waters.\n- Storm: Describes a surge warning" in text, text
    got = extractive_answer("What are the three kinds of tide reports?", [Passage(1, text, {"source": "community.rst"})])
    assert all(kind in got for kind in ("Standard", "Storm", "Survey")), got
    assert loaders.get("rst").version >= 3  # indexes read their reStructuredText again


def test_inline_literals_and_code_roles_are_code_spans_and_headings_plain_text(tmp_path: Path) -> None:
    """``WARNING`` and :option:`--dry-run` are code in the page Sphinx builds, so they are code spans
    (the answerer reads a code span as a value); a heading's literal and a link's role are words."""
    path = tmp_path / "logging.rst"
    path.write_text("The ``ferry`` log\n=================\n\nInside import stages the default is ``WARNING`` and above; "
                    "pass :option:`--dry-run` (see :ref:`the guide <guide>` and :issue:`12`).\n", encoding="utf-8")
    text = load(path).text
    assert text.startswith("# The ferry log\n\n")
    assert "the default is `WARNING` and above; pass `--dry-run` (see the guide and 12)." in text, text
