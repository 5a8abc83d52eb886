"""Document loaders: one module per format, each registered in :data:`ragkit.registry.loaders`.

Importing this package is light: format modules (and their pypdf/bs4/python-docx/unstructured
imports) load when the registry first resolves their name.
"""

from __future__ import annotations

from ragkit.loaders.base import (
    DEFAULT_LOADERS,
    Loader,
    check_file,
    loader_name_for,
    read_text,
    unstructured_available,
)

__all__ = [
    "DEFAULT_LOADERS",
    "Loader",
    "check_file",
    "loader_name_for",
    "read_text",
    "unstructured_available",
]
