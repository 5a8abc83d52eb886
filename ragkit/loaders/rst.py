"""reStructuredText (``.rst``, ``.rest``) via docutils, Sphinx documentation included.

The file is parsed by docutils (never by a regex) with Sphinx's roles and directives standing in
where docutils lacks them (``ragkit.loaders.rst_sphinx``), then written out as plain text in
Markdown's structure (``ragkit.loaders.rst_render``): section titles and object descriptions
(``.. py:data:: PERMANENT_SESSION_LIFETIME``) become headings, so every chunk carries its heading
path; code stays code; roles are reduced to their text (``:attr:`x <y>``` -> ``x``) and directive
markup is gone. ``mime`` stays ``text/x-rst``; ``markup: markdown`` tells the splitter the text
is Markdown.

Safe by construction: docutils' ``include``/``literalinclude`` and ``raw`` are off (an indexed file
cannot pull ``/etc/passwd`` into the index); ``include`` is resolved before parsing, only inside the
documentation folder and bounded (``ragkit.loaders.rst_include``). No docutils config file is read,
and docutils' complaints stay out of the log and the text. ``title`` is the first section title, else the file stem.
"""

from __future__ import annotations

import io
import logging
from pathlib import Path
from typing import Any

from ragkit.errors import LoaderError, MissingDependencyError
from ragkit.loaders.base import Included, MarkupLoader
from ragkit.loaders.included import files_read
from ragkit.registry import loaders

log = logging.getLogger(__name__)

#: docutils settings: nothing read from disk or the network, no messages, never halt
SETTINGS: dict[str, Any] = {
    "_disable_config": True,
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "report_level": 5,
    "halt_level": 5,
    "doctitle_xform": False,
    "sectsubtitle_xform": False,
    "docinfo_xform": False,
    "syntax_highlight": "none",
    "smart_quotes": False,
    "input_encoding": "unicode",
    "language_code": "en",
    "pep_references": False,
    "rfc_references": False,
}


@loaders.register("rst")
class RstLoader(MarkupLoader):
    """Reads a reStructuredText file (Sphinx roles and directives included) as one document."""

    name = "rst"
    mime = "text/x-rst"
    version = 9  # 2: the changelog extension's releases and changes (a version heading, ``Released: …``);
    # 3: a definition list is one list, an item per term; 4: a documented object's ``:param x:`` and
    # ``:type x:`` fields one item, and `~a.b` in the default role shown as Sphinx shows it (``b``);
    # 5: a field's text wrapped with its next lines indented deeper is one paragraph, not a list;
    # 6: ``.. include::`` resolved inside the documentation folder; 7: ``authors`` from a signature;
    # 8: inline literals and code roles (``:func:``, ``:option:``) as code spans; 9: the ``releases``
    # extension's ``:release:`3.0.0 <2026-04-05>``` bullets as headings with their dates

    include_marker = "include::"

    def included_files(self, path: Path, data: bytes | None = None) -> list[Included]:
        from ragkit.loaders.rst_include import resolve_includes

        return files_read(resolve_includes, path, self.include_budget, data)

    def to_markdown(self, text: str, path: Path) -> tuple[str, str | None]:
        from ragkit.loaders.rst_include import resolve_includes

        markdown, title = rst_to_markdown(resolve_includes(text, path, budget=self.include_budget), where=str(path))
        if not markdown.strip():
            raise LoaderError(
                f"{path}: no text in the reStructuredText file (only comments, targets or directives "
                "without content)", path=str(path), reason="empty file",
            )
        return markdown, title


def rst_to_markdown(text: str, *, where: str = "<string>") -> tuple[str, str | None]:
    """``text`` (reStructuredText, Sphinx's extensions allowed) as Markdown-structured plain text,
    and its title (the first section's), if any."""
    try:
        from docutils.core import publish_doctree
    except ImportError:  # pragma: no cover - docutils is a core dependency
        raise MissingDependencyError("docutils", "rst", "reading reStructuredText files") from None
    from ragkit.loaders.rst_render import Renderer
    from ragkit.loaders.rst_sphinx import sphinx_lookups

    settings = {**SETTINGS, "warning_stream": io.StringIO()}
    try:
        with sphinx_lookups():
            doctree = publish_doctree(text, source_path=where, settings_overrides=settings)
    except Exception as exc:  # docutils raises on input it cannot recover from
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise LoaderError(
            f"{where}: reStructuredText that docutils cannot parse ({reason}); fix the markup near the "
            "place named, or map .rst to the text loader under loaders: in the pipeline",
            path=where, reason=f"unparsable reStructuredText: {reason}",
        ) from exc
    renderer = Renderer()
    return renderer.text(doctree), renderer.title


__all__ = ["RstLoader", "rst_to_markdown"]
