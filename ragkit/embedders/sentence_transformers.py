"""Local sentence-transformers embedder (default: all-MiniLM-L6-v2, loaded offline).

``backend`` says what computes the vectors: ``onnx-int8`` (the default: ONNX Runtime with int8
weights in the ``s8-rr-sqxl`` recipe: about 1.5-2.5× fp32's throughput on a CPU, the same
retrieval quality as fp32, the same vectors bit for bit on AVX2 and VNNI processors; ``recipe``
picks another), ``onnx`` (ONNX Runtime fp32: PyTorch's vectors, fused graph, no PyTorch at run time) or ``torch``
(PyTorch, e.g. on a GPU). The ONNX backends delegate to
:mod:`ragkit.embedders.onnx`; the export is built once from the same local model (with PyTorch)
and cached. An index keeps the backend and recipe it was built with in its saved pipeline
(:meth:`saved_options`), so a later change of these defaults never changes its vectors.

The model loads on the first embed call, so an unchanged re-index imports neither torch nor
onnxruntime. Token counting uses the model's fast tokenizer directly (no torch).

Queries of the ``torch`` backend (unless ``query_backend: torch``) run through the ONNX fp32
export of the same model when onnxruntime is installed (it gives the same vectors, cosine
≥ 0.99999, and loads in a fraction of PyTorch's time), so a cold ``ragkit search`` never imports
torch: the export is used when it is cached, and built once when it is not and PyTorch is not
loaded in the process yet. Documents always go through the configured backend.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal

import numpy as np

from ragkit.embedders.base import Embedder, normalize_rows
from ragkit.embedders.models import load_tokenizer, resolve_model_dir
from ragkit.embedders.onnx_export import DEFAULT_RECIPE, Recipe, int8_settings
from ragkit.errors import ConfigError, EmbeddingError, MissingDependencyError
from ragkit.registry import embedders

log = logging.getLogger(__name__)
Backend = Literal["torch", "onnx", "onnx-int8"]
QueryBackend = Literal["auto", "torch"]
#: what a new index embeds with (config.DEFAULT_EMBEDDER spells it out)
DEFAULT_BACKEND = "onnx-int8"


@embedders.register("sentence-transformers")
class SentenceTransformerEmbedder(Embedder):
    def __init__(
        self,
        *,
        model: str = "all-MiniLM-L6-v2",
        batch_size: int = 64,
        device: str = "cpu",
        backend: Backend = DEFAULT_BACKEND,
        recipe: Recipe = DEFAULT_RECIPE,
        max_seq_length: int | None = None,
        query_prefix: str = "",
        document_prefix: str = "",
        query_backend: QueryBackend = "auto",
    ) -> None:
        super().__init__()
        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1 (got {batch_size})")
        if backend not in ("torch", "onnx", "onnx-int8"):
            raise ConfigError(f"backend must be one of torch, onnx, onnx-int8 (got {backend!r})")
        if query_backend not in ("auto", "torch"):
            raise ConfigError(f"query_backend must be auto or torch (got {query_backend!r})")
        if device != "cpu" and backend != "torch":
            raise ConfigError(f"device: {device} needs backend: torch (the {backend} backend runs ONNX Runtime on the CPU)")
        self.model_name = model
        self.batch_size = batch_size
        self.device = device
        self.backend = backend
        self.recipe = recipe
        self.query_backend = query_backend
        self.query_prefix = query_prefix
        self.document_prefix = document_prefix
        self._max_seq_length = max_seq_length
        self._dir = resolve_model_dir(model)  # fails fast, before anything runs
        self._model: Any = None
        self._query_model: Any = None  # the ONNX fp32 embedder for queries, False when not usable
        self._tokenizer: Any = None
        self._dim: int | None = None
        self._lock = threading.Lock()
        # int8 names its recipe (e.g. +onnx-int8-s8-rr; a processor-dependent one also its ISA class)
        int8 = int8_settings(recipe) if backend == "onnx-int8" else None  # checks the recipe
        suffix = f"+onnx-{int8.variant}" if int8 is not None else {"torch": "", "onnx": "+onnx"}[backend]
        self.model_id = f"{model.split('/')[-1]}{suffix}"

    # ------------------------------------------------------------------ lazy resources
    @property
    def max_seq_length(self) -> int:
        if self._max_seq_length is None:
            self._max_seq_length = _read_max_seq_length(self._dir)
        return self._max_seq_length

    @property
    def tokenizer(self) -> Any:
        if self._tokenizer is None:
            self._tokenizer = load_tokenizer(self._dir)
        return self._tokenizer

    def load(self) -> None:
        self._load()

    def load_for_queries(self) -> None:
        """The model queries use: for the torch backend the cached ONNX fp32 export when it can be
        used (a cold ``ragkit ask``/``chat``/``serve`` never imports PyTorch), else this backend's."""
        if self._onnx_for_queries() is None:
            self._load()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = self._load_backend()
        return self._model

    def _load_backend(self) -> Any:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        if self.backend != "torch":
            from ragkit.embedders.onnx import OnnxEmbedder

            return OnnxEmbedder(
                model=str(self._dir), quantize="int8" if self.backend == "onnx-int8" else "none",
                recipe=self.recipe, batch_size=self.batch_size, max_length=self.max_seq_length,
            )
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise MissingDependencyError("sentence-transformers", "local", "local embeddings") from exc
        log.info("loading embedding model %s from %s", self.model_name, self._dir)
        _quiet_transformers()
        try:
            m = SentenceTransformer(str(self._dir), device=self.device, local_files_only=True)
        except Exception as exc:
            raise EmbeddingError(f"could not load embedding model from {self._dir}: {exc}") from exc
        m.max_seq_length = self.max_seq_length
        return m

    @property
    def dimension(self) -> int:
        if self._dim is None:
            self._dim = _read_dimension(self._dir) or int(self._dimension_from_model())
        return self._dim

    def _dimension_from_model(self) -> int:
        m = self._load()
        if isinstance(m, Embedder):
            return m.dimension
        return int(m.get_sentence_embedding_dimension())

    # ------------------------------------------------------------------ contract
    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def count_tokens_batch(self, texts: Sequence[str]) -> list[int]:
        encs = self.tokenizer.encode_batch(list(texts), add_special_tokens=False)
        return [len(e.ids) for e in encs]

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode([self.document_prefix + t for t in texts])

    def saved_options(self) -> dict[str, object]:
        return {"backend": self.backend, **({"recipe": self.recipe} if self.backend == "onnx-int8" else {})}

    def embed_query(self, text: str) -> np.ndarray:
        onnx = self._onnx_for_queries()
        if onnx is not None or self.backend != "torch":
            return self._encode([self.query_prefix + text], model=onnx)[0]
        with _one_torch_thread():
            return self._encode([self.query_prefix + text])[0]

    def embed_few(self, texts: Sequence[str]) -> np.ndarray:
        onnx = self._onnx_for_queries()  # a torch model's queries go through its ONNX export: so do these
        if not texts or onnx is None:
            return self.embed_documents(texts)
        return self._encode([self.document_prefix + t for t in texts], model=onnx)

    def _encode(self, texts: list[str], *, model: Any = None) -> np.ndarray:
        model = model or self._load()
        if hasattr(model, "embed_counted"):  # the onnx backends, or the fp32 export for queries
            vecs, tokens = model.embed_counted(texts)  # tokenized once, counted from the same ids
            self._record(tokens, len(texts))
            return vecs  # type: ignore[no-any-return]
        limit = self.max_seq_length - 2  # [CLS] and [SEP]
        tokens = sum(min(n, limit) for n in self.count_tokens_batch(texts))
        vecs = model.encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False,
        )
        self._record(tokens, len(texts))
        return normalize_rows(vecs)

    def _onnx_for_queries(self) -> Any:
        """The ONNX fp32 embedder of this model for a torch-backed query, or None to use PyTorch.

        None when ``query_backend: torch`` is set, the backend is not torch, the device is not the
        CPU, the torch model is already loaded, onnxruntime is missing, the model is not one the onnx embedder supports, or the
        export is not cached and PyTorch is already imported (exporting would then cost more than
        the query). Decided once per embedder.
        """
        if self.query_backend == "torch" or self.backend != "torch" or self.device != "cpu":
            return None
        if self._model is not None:  # the torch model is loaded already (e.g. after indexing)
            return None
        with self._lock:
            if self._query_model is None:
                self._query_model = _open_query_model(str(self._dir), self.max_seq_length) or False
        return self._query_model or None


