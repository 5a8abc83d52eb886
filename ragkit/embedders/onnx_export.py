"""Export a local sentence-transformers model to ONNX, optionally int8-quantize it, and cache it.

The cache entry is a directory ``<cache_dir>/<model-name>-<variant>-<key>/`` holding ``model.onnx``
and ``export.json``. The key hashes the model's weights and config, the export settings and
:data:`EXPORT_FORMAT_VERSION`, so a changed model or a changed recipe never reuses a stale file.
The weights' digest is kept in ``<cache_dir>/fingerprints/`` (keyed by path, size and mtime), so
a cold process finds its entry without reading the weights.
Entries are built in a temporary directory and renamed into place (atomic); a file lock makes two
processes that start at the same time export once.

The fp32 export is ``torch.onnx.export`` (opset 17) of the encoder, fused by ONNX Runtime's
transformer optimizer; an int8 export quantizes the fused graph's weights per channel with
``quantize_dynamic``, as one of the recipes of :data:`INT8_RECIPES` says (one record per recipe).
What each recipe does and the measurements that chose it: ``benchmarks/int8_recipes.md``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from ragkit.errors import ConfigError, EmbeddingError, MissingDependencyError

log = logging.getLogger(__name__)

#: bump when the exported graph or the quantization recipe changes; old cache entries are ignored
EXPORT_FORMAT_VERSION = 3  # 3: the fp32 export is fused (Attention, SkipLayerNorm, BiasGelu)
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
_HASHED_FILES = ("config.json", *_WEIGHT_FILES)
#: the outlier treatment of the ``-sq`` recipes (:mod:`ragkit.embedders.onnx_smooth`): the QKV
#: projections' inputs smoothed into their weights (alpha 0.5), and the FFN MatMuls' outlier input
#: channels (calibration maximum > 6x the median channel's) in fp32 MatMuls of their own
SQ = {"smooth": "qkv", "alpha": 0.5, "split": "ffn-in+ffn-out", "factor": 6.0}


@dataclass(frozen=True)
class Int8Recipe:
    """One int8 recipe: the weight type and range, and the graph rewrites before quantizing."""

    name: str
    weights: str  # "s8" (QInt8) | "u8" (QUInt8)
    reduce_range: bool  # 7-bit weights: u8 x s8 sums cannot saturate on AVX2 (2*255*63 fits 16 bits)
    #: integer sums that cannot saturate on any ISA class: the same vectors everywhere, no ISA in the variant
    portable: bool
    outliers: Mapping[str, Any] = field(default_factory=dict)  # ExportSettings smoothing fields (SQ)
    attention: str = ""  # "plain": QAttention in plain operators (onnx_attention), the same bits on every ISA
    layernorm: str = ""  # "plain": SkipLayerNormalization as Sum + LayerNormalization (onnx_layernorm)


#: the int8 recipes, one record each (``benchmarks/int8_recipes.md`` has their measurements)
INT8_RECIPES: dict[str, Int8Recipe] = {r.name: r for r in (
    Int8Recipe("s8-rr", "s8", True, portable=True),
    Int8Recipe("s8", "s8", False, portable=False),  # accurate only with VNNI: its variant names the class
    Int8Recipe("u8u8", "u8", False, portable=True),  # portable, about 2x slower
    Int8Recipe("s8-rr-sq", "s8", True, portable=True, outliers=SQ),
    Int8Recipe("s8-rr-sqx", "s8", True, portable=True, outliers=SQ, attention="plain"),
    Int8Recipe("s8-rr-sqxl", "s8", True, portable=True, outliers=SQ, attention="plain", layernorm="plain"),
)}
#: the weight-bearing nodes of the fused graph an int8 export can leave in fp32 (see :func:`fp32_nodes`),
#: and how the variant's name says so. No recipe of ragkit's does (yet): ``benchmarks/int8_recipes.py``
#: measures such mixed exports, and none kept nDCG@10 within 0.005 while running >= 1.3x fp32 on
#: both ISA classes (benchmarks/int8_recipes.md)
FP32_PARTS = {"qkv": "qkv", "ffn-out": "ffn", "ends": "ends"}
#: recipes whose integer sums cannot saturate on any ISA class: the same vectors everywhere
PORTABLE_RECIPES = frozenset(name for name, r in INT8_RECIPES.items() if r.portable)
#: ``recipe: auto``: the recipe per ISA class, for the indexes built with it
AUTO_RECIPES = {"vnni": "s8", "avx2": "s8-rr", "base": "s8-rr"}
#: what a new index uses: fp32's retrieval quality (no nDCG@10 loss on either shared set), and the
#: fastest recipe whose vectors are the same bits on AVX2 and VNNI machines, so an index moves
#: between them without drift
DEFAULT_RECIPE = "s8-rr-sqxl"
#: the values of the embedders' ``recipe`` option: the records above and ``auto`` (the one list: the
#: onnx and sentence-transformers embedders annotate their option with it, and the pipeline's
#: validation reads the annotation)
RECIPES: tuple[str, ...] = (*INT8_RECIPES, "auto")
Recipe = Literal[RECIPES]  # type: ignore[valid-type]


@dataclass(frozen=True)
class ExportSettings:
    """How to build one cached ONNX variant."""

    quantize: str = "none"  # "none" | "int8"
    optimize: bool = True  # ORT's transformer fusions in the fp32 export (the int8 one is built from it)
    weights: str = "s8"  # int8 weight type: "s8" (QInt8) | "u8" (QUInt8)
    per_channel: bool = True
    reduce_range: bool = False
    isa: str = ""  # the ISA class the recipe was chosen for (see ragkit.embedders.isa); int8 only
    opset: int = 17
    fp32: str = ""  # int8 only: weights kept fp32, "+"-joined FP32_PARTS ("" = every MatMul and Attention in int8)
    smooth: str = ""  # int8 only: inputs smoothed into the weights first, "+"-joined onnx_smooth.SMOOTH_PARTS
    alpha: float = 0.5  # the smoothing's migration strength (with smooth)
    split: str = ""  # int8 only: MatMuls ("ffn-in", "ffn-out") whose outlier input channels stay fp32
    factor: float = 6.0  # (with split) an outlier channel's calibration maximum exceeds factor x the median's
    attention: str = ""  # int8 only: "" (the fused QAttention) | "plain" (onnx_attention: the same bits on every ISA)
    layernorm: str = ""  # int8 only: "" (the fused SkipLayerNormalization) | "plain" (onnx_layernorm: 5x faster kernels)

    @property
    def recipe(self) -> str:
        """``u8u8`` (u8 activations × u8 weights) or ``s8`` / ``s8-rr`` (× s8 weights, 7-bit with rr)."""
        if self.quantize == "none":
            return "fp32"
        base = "u8u8" if self.weights == "u8" else "s8" + ("-rr" if self.reduce_range else "")
        kept = "-".join(FP32_PARTS[p] for p in self.fp32.split("+")) if self.fp32 else ""
        plain = ("x" if self.attention else "") + ("l" if self.layernorm else "")
        return base + (f"-{kept}32" if kept else "") + self._smooth_suffix() + plain

    def _smooth_suffix(self) -> str:
        """``-sq`` for the outlier treatment of ``s8-rr-sq``; others name their parts and strengths."""
        mine = {k: getattr(self, k) for k in ("smooth", "alpha", "split", "factor")}
        if not (self.smooth or self.split):
            return ""
        if mine == SQ:
            return "-sq"
        suffix = f"-sq{round(self.alpha * 100)}-{self.smooth.replace('+', '-')}" if self.smooth else ""
        return suffix + (f"-ol{self.factor:g}-{self.split.replace('+', '-')}" if self.split else "")

    @property
    def variant(self) -> str:
        """``fp32``, or e.g. ``int8-u8u8-avx2``: names the cache entry and ends the embedder's model id."""
        if self.quantize == "none":
            return "fp32"
        return f"{self.quantize}-{self.recipe}" + (f"-{self.isa}" if self.isa else "")


