"""Evaluate pipelines' retrievers on a BEIR dataset: index the corpus through the real
pipeline (incremental, so a second eval re-embeds nothing), then score each retriever."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from ragkit import registry
from ragkit.config import PipelineSpec, load_pipeline
from ragkit.errors import ConfigError
from ragkit.evaluation.beir import BeirDataset, load_beir
from ragkit.evaluation.multi import LABEL_SEP
from ragkit.evaluation.runner import EvalReport, run_retrieval_eval
from ragkit.index.reader import KnowledgeBase
from ragkit.index.writer import IndexingPipeline
from ragkit.registry import did_you_mean
from ragkit.stores.filters import Filter
from ragkit.types import Document, SearchHit
from ragkit.wiring import retriever_needs

log = logging.getLogger(__name__)


class DocumentRetriever:
    """Maps chunk hits to their source document (best chunk wins), as BEIR scores documents."""

    def __init__(self, base: Any, *, overfetch: int = 2) -> None:
        self.base = base
        self.overfetch = overfetch

    def retrieve(self, query: str, k: int = 10, filter: Filter | None = None) -> list[SearchHit]:
        out: dict[str, SearchHit] = {}
        for hit in self.base.retrieve(query, k=k * self.overfetch, filter=filter):
            src = hit.source or hit.id
            if src not in out:
                out[src] = SearchHit(id=src, score=hit.score, metadata=hit.metadata)
            if len(out) == k:
                break
        return list(out.values())


def parse_retriever(text: str) -> tuple[str, dict[str, Any]]:
    """``NAME`` or ``NAME:key=value,key=value`` (values read as YAML scalars), e.g.
    ``hybrid:fusion=rrf,weight=0.7``. Without options the retriever is configured as the pipeline
    says; with options, by exactly those (the rest at the retriever's defaults)."""
    name, _, rest = text.partition(":")
    name = name.strip()
    if name not in registry.retrievers:
        known = registry.retrievers.names()
        raise ConfigError(f"-r {text}: unknown retriever '{name}'{did_you_mean(name, known)}")
    opts: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ConfigError(f"-r {text}: expected key=value options after '{name}:' (got {item!r})")
        opts[key.strip()] = yaml.safe_load(value)
    return name, opts


def build_named_retriever(kb: KnowledgeBase, text: str) -> Any:
    """The retriever ``-r TEXT`` names (see ``parse_retriever``), wired to ``kb``."""
    name, opts = parse_retriever(text)
    if not opts:
        return kb.retriever(name)
    if name in ("dense", "bm25"):
        raise ConfigError(f"-r {text}: the {name} retriever takes no options")
    try:
        return registry.retrievers.get(name)(dense=kb.retriever("dense"), lexical=kb.retriever("bm25"), **opts)
    except TypeError as exc:
        raise ConfigError(f"-r {text}: invalid options for '{name}': {exc}") from None


def eval_spec(spec: PipelineSpec, retriever_names: Sequence[str]) -> PipelineSpec:
    """Keep a BM25 index when any requested retriever needs one."""
    bases = [parse_retriever(r)[0] for r in retriever_names]
    if any("lexical" in retriever_needs({"type": r}) for r in bases) and not spec.uses_lexical:
        data = spec.model_dump(exclude={"origin"})
        data["lexical"]["enabled"] = True
        return PipelineSpec.model_validate({**data, "origin": spec.origin})
    return spec


def index_for(spec: PipelineSpec, dataset: BeirDataset, index_root: Path) -> Path:
    # the BM25 settings are not part of the key: BM25 re-tokenizes its stored texts when reopened
    # with other settings, so pipelines that differ only there share one embedded corpus
    key = spec.settings_key("splitter", "embedder", "store", "loaders")
    digest = hashlib.sha256(key.encode()).hexdigest()[:10]
    return index_root / f"{dataset.name}-{digest}"


def build_eval_index(spec: PipelineSpec, dataset: BeirDataset, index_dir: Path) -> None:
    docs = (Document(d.full_text, {"source": d.id, "title": d.title}) for d in dataset.corpus.values())
    report = IndexingPipeline(spec, index_dir=index_dir).index_documents(docs)
    log.info("eval index %s: %d added, %d unchanged, %d texts embedded in %.1f s", index_dir,
             len(report.added), report.unchanged, report.texts_embedded, report.seconds)


def evaluate_pipelines(
    dataset_dir: str | Path,
    *,
    pipelines: Sequence[str | None] = (None,),
    retrievers: Sequence[str] = ("dense",),
    split: str = "test",
    k: int = 100,
    index_root: str | Path = ".ragkit/eval",
    progress: bool = False,
) -> tuple[EvalReport, BeirDataset]:
    dataset = load_beir(dataset_dir, split=split)
    named: dict[str, Any] = {}
    kbs: list[KnowledgeBase] = []
    try:
        for pfile in pipelines:
            spec = eval_spec(load_pipeline(pfile), retrievers)
            index_dir = index_for(spec, dataset, Path(index_root))
            build_eval_index(spec, dataset, index_dir)
            kb = KnowledgeBase(spec, index_dir)
            kbs.append(kb)
            label = "" if len(pipelines) == 1 else f"{Path(pfile).stem if pfile else 'defaults'}{LABEL_SEP}"
            for r in retrievers:
                named[f"{label}{r}"] = DocumentRetriever(build_named_retriever(kb, r))
        report = run_retrieval_eval(named, dataset.queries, dataset.qrels, k=k, progress=progress)
    finally:
        for kb in kbs:
            kb.close()
    return report, dataset