def _open_query_model(model_dir: str, max_length: int) -> Any:
    if importlib.util.find_spec("onnxruntime") is None:
        return None
    from ragkit.embedders.onnx import OnnxEmbedder

    try:
        onnx = OnnxEmbedder(model=model_dir, max_length=max_length)
        if "torch" in sys.modules and not onnx.is_exported():
            return None
        onnx.load()  # exports once (cached) when needed
    except (EmbeddingError, ConfigError, MissingDependencyError) as exc:
        log.info("queries are embedded with PyTorch: the ONNX fp32 model is not usable (%s)", exc)
        return None
    log.debug("queries are embedded with the ONNX fp32 export of %s", model_dir)
    return onnx


def _quiet_transformers() -> None:
    """No 'Loading weights' progress bars from transformers on the user's terminal."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except Exception:  # pragma: no cover - older/newer transformers
        pass


def _read_json(path: Any) -> dict[str, Any]:
    import json

    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _read_max_seq_length(model_dir: Any) -> int:
    cfg = _read_json(model_dir / "sentence_bert_config.json")
    return int(cfg.get("max_seq_length", 256))


def _read_dimension(model_dir: Any) -> int | None:
    pooling = _read_json(model_dir / "1_Pooling" / "config.json")
    dim = pooling.get("word_embedding_dimension")
    return int(dim) if dim else None


@contextmanager
def _one_torch_thread() -> Iterator[None]:
    """Encode one query on one torch thread, then restore the thread count.

    A query is a few dozen tokens: splitting its small matrix products over several threads
    gains little on a quiet machine, and on a loaded one every operator waits at a barrier for
    its slowest thread to be scheduled. Measured on 2 shared cores at load average 11
    (benchmarks/eval_latency.py, dbpedia-5k-dev): dense retrieval p50 426 ms / p95 1,524 ms with
    torch's default 2 threads, 38 ms / 55 ms with one. torch's OpenMP thread count belongs to
    the calling thread, so batch embedding in other threads keeps its own setting.
    """
    import torch

    before = torch.get_num_threads()
    if before <= 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)