def int8_settings(recipe: str = DEFAULT_RECIPE, *, isa: str | None = None) -> ExportSettings:
    """The export settings of an int8 ``recipe`` (:data:`RECIPES`).

    A portable recipe (``s8-rr``, ``u8u8``) is the same on every processor and names no ISA class.
    ``s8`` names the class it runs on, and ``auto`` picks the recipe per class; the class is
    ``isa``, else ``$RAGKIT_INT8_ISA``, else this processor's (``RAGKIT_INT8_ISA=avx2`` builds the
    AVX2 choice of ``auto`` on a VNNI machine)."""
    if recipe not in RECIPES:
        raise ConfigError(f"unknown int8 recipe {recipe!r}: use one of {', '.join(RECIPES)}")
    cls = ""
    if recipe not in PORTABLE_RECIPES:
        if isa is None:
            from ragkit.embedders.isa import cpu_isa

            isa = os.environ.get("RAGKIT_INT8_ISA") or cpu_isa()
        if isa not in AUTO_RECIPES:
            raise ConfigError(
                f"unknown int8 ISA class {isa!r} (RAGKIT_INT8_ISA): use one of {', '.join(AUTO_RECIPES)}"
            )
        cls = isa
        recipe = AUTO_RECIPES[isa] if recipe == "auto" else recipe
    r = INT8_RECIPES[recipe]
    return ExportSettings(quantize="int8", weights=r.weights, reduce_range=r.reduce_range, isa=cls,
                          attention=r.attention, layernorm=r.layernorm, **r.outliers)


