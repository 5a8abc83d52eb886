"""API descriptions written in YAML: an OpenAPI, Swagger or AsyncAPI document is documentation, not
configuration.

A ``.yaml`` file is read as text and answered from as code (``base.CODE_EXTENSIONS``): a compose
file's or a CI workflow's lines are settings. An API description's values are sentences written for
readers (what an endpoint does, what a parameter means, its default and limits), so a YAML file
whose top level declares ``openapi:``, ``swagger:`` or ``asyncapi:`` is written out as the JSON
loader writes a JSON file (``json_document.write_out``): its fields as ``- name: value`` items, its
descriptions, paths, operations and schemas as sections under their names, titled by its
``info.title``. The document is marked ``markup: markdown``, so its chunks carry their heading path
(``paths > /v1/Services > post``), which is how the answerer tells it from a configuration file's
code.

Bounded as the JSON loader is (``MAX_PARSED_MB``, ``MAX_DEPTH``); YAML's anchors and aliases, which
let a small file expand without bound (a "billion laughs"), are not read at all: a description that
writes one is read as text, as before, as is one that is not valid YAML.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from ragkit.loaders.json_document import MAX_PARSED_MB, write_out

log = logging.getLogger(__name__)

YAML_SUFFIXES = (".yaml", ".yml")
#: the top-level key that says what a YAML file describes: an API (unindented, anywhere: generators
#: write the keys in alphabetical order, ``components:`` first)
_DECLARES_API = re.compile(r"^(?:openapi|swagger|asyncapi)\s*:", re.MULTILINE)
#: an anchor (``&name``) where a value may start: aliases to it could expand the document without bound
_ANCHOR = re.compile(r"(?:^|[\s\[{,:-])&[^\s\[\]{},]")


def declares_api(text: str) -> bool:
    """Whether a YAML file's ``text`` declares an API description (a top-level ``openapi:`` key)."""
    return bool(_DECLARES_API.search(text))


def api_document(text: str, path: Path) -> tuple[str, str] | None:
    """An API description's text written out and its title (``info.title``, "" for none); None when
    the file is read as text instead (too large, anchors and aliases, not valid YAML, too deep)."""
    import yaml  # PyYAML, imported when a description is read: importing the loaders stays light

    if len(text) > MAX_PARSED_MB * 1024 * 1024:
        log.info("%s: %.1f MB of YAML, over %.0f MB: read as text", path, len(text) / 1024 / 1024, MAX_PARSED_MB)
        return None
    if _ANCHOR.search(text):
        log.info("%s: an API description with YAML anchors (aliases may expand it without bound): read as text", path)
        return None
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        value = yaml.load(text, Loader=loader)  # a safe loader, and no anchor to expand
    except (yaml.YAMLError, RecursionError) as exc:
        log.info("%s: not valid YAML (%s): read as text", path, str(exc).splitlines()[0] if str(exc) else "")
        return None
    if not isinstance(value, dict):
        return None
    written = write_out(value, path)
    if written is None:
        return None
    info = value.get("info")
    title = info.get("title") if isinstance(info, dict) else None
    return written[0], title.strip() if isinstance(title, str) and title.strip() else written[1]


__all__ = ["YAML_SUFFIXES", "api_document", "declares_api"]
