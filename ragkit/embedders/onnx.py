"""ONNX Runtime embedder for sentence-transformers models (BERT-like encoder + mean pooling).

The ONNX graph is exported once from the locally installed model, fused by ONNX Runtime's
transformer optimizer and cached (see :mod:`ragkit.embedders.onnx_export`); ``quantize: int8``
adds dynamic per-channel int8 weights with an int8 ``recipe``: ``s8-rr-sqxl`` (the default) gives
the same vectors, bit for bit, on AVX2 and VNNI processors, ``s8`` and ``auto`` depend on the
processor's ISA class (:mod:`ragkit.embedders.isa`). The model id names the recipe
(``all-MiniLM-L6-v2+onnx-int8-s8-rr-sqxl``).

Inference tokenizes each call's texts once with the model's fast tokenizer and, by default
(``batch_tokens: 0``), runs every text on its own: no padding at all, activations small enough to
stay in the core's cache, and for int8 activation ranges of that text alone, so a text's vector
never depends on the texts embedded with it (a query gets the vector its text has as a document;
the Ray and local engines agree). On 2 cores this took 15 % less CPU than batches of 2,048 tokens
and about 30 % less than 64 texts per run, for int8 and fp32 alike
(``docs/benchmarks/runs.md``). ``batch_tokens: N`` instead orders the texts by token length and cuts the order into
batches of at most N tokens with padding (at most ``batch_size`` texts). A long call (documents)
runs on one single-threaded session per core the process may use (``os.sched_getaffinity``),
each on its own thread taking the next text (longest first, so the cores run out of work
together) and tokenizing it itself, so no serial tokenizing phase leaves the cores idle: one
text's kernels are too small to share out between threads well, so this ran 1.2x (fp32) and 1.5x
(int8) the throughput of one session on both cores, with the same bits. A short call (a query)
runs on one session with all cores, which answers it soonest; an index run
(``load_for_documents``) opens only the per-core sessions. Pooling and normalization run in NumPy.

Neither onnxruntime nor torch is imported until the first embed call; torch is needed only for
the one-time export.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ragkit.embedders.base import Embedder, normalize_rows
from ragkit.embedders.models import load_tokenizer, resolve_model_dir
from ragkit.embedders.onnx_export import (
    DEFAULT_RECIPE,
    ExportedModel,
    ExportSettings,
    Recipe,
    cached_export,
    default_cache_dir,
    ensure_exported,
    int8_settings,
)
from ragkit.embedders.onnx_session import open_session, session_feeds
from ragkit.errors import ConfigError, EmbeddingError, MissingDependencyError
from ragkit.registry import embedders

log = logging.getLogger(__name__)
Quantize = Literal["none", "int8"]
#: tokens (padding included) per session run; 0: one text per run (see the module docstring)
BATCH_TOKENS = 0
#: a call with at least this many session runs per core runs them on one single-threaded session
#: per core (each text's kernels are too small to share out well; 1.2x fp32's and 1.5x int8's
#: throughput on 2 cores, the same bits: docs/benchmarks/runs.md); fewer, e.g. a query, run
#: on one session with all cores
PER_CORE_MIN_RUNS = 4
_SUPPORTED_MODULES = (
    "sentence_transformers.models.Transformer",
    "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize",
)


@embedders.register("onnx")
class OnnxEmbedder(Embedder):
    """``embedder: {type: onnx, model: all-MiniLM-L6-v2, quantize: int8, recipe: s8-rr-sqxl}``.

    ``recipe`` (int8 only): ``s8-rr-sqxl`` (the default: outlier channels treated, the attention and
    the layer norms in plain operators; the same bits on every processor class), ``s8-rr-sqx`` (the
    default before: the same with ONNX Runtime's fused, slower layer norms), ``s8-rr-sq`` (fused
    attention too: vectors within cosine 0.999 across classes),
    ``s8-rr`` (portable, faster, further from fp32), ``s8`` (VNNI processors only),
    ``u8u8`` (portable, slower) or ``auto`` (per ISA class); ``isa`` names the ISA class for ``s8``
    and ``auto`` (``vnni``, ``avx2``; default ``$RAGKIT_INT8_ISA``, else this processor's).
    """

    def __init__(
        self,
        *,
        model: str = "all-MiniLM-L6-v2",
        quantize: Quantize = "none",
        recipe: Recipe = DEFAULT_RECIPE,
        batch_size: int = 64,
        batch_tokens: int = BATCH_TOKENS,
        max_length: int | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        threads: int | None = None,
        isa: str | None = None,
    ) -> None:
        super().__init__()
        if quantize not in ("none", "int8"):
            raise ConfigError(f"quantize must be 'none' or 'int8' (got {quantize!r})")
        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1 (got {batch_size})")
        if batch_tokens < 0:
            raise ConfigError(f"batch_tokens must be 0 (one text per run) or more (got {batch_tokens})")
        if threads is not None and threads < 1:
            raise ConfigError(f"threads must be at least 1, or omitted for all cores (got {threads})")
        if importlib.util.find_spec("onnxruntime") is None:
            raise MissingDependencyError("onnxruntime", "local")
        self.model_name = model
        self.quantize = quantize
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.threads = threads or _available_cores()
        self.cache_dir = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
        self._dir = resolve_model_dir(model)
        self._dim, limit = _check_model_dir(self._dir)
        self.max_length = _check_max_length(max_length, self._dir, limit)
        # the cache entry is named after the resolved directory, so a name and its path share one export
        self._name = self._dir.parent.name if self._dir.name == "model" else self._dir.name
        label = self._name if Path(model).expanduser().is_dir() else model.split("/")[-1]
        # the id names the int8 recipe (and, for a processor-dependent one, the ISA class), so an
        # index never mixes recipes
        self.settings = int8_settings(recipe, isa=isa) if quantize == "int8" else ExportSettings()
        self.recipe = recipe if quantize == "int8" else None
        self.model_id = f"{label}+onnx" + (f"-{self.settings.variant}" if quantize == "int8" else "")
        self._lock = threading.Lock()
        self._exported: ExportedModel | None = None
        self._session: Any = None
        self._per_core: list[Any] = []  # single-threaded sessions, one per core, for long calls
        self._input_names: tuple[str, ...] = ()
        self._tokenizer: Any = None
        self._counter: Any = None

    # ------------------------------------------------------------------ contract
    @property
    def dimension(self) -> int:
        return self._dim

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` without [CLS]/[SEP] and without truncation."""
        if self._counter is None:
            self._counter = load_tokenizer(self._dir)
        return len(self._counter.encode(text, add_special_tokens=False).ids)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_counted(texts)[0]

    def embed_counted(self, texts: Sequence[str]) -> tuple[np.ndarray, int]:
        """The vectors of ``texts`` and the tokens embedded (without [CLS]/[SEP], after truncation)."""
        texts = list(texts)
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        if not texts:
            return out, 0
        tokenizer = self._load()
        if self.batch_tokens == 0 and self._per_core_call(len(texts)):
            lengths = self._embed_per_core(texts, tokenizer, out)
        else:
            encodings = tokenizer.encode_batch(texts)
            lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(texts))
            batches = length_batches(lengths, self.batch_tokens, self.batch_size)

            def run(sess: Any, idx: np.ndarray) -> None:
                feeds, mask = session_feeds([encodings[i] for i in idx], int(lengths[idx[-1]]), self._input_names)
                out[idx] = _mean_pool_normalize(sess.run(["last_hidden_state"], feeds)[0], mask)

            if self._per_core_call(len(batches)):
                _run_per_core(self._per_core_sessions(), batches, run)
            else:  # a query or a few texts: one session on all cores answers soonest
                session = self._all_cores_session()
                for idx in batches:
                    run(session, idx)
        specials = 2  # [CLS] and [SEP] (or <s> and </s>)
        tokens = int(np.maximum(lengths - specials, 0).sum())
        self._record(tokens, len(texts))
        return out, tokens

    def _per_core_call(self, runs: int) -> bool:
        """Whether a call of ``runs`` session runs goes to the per-core sessions: a long call, or,
        once they are open (an index run) and the all-cores session is not, any call of two runs
        or more (an index run's last, short call opens no other session)."""
        if self.threads < 2:
            return False
        return runs >= PER_CORE_MIN_RUNS * self.threads or (runs > 1 and bool(self._per_core) and self._session is None)

    def _embed_per_core(self, texts: list[str], tokenizer: Any, out: np.ndarray) -> np.ndarray:
        """One text per run on the per-core sessions, each worker tokenizing the text it takes, so
        one core tokenizes while the other runs the model (no serial tokenizing phase); longest
        first, so the cores run out of work together. Returns each text's token count."""
        lengths = np.zeros(len(texts), dtype=np.int64)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))

        def run(sess: Any, i: int) -> None:
            enc = tokenizer.encode(texts[i])
            lengths[i] = len(enc.ids)
            feeds, mask = session_feeds([enc], len(enc.ids), self._input_names)
            out[i] = _mean_pool_normalize(sess.run(["last_hidden_state"], feeds)[0], mask)

        _run_per_core(self._per_core_sessions(), order, run)
        return lengths

    def saved_options(self) -> dict[str, Any]:
        return {"quantize": self.quantize, **({"recipe": self.recipe} if self.recipe else {})}

    def is_exported(self) -> bool:
        """Whether this model's ONNX file for these settings is already in the cache (no export runs)."""
        return self._exported is not None or cached_export(
            self._dir, cache_dir=self.cache_dir, settings=self.settings, name=self._name
        ) is not None

    def load(self) -> None:
        """Export (once, cached) and open the session queries run on (all cores) now rather than on
        first use."""
        self._all_cores_session()

    def load_for_documents(self) -> None:
        """Export (once, cached) and open the sessions documents run on (one per core) now."""
        if self.threads > 1:
            self._per_core_sessions()
        else:
            self._all_cores_session()

    # ------------------------------------------------------------------ internals
    def _load(self) -> Any:
        """The export (built once, cached) and the tokenizer; returns the tokenizer."""
        with self._lock:
            if self._exported is None:
                exported = ensure_exported(
                    self._dir, cache_dir=self.cache_dir, settings=self.settings,
                    name=self._name,
                )
                self._input_names = exported.input_names
                self._tokenizer = load_tokenizer(self._dir, self.max_length)
                self._exported = exported
        return self._tokenizer

    def _all_cores_session(self) -> Any:
        """The session on all ``threads`` cores (queries and short calls), opened on first use."""
        self._load()
        with self._lock:
            if self._session is None:
                self._session = self._open(self._exported)  # type: ignore[arg-type]
        return self._session

    def _per_core_sessions(self) -> list[Any]:
        """``threads`` single-threaded sessions of the export ``_load`` found, opened on the first long call."""
        self._load()
        with self._lock:
            if not self._per_core:
                self._per_core = [self._open(self._exported, threads=1)  # type: ignore[arg-type]
                                  for _ in range(self.threads)]
        return self._per_core

    def _open(self, exported: ExportedModel, *, threads: int | None = None) -> Any:
        threads = threads or self.threads
        try:
            session = open_session(exported.path, threads=threads)
        except ImportError as exc:  # pragma: no cover - checked in __init__
            raise MissingDependencyError("onnxruntime", "local") from exc
        except Exception as exc:
            raise EmbeddingError(
                f"could not load the cached ONNX model {exported.path}: {exc}; delete that directory "
                "to re-export it"
            ) from exc
        log.info("ONNX %s session for %s (%d threads)", exported.settings.variant, self._name, threads)
        return session