@dataclass(frozen=True)
class ExportedModel:
    """A ready-to-load ONNX file and what it expects."""

    path: Path
    input_names: tuple[str, ...]
    settings: ExportSettings


def default_cache_dir() -> Path:
    """``$RAGKIT_CACHE_DIR/onnx``, else ``$XDG_CACHE_HOME/ragkit/onnx``, else ``~/.cache/ragkit/onnx``."""
    root = os.environ.get("RAGKIT_CACHE_DIR")
    if root:
        return Path(root).expanduser() / "onnx"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "ragkit" / "onnx"


def model_fingerprint(model_dir: Path, *, memo_dir: Path | None = None) -> str:
    """sha256 over the model's config and weight files (names and contents).

    Hashed once per process for unchanged files (keyed by their paths, sizes and mtimes), and with
    ``memo_dir`` once per machine: the digest is kept there under the same key, so a cold process
    (``ragkit search``) does not read the weights again."""
    stats = []
    for name in _HASHED_FILES:
        with contextlib.suppress(OSError):
            st = (model_dir / name).stat()
            stats.append((name, st.st_size, st.st_mtime_ns))
    if memo_dir is None:
        return _fingerprint(model_dir, tuple(stats))
    key = hashlib.sha256(json.dumps([str(model_dir.resolve()), stats]).encode()).hexdigest()[:32]
    memo = memo_dir / "fingerprints" / key
    with contextlib.suppress(OSError, UnicodeDecodeError):
        digest = memo.read_text(encoding="ascii").strip()
        if len(digest) == 64:
            return digest
    digest = _fingerprint(model_dir, tuple(stats))
    with contextlib.suppress(OSError):  # best effort: a read-only cache only costs the hashing
        memo.parent.mkdir(parents=True, exist_ok=True)
        tmp = memo.with_name(f".{key}.{os.getpid()}")
        tmp.write_text(digest, encoding="ascii")
        os.replace(tmp, memo)
    return digest


@functools.lru_cache(maxsize=8)
def _fingerprint(model_dir: Path, stats: tuple[tuple[str, int, int], ...]) -> str:
    h = hashlib.sha256()
    found = False
    for name in _HASHED_FILES:
        path = model_dir / name
        if not path.is_file():
            continue
        found = found or name in _WEIGHT_FILES
        h.update(name.encode() + b"\0")
        with path.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    if not found:
        raise EmbeddingError(
            f"no model weights ({' or '.join(_WEIGHT_FILES)}) in {model_dir}; point `model` at a "
            "directory saved with SentenceTransformer.save() or model.save_pretrained()"
        )
    return h.hexdigest()


