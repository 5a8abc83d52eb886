"""Which files of a Sphinx documentation folder are build machinery, not documentation.

A folder is a Sphinx source folder when it holds a ``conf.py`` and either a root document
(``index`` or ``contents`` as ``.rst``/``.md``/``.txt``) or a ``conf.py`` that names Sphinx. Its
``conf.py``, ``Makefile`` and ``make.bat`` are build scripts and ``_build/`` (generated output:
every page again as HTML) and ``_templates/`` (Jinja page templates) are not documents, so
discovery leaves them out, like assets.

Its ``.inc`` files (``prune.rst.inc``) are fragments that pages pull in with ``.. include::``
(``ragkit.loaders.rst_include``): Sphinx shows them only where a page includes them, so discovery
leaves them out of the folder and its sub-folders (``is_fragment``) and the page carries their text.

Such a folder's ``.txt`` files are its reStructuredText sources (Django's documentation is written
so): ``sphinx_source_root`` finds the Sphinx folder a file is in, and the text loader reads those
files with the reStructuredText loader, so roles and literals do not reach chunks and answers.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from pathlib import Path

log = logging.getLogger(__name__)

BUILD_FILES = frozenset({"conf.py", "Makefile", "make.bat"})
BUILD_DIRS = frozenset({"_build", "_templates"})
_ROOT_DOCS = frozenset(f"{stem}{ext}" for stem in ("index", "contents") for ext in (".rst", ".md", ".txt"))
_CONF_BYTES = 65536


def is_sphinx_source(folder: Path, filenames: Collection[str]) -> bool:
    """Whether ``folder`` (whose files are ``filenames``) is a Sphinx source folder."""
    if "conf.py" not in filenames:
        return False
    if _ROOT_DOCS & set(filenames):
        return True
    try:
        with open(folder / "conf.py", "rb") as f:
            head = f.read(_CONF_BYTES).decode("utf-8", "replace").lower()
    except OSError:
        return False
    return "sphinx" in head


_ROOT_SEARCH_DEPTH = 12  # how many folders above a file are looked through for its Sphinx conf.py


def _sphinx_folder(folder: Path) -> bool:
    try:
        names = {p.name for p in folder.iterdir() if p.is_file()} if (folder / "conf.py").is_file() else set()
    except OSError:
        return False
    return is_sphinx_source(folder, names)


def sphinx_source_root(path: Path) -> Path | None:
    """The Sphinx source folder ``path`` is in (its own folder or one above, nearest first), or
    None when it is in none."""
    for folder in list(path.absolute().parents)[:_ROOT_SEARCH_DEPTH]:
        if _sphinx_folder(folder):
            return folder
    return None


def is_fragment(name: str) -> bool:
    """Whether the file ``name`` of a Sphinx source folder is a fragment pages include (``.inc``)."""
    return name.lower().endswith(".inc")


def sphinx_build_entries(folder: Path, filenames: Collection[str]) -> frozenset[str]:
    """The names in ``folder`` (files and folders) that discovery leaves out: its build files
    and folders when it is a Sphinx source folder, else none."""
    if not is_sphinx_source(folder, filenames):
        return frozenset()
    log.info("%s is a Sphinx source folder: conf.py, Makefile, make.bat, _build/ and _templates/ are "
             "not indexed", folder)
    return BUILD_FILES | BUILD_DIRS


__all__ = ["BUILD_DIRS", "BUILD_FILES", "is_fragment", "is_sphinx_source", "sphinx_build_entries", "sphinx_source_root"]