def _run_per_core(sessions: list[Any], batches: Sequence[Any], run: Any) -> None:
    """``run(session, batch)`` for every batch (an array of text indexes, or one text's index),
    each session on a thread of its own taking the next batch when it is done (ONNX Runtime
    releases the GIL while it runs); a worker's error is raised here after the others stop."""
    pending = iter(batches)
    lock = threading.Lock()
    errors: list[BaseException] = []

    def work(session: Any) -> None:
        while not errors:
            with lock:
                idx = next(pending, None)
            if idx is None:
                return
            try:
                run(session, idx)
            except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
                errors.append(exc)

    workers = [threading.Thread(target=work, args=(s,), name=f"onnx-core-{i}", daemon=True)
               for i, s in enumerate(sessions)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if errors:
        raise errors[0]


def length_batches(lengths: np.ndarray, batch_tokens: int, batch_size: int) -> list[np.ndarray]:
    """Indexes of ``lengths`` in ascending length order, cut into batches of at most ``batch_size``
    rows whose padded size (rows × the longest) stays within ``batch_tokens`` (a longer text, and
    with ``batch_tokens`` 0 every text, gets a batch of its own); each batch's last index is its
    longest text."""
    order = np.argsort(lengths, kind="stable")
    batches: list[np.ndarray] = []
    start = 0
    n = len(order)
    while start < n:
        end = start + 1
        while end < n and end - start < batch_size and (end - start + 1) * lengths[order[end]] <= batch_tokens:
            end += 1
        batches.append(order[start:end])
        start = end
    return batches


def _mean_pool_normalize(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    if hidden.shape[0] == 1:  # one text, no padding: the mean over its tokens
        return normalize_rows(hidden[0].mean(axis=0, dtype=np.float32)[None, :])
    weights = mask[..., None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    return normalize_rows(summed / np.maximum(weights.sum(axis=1), 1e-9))


def _available_cores() -> int:
    """The cores this process may run on (its CPU affinity), or fewer when ``OMP_NUM_THREADS``
    says so (Ray sets it to an actor's ``num_cpus``, so two embed actors do not share threads)."""
    try:
        cores = max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        cores = max(1, os.cpu_count() or 1)
    omp = os.environ.get("OMP_NUM_THREADS", "")
    return min(cores, int(omp)) if omp.isdigit() and int(omp) > 0 else cores


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise EmbeddingError(f"could not read {path}: {exc}") from exc
    return data if isinstance(data, dict) else {}


def _check_model_dir(model_dir: Path) -> tuple[int, int]:
    """Validate the sentence-transformers layout; return (dimension, max position embeddings)."""
    config = _read_json(model_dir / "config.json")
    if not config or not (model_dir / "tokenizer.json").is_file():
        raise EmbeddingError(
            f"{model_dir} is not a usable model directory (it needs config.json and tokenizer.json); "
            "save the model with SentenceTransformer.save() and point `model` at that directory"
        )
    modules = _read_json_list(model_dir / "modules.json")
    unsupported = [m.get("type") for m in modules if m.get("type") not in _SUPPORTED_MODULES]
    if unsupported:
        raise EmbeddingError(
            f"the onnx embedder supports Transformer + mean Pooling (+ Normalize) models; {model_dir} also "
            f"has {unsupported}; use the sentence-transformers embedder with backend: torch"
        )
    pooling_dir = next((m.get("path", "") for m in modules if m.get("type", "").endswith("Pooling")), "")
    pooling = _read_json(model_dir / pooling_dir / "config.json") if pooling_dir else {}
    modes = [k for k, v in pooling.items() if k.startswith("pooling_mode") and v]
    if pooling and modes != ["pooling_mode_mean_tokens"]:
        raise EmbeddingError(
            f"the onnx embedder implements mean pooling only, {model_dir} uses {modes}; use the "
            "sentence-transformers embedder with backend: torch"
        )
    dim = int(pooling.get("word_embedding_dimension") or config.get("hidden_size") or 0)
    if dim < 1:
        raise EmbeddingError(f"cannot tell the embedding dimension of {model_dir} (no hidden_size in config.json)")
    return dim, int(config.get("max_position_embeddings", 512))


def _read_json_list(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [m for m in data if isinstance(m, dict)] if isinstance(data, list) else []


def _check_max_length(max_length: int | None, model_dir: Path, limit: int) -> int:
    if max_length is None:
        max_length = int(_read_json(model_dir / "sentence_bert_config.json").get("max_seq_length", limit))
    if not 2 < max_length <= limit:
        raise ConfigError(
            f"max_length must be between 3 and the model's {limit} position embeddings (got {max_length})"
        )
    return max_length