def cache_key(fingerprint: str, settings: ExportSettings) -> str:
    fields = asdict(settings)
    for name in ("fp32", "attention", "layernorm"):
        if not fields[name]:  # settings from before the field existed keep their cache entries
            del fields[name]
    extra = {}
    if fields["smooth"] or fields["split"]:  # the scales and outlier channels come from the calibration text
        from ragkit.embedders.onnx_smooth import calibration_digest

        extra["calibration"] = calibration_digest()
    else:  # as above
        for name in ("smooth", "alpha", "split", "factor"):
            del fields[name]
    payload = json.dumps({"model": fingerprint, "settings": fields, "format": EXPORT_FORMAT_VERSION, **extra},
                         sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def ensure_exported(
    model_dir: Path, *, cache_dir: Path, settings: ExportSettings, name: str | None = None
) -> ExportedModel:
    """Return the cached ONNX model for ``settings``, exporting (and quantizing) it first if needed."""
    fingerprint = model_fingerprint(model_dir, memo_dir=cache_dir)
    return _ensure(model_dir, cache_dir, settings, fingerprint, name or model_dir.name)


def cached_export(
    model_dir: Path, *, cache_dir: Path, settings: ExportSettings, name: str | None = None
) -> ExportedModel | None:
    """The cached ONNX model for ``settings`` if it was exported before, else None (nothing is built)."""
    fingerprint = model_fingerprint(model_dir, memo_dir=cache_dir)
    return _read_entry(_entry_dir(cache_dir, settings, fingerprint, name or model_dir.name), settings)


def _entry_dir(cache_dir: Path, settings: ExportSettings, fingerprint: str, name: str) -> Path:
    return cache_dir / f"{_safe(name)}-{settings.variant}-{cache_key(fingerprint, settings)}"


def _ensure(
    model_dir: Path, cache_dir: Path, settings: ExportSettings, fingerprint: str, name: str
) -> ExportedModel:
    key = cache_key(fingerprint, settings)
    entry = _entry_dir(cache_dir, settings, fingerprint, name)
    found = _read_entry(entry, settings)
    if found is not None:
        return found
    from filelock import FileLock  # only to export: filelock imports asyncio (~50 ms of a cold search)

    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise EmbeddingError(f"cannot create the ONNX cache directory {cache_dir}: {exc}; set cache_dir") from exc
    with FileLock(str(cache_dir / f".{key}.lock"), timeout=1800):
        found = _read_entry(entry, settings)  # another process may have finished meanwhile
        if found is not None:
            return found
        tmp = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=cache_dir))
        try:
            inputs = _build(model_dir, cache_dir, settings, fingerprint, name, tmp / "model.onnx")
            meta = {"model_dir": str(model_dir), "fingerprint": fingerprint, "inputs": list(inputs),
                    "settings": asdict(settings), "format": EXPORT_FORMAT_VERSION}
            (tmp / "export.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
            os.replace(tmp, entry)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    found = _read_entry(entry, settings)
    if found is None:  # pragma: no cover - os.replace succeeded, so the entry exists
        raise EmbeddingError(f"ONNX export did not produce {entry}; delete {cache_dir} and retry")
    return found


def _read_entry(entry: Path, settings: ExportSettings) -> ExportedModel | None:
    try:
        meta = json.loads((entry / "export.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not (entry / "model.onnx").is_file():
        return None
    return ExportedModel(entry / "model.onnx", tuple(meta["inputs"]), settings)


def _build(
    model_dir: Path, cache_dir: Path, settings: ExportSettings, fingerprint: str, name: str, out: Path
) -> tuple[str, ...]:
    started = time.perf_counter()
    if settings.quantize == "none":
        raw = out.with_name("exported.onnx")
        inputs = export_fp32(model_dir, raw, opset=settings.opset)
        if settings.optimize:
            fuse_or_keep(raw, out, model_dir=model_dir)
        else:
            raw.replace(out)
    else:  # from the fused fp32 export of the same model
        base = _ensure(model_dir, cache_dir, ExportSettings(opset=settings.opset), fingerprint, name)
        src = _treat_outliers(base, out.parent, settings, model_dir)
        quantize_int8(src, out, settings=settings)
        if src != base.path:
            src.unlink()
        _plain_operators(out, settings)
        inputs = base.input_names
    log.info("built ONNX %s model for %s in %.1f s", settings.variant, name, time.perf_counter() - started)
    return inputs


def _treat_outliers(base: ExportedModel, tmp: Path, settings: ExportSettings, model_dir: Path) -> Path:
    """The fp32 graph to quantize: ``base``, smoothed and/or with outlier channels split off."""
    if not (settings.smooth or settings.split):
        return base.path
    from ragkit.embedders.onnx_smooth import calibration_feeds, smooth_model, split_outliers

    src = base.path
    feeds = calibration_feeds(model_dir, base.input_names)
    if settings.smooth:
        smoothed = tmp / "smoothed.onnx"
        smooth_model(src, smoothed, feeds=feeds, alpha=settings.alpha, parts=settings.smooth.split("+"))
        src = smoothed
    if settings.split:
        split = tmp / "split.onnx"
        split_outliers(src, split, feeds=feeds, factor=settings.factor, parts=settings.split.split("+"))
        if src != base.path:
            src.unlink()
        src = split
    return src


def _plain_operators(model: Path, settings: ExportSettings) -> None:
    """Rewrite ``model`` in place with the fused nodes ``settings`` asks for in plain operators:
    ``QAttention`` (:mod:`ragkit.embedders.onnx_attention`), then ``SkipLayerNormalization``
    (:mod:`ragkit.embedders.onnx_layernorm`; a graph the optimizer did not fuse has none)."""
    from ragkit.embedders.onnx_attention import decompose_qattention
    from ragkit.embedders.onnx_layernorm import plain_layernorms

    rewrites = [r for wanted, r in ((settings.attention, decompose_qattention),
                                    (settings.layernorm, plain_layernorms)) if wanted]
    fused = model.with_name("fused.onnx")
    for rewrite in rewrites:
        model.replace(fused)
        rewrite(fused, model)
        fused.unlink()


def fuse_or_keep(src: Path, out: Path, *, model_dir: Path) -> None:
    """``out`` = ``src`` with ORT's transformer fusions (same vectors, fewer and faster kernels);
    a model the optimizer cannot handle is kept as exported."""
    try:
        with _quiet_loggers():
            optimize_bert(src, out, model_dir=model_dir)
        src.unlink()
    except Exception as exc:  # noqa: BLE001 - an unusual architecture still runs unfused
        log.warning("ONNX Runtime's transformer optimizer failed on %s (%s); using the unfused export", model_dir, exc)
        out.unlink(missing_ok=True)
        src.replace(out)


def export_fp32(model_dir: Path, out: Path, *, opset: int = 17) -> tuple[str, ...]:
    """Export the encoder's ``last_hidden_state`` with dynamic batch and sequence axes."""
    try:
        import torch
        from transformers import AutoModel
    except ImportError as exc:
        raise MissingDependencyError("torch", "local", "exporting the model to ONNX (once)") from exc
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    log.info("exporting %s to ONNX (once; cached afterwards)", model_dir)
    with contextlib.suppress(Exception):  # no "Loading weights" bar on the user's terminal
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    try:
        model = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager", local_files_only=True)
    except Exception as exc:
        raise EmbeddingError(f"could not load the transformer in {model_dir} for ONNX export: {exc}") from exc
    model.eval()
    import inspect

    wanted = ("input_ids", "attention_mask", "token_type_ids")
    names = tuple(n for n in wanted if n in inspect.signature(model.forward).parameters)
    wrapper = _HiddenStateWrapper(model, names)
    example = tuple(torch.ones(2, 8, dtype=torch.long) if n != "token_type_ids"
                    else torch.zeros(2, 8, dtype=torch.long) for n in names)
    example[names.index("attention_mask")][1, 5:] = 0  # a padded row, so masking is traced
    axes = {n: {0: "batch", 1: "sequence"} for n in (*names, "last_hidden_state")}
    _quiet_export(lambda: torch.onnx.export(
        wrapper, example, str(out), input_names=list(names), output_names=["last_hidden_state"],
        dynamic_axes=axes, opset_version=opset, do_constant_folding=True, dynamo=False,
    ))
    return names


class _HiddenStateWrapper:  # becomes a torch.nn.Module subclass lazily (torch is optional)
    def __new__(cls, model: Any, names: tuple[str, ...]) -> Any:
        import torch

        class Wrapper(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.model = model

            def forward(self, *args: Any) -> Any:
                return self.model(**dict(zip(names, args, strict=True))).last_hidden_state

        return Wrapper().eval()


def _quiet_export(run: Any) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TracerWarnings about shape checks that are constant for us
        try:
            run()
        except Exception as exc:
            raise EmbeddingError(f"torch.onnx.export failed: {exc}") from exc


def quantize_int8(src: Path, out: Path, *, settings: ExportSettings) -> None:
    """Dynamic int8 weight quantization (per channel) of the fused fp32 model ``src``."""
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise MissingDependencyError("onnxruntime", "local") from exc
    try:
        keep = fp32_nodes(src, settings.fp32) if settings.fp32 else []
        if settings.split:
            from ragkit.embedders.onnx_smooth import outlier_matmuls

            keep += outlier_matmuls(src)
        with _quiet_loggers():
            quantize_dynamic(
                str(src), str(out), weight_type=QuantType.QUInt8 if settings.weights == "u8" else QuantType.QInt8,
                per_channel=settings.per_channel, nodes_to_exclude=keep,
                reduce_range=settings.reduce_range, extra_options={"DefaultTensorType": 1},  # FLOAT
            )
    except Exception as exc:
        raise EmbeddingError(f"int8 quantization of {src} failed: {exc}; use quantize: none") from exc


def fp32_nodes(model: Path, parts: str) -> list[str]:
    """Names of the weight-bearing nodes (``Attention``, ``MatMul`` with a constant weight) of the
    fused graph ``model`` that ``parts`` ("+"-joined) keeps in fp32: ``qkv``, the ``Attention``
    nodes (query, key and value projections); ``ffn-out``, each layer's second feed-forward MatMul
    (the one fed by the GELU, whose inputs have the widest range); ``ends``, every weight of the
    first and the last layer (a layer starts at its ``Attention`` node)."""
    import onnx

    wanted = set(parts.split("+"))
    if not wanted <= set(FP32_PARTS):
        raise ConfigError(f"unknown fp32 parts {parts!r}: use {' and/or '.join(FP32_PARTS)} joined by '+'")
    graph = onnx.load(str(model), load_external_data=False).graph
    weights = {t.name for t in graph.initializer}
    producer = {out: n.op_type for n in graph.node for out in n.output}
    layers: list[list[Any]] = []
    for node in graph.node:  # topological order
        if node.op_type == "Attention":
            layers.append([])
        if layers and (node.op_type == "Attention" or (node.op_type == "MatMul" and node.input[1] in weights)):
            layers[-1].append(node)
    if not layers:
        raise EmbeddingError(f"{model} has no fused Attention nodes; keeping parts in fp32 needs the fused graph")
    keep: list[str] = []
    if "qkv" in wanted:
        keep += [n.name for layer in layers for n in layer if n.op_type == "Attention"]
    if "ffn-out" in wanted:
        gelus = ("BiasGelu", "Gelu", "FastGelu")
        keep += [n.name for layer in layers for n in layer if producer.get(n.input[0]) in gelus]
    if "ends" in wanted:
        keep += [n.name for layer in (layers[0], layers[-1]) for n in layer]
    return sorted(set(keep))


@contextlib.contextmanager
def _quiet_loggers() -> Iterator[None]:
    """ORT's optimizer and quantizer log every fused node and tensor at INFO (some on the root logger)."""
    names = ("", "onnx_model", "onnx_model_bert", "fusion_base", "fusion_utils")
    loggers = [logging.getLogger(n) for n in names]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(max(lg.getEffectiveLevel(), logging.ERROR))
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


def optimize_bert(src: Path, out: Path, *, model_dir: Path) -> None:
    """ORT's offline BERT fusions (Attention, SkipLayerNormalization, BiasGelu, EmbedLayerNorm)."""
    from onnxruntime.transformers.optimizer import optimize_model

    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    model_type = config.get("model_type", "bert")
    opt = optimize_model(
        str(src), model_type=model_type if model_type in ("bert", "roberta") else "bert",
        num_heads=int(config.get("num_attention_heads", 0)), hidden_size=int(config.get("hidden_size", 0)),
        opt_level=0,
    )
    log.debug("ORT fusions: %s", opt.get_fused_operator_statistics())
    opt.save_model_to_file(str(out))


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:64] or "model"
