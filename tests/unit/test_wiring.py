"""What the pipeline wires into a component is declared once (``ragkit.wiring``) and every
reader agrees: the YAML check refuses it, the dry build fills it in, the index builds it."""

from __future__ import annotations

import pytest

from ragkit.config import parse_pipeline
from ragkit.errors import ConfigError
from ragkit.index.components import Components
from ragkit.index.layout import IndexLayout
from ragkit.wiring import PLACEHOLDERS, WIRED, retriever_needs


@pytest.mark.parametrize(("section", "key"), [("store", "dimension"), ("store", "path"),
                                              ("splitter", "length_function"), ("retriever", "store"),
                                              ("retriever", "dense")])
def test_a_wired_argument_in_the_yaml_is_refused(section: str, key: str) -> None:
    base = {"store": {"type": "faiss"}, "splitter": {"type": "recursive"}, "retriever": {"type": "hybrid"}}
    base[section] = {**base[section], key: 3}
    with pytest.raises(ConfigError, match=rf"{section}\.{key}: set by ragkit when it builds the {section}"):
        parse_pipeline(base, origin="p.yaml")


def test_the_index_builds_every_wired_retriever_argument(tmp_path) -> None:
    spec = parse_pipeline({"embedder": {"type": "hashing", "dimension": 16}, "store": {"type": "memory"},
                           "retriever": {"type": "hybrid"}}, origin="p.yaml")
    parts = Components(spec, IndexLayout(tmp_path))
    hybrid = parts.retriever()
    assert {"dense", "lexical"} <= WIRED["retriever"] and hybrid.dense is not None and hybrid.lexical is not None
    assert set(PLACEHOLDERS) <= WIRED["splitter"] | WIRED["store"] | WIRED["retriever"]
    assert retriever_needs({"type": "rerank", "base": {"type": "hybrid"}}) == {"dense", "lexical"}
    parts.close()
