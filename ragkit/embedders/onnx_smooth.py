"""Take activation outliers out of dynamic int8 quantization: two exact transforms of a fused fp32
BERT graph, calibrated on a text that ships with ragkit (recipe ``s8-rr-sq``).

Dynamic quantization gives each activation tensor one u8 range (per tensor, per run). A few input
channels of some weight-bearing nodes carry values far larger than the rest (outliers: up to 16x
the median channel's maximum in MiniLM's FFN inputs), so that range is wide and the other channels
lose their precision.

- :func:`smooth_model` (SmoothQuant, Xiao et al. 2022) moves part of the range into the weights:
  input channel ``j`` is divided by ``s_j`` (a ``Mul`` inserted before the node) and row ``j`` of
  the weight multiplied by it, ``s_j = max|X_j| ** alpha / max|W_j| ** (1 - alpha)`` rounded to a
  power of two. ``s8-rr-sq`` smooths the QKV projections' inputs (the fused ``Attention``). The
  ``Mul`` cannot be folded into the LayerNorm's gamma and beta: each LayerNorm output also feeds
  the residual connection. On the FFN MatMuls smoothing made int8 *worse* (smoothing the FFN output
  MatMuls' inputs took the model's mean cosine to fp32 from 0.9935 to 0.9864): their outlier channels' weight rows already
  set most columns' per-channel weight ranges, so scaling them up coarsens every weight.
- :func:`split_outliers` (LLM.int8()-style decomposition) therefore gives the FFN MatMuls' outlier
  channels (calibration maximum above ``factor`` x the median channel's) an fp32 MatMul of their
  own and zeroes them for the int8 one (a 0/1 ``Mul``; their weight rows zeroed, which narrows
  the columns' ranges too).

Both leave the fp32 graph's outputs as they were (powers of two scale exactly; the split only
reorders a sum). Determinism across processors: the activation maxima differ between CPUs' fp32
kernels in the last bits only, and a power-of-two scale or an outlier choice changes only if a
value lies within that distance of a boundary; for all-MiniLM-L6-v2 the nearest is 6.7e-5
(relative) away, and the exports built natively and under ``tools/avx2_only/run`` are
byte-identical. The calibration text (``ragkit/_data/calibration.txt``: generic sentences, no
evaluation data) is part of the export's cache key.

Parts (:data:`SMOOTH_PARTS`): ``qkv`` (the fused ``Attention`` nodes' QKV projection), ``ffn-in``
(the first FFN MatMul, fed by a LayerNorm), ``ffn-out`` (the second, fed by the GELU).
"""

from __future__ import annotations

import functools
import hashlib
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.errors import ConfigError, EmbeddingError

log = logging.getLogger(__name__)

#: the parts smoothing can apply to
SMOOTH_PARTS = ("qkv", "ffn-in", "ffn-out")
_GELUS = ("BiasGelu", "Gelu", "FastGelu")
CALIBRATION_FILE = Path(__file__).resolve().parents[1] / "_data" / "calibration.txt"


@functools.lru_cache(maxsize=1)
def calibration_texts() -> tuple[str, ...]:
    """The calibration sentences that ship with ragkit (one per line)."""
    lines = CALIBRATION_FILE.read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip())


def calibration_digest() -> str:
    """Part of a smoothed export's cache key: another calibration text gives other scales."""
    return hashlib.sha256("\n".join(calibration_texts()).encode()).hexdigest()[:16]


def smooth_targets(graph: Any, parts: Iterable[str]) -> list[tuple[str, Any]]:
    """``(part, node)`` for each node of the fused ``graph`` that ``parts`` smooths, in graph order."""
    wanted = set(parts)
    if not wanted <= set(SMOOTH_PARTS):
        raise ConfigError(f"unknown smoothing parts {sorted(wanted - set(SMOOTH_PARTS))}: use {', '.join(SMOOTH_PARTS)}")
    weights = {t.name for t in graph.initializer}
    producer = {out: n.op_type for n in graph.node for out in n.output}
    consumers: dict[str, list[str]] = {}
    for n in graph.node:
        for name in n.input:
            consumers.setdefault(name, []).append(n.op_type)
    found: list[tuple[str, Any]] = []
    for node in graph.node:
        if node.op_type == "Attention" and node.input[1] in weights:
            part = "qkv"
        elif node.op_type == "MatMul" and node.input[1] in weights:
            if producer.get(node.input[0]) in _GELUS:
                part = "ffn-out"
            elif any(c in _GELUS for c in consumers.get(node.output[0], [])):
                part = "ffn-in"
            else:
                continue
        else:
            continue
        if part in wanted:
            found.append((part, node))
    return found


def calibration_feeds(model_dir: Path, input_names: tuple[str, ...], max_length: int = 512) -> list[dict[str, np.ndarray]]:
    """One run per calibration text (as the embedder runs texts: no padding)."""
    from ragkit.embedders.models import load_tokenizer
    from ragkit.embedders.onnx_session import session_feeds

    tokenizer = load_tokenizer(model_dir, max_length)
    return [session_feeds([enc], len(enc.ids), input_names)[0]
            for enc in tokenizer.encode_batch(list(calibration_texts()))]


def activation_maxima(model: Any, names: list[str], feeds: Iterable[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Per channel (last axis), the largest absolute value of each tensor ``names`` of the ONNX
    ``model`` over the runs ``feeds`` (one session, one thread: the same sums every run)."""
    import onnx
    import onnxruntime as ort

    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    del probe.graph.output[:]
    for name in names:
        probe.graph.output.append(onnx.helper.make_empty_tensor_value_info(name))
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(probe.SerializeToString(), options, providers=["CPUExecutionProvider"])
    maxima: dict[str, np.ndarray] = {}
    for feed in feeds:
        for name, value in zip(names, session.run(names, feed), strict=True):
            m = np.abs(value.reshape(-1, value.shape[-1])).max(axis=0)
            maxima[name] = np.maximum(maxima[name], m) if name in maxima else m
    return maxima


def power_of_two_scales(x_max: np.ndarray, w_max: np.ndarray, alpha: float) -> np.ndarray:
    """``2 ** round(log2(x_max ** alpha / w_max ** (1 - alpha)))`` per channel (1 where either is 0)."""
    x = np.asarray(x_max, dtype=np.float64)
    w = np.asarray(w_max, dtype=np.float64)
    ok = (x > 0) & (w > 0)
    log2 = np.zeros_like(x)
    log2[ok] = alpha * np.log2(x[ok]) - (1 - alpha) * np.log2(w[ok])
    return np.exp2(np.clip(np.rint(log2), -16, 16)).astype(np.float32)


def smooth_model(src: Path, out: Path, *, feeds: list[dict[str, np.ndarray]], alpha: float,
                 parts: Iterable[str]) -> dict[str, np.ndarray]:
    """Write ``out``: ``src`` with the inputs of ``parts`` smoothed, calibrated on the runs ``feeds``
    (:func:`calibration_feeds`). Returns the scales per smoothed node."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(src))
    graph = model.graph
    targets = smooth_targets(graph, parts)
    if not targets:
        raise EmbeddingError(f"{src} has no fused Attention/MatMul nodes to smooth")
    maxima = activation_maxima(model, sorted({node.input[0] for _, node in targets}), feeds)
    inits = {t.name: t for t in graph.initializer}
    scales: dict[str, np.ndarray] = {}
    for i, (part, node) in enumerate(targets):
        init = inits[node.input[1]]
        weight = numpy_helper.to_array(init)
        s = power_of_two_scales(maxima[node.input[0]], np.abs(weight).max(axis=1), alpha)
        init.CopyFrom(numpy_helper.from_array((weight * s[:, None]).astype(np.float32), init.name))
        inv = numpy_helper.from_array((1.0 / s).astype(np.float32), f"smooth_{i}_inverse_scale")
        graph.initializer.append(inv)
        smoothed = f"{node.input[0]}_smoothed_{i}"
        mul = onnx.helper.make_node("Mul", [node.input[0], inv.name], [smoothed], name=f"Smooth_{i}_{part}")
        node.input[0] = smoothed
        graph.node.insert(list(graph.node).index(node), mul)
        scales[node.name] = s
    onnx.save(model, str(out))
    log.info("smoothed %d nodes (%s, alpha %.2f)", len(targets), "+".join(sorted(set(parts))), alpha)
    return scales


def split_outliers(src: Path, out: Path, *, feeds: list[dict[str, np.ndarray]], factor: float,
                   parts: Iterable[str]) -> dict[str, list[int]]:
    """Write ``out``: ``src`` where the input channels of ``parts``' MatMuls whose calibration
    maximum (over the runs ``feeds``) exceeds ``factor`` times the median channel's go through an
    fp32 MatMul of their own (``Gather`` of those channels, ``MatMul`` by their weight rows, ``Add``),
    named ``Outlier_*`` (:func:`outlier_matmuls`: left fp32 by the quantizer). The int8 MatMul sees
    them zeroed (a ``Mul`` by a 0/1 mask) and their weight rows zeroed, which also narrows the
    per-column weight ranges those rows set. Returns the channels per node."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(src))
    graph = model.graph
    targets = [(p, n) for p, n in smooth_targets(graph, parts) if n.op_type == "MatMul"]
    maxima = activation_maxima(model, sorted({n.input[0] for _, n in targets}), feeds)
    inits = {t.name: t for t in graph.initializer}
    chosen: dict[str, list[int]] = {}
    for i, (_, node) in enumerate(targets):
        x = maxima[node.input[0]]
        idx = [int(j) for j in np.flatnonzero(x > factor * np.median(x))]
        if not idx:
            continue
        init = inits[node.input[1]]
        weight = numpy_helper.to_array(init)
        kept = weight.copy()
        kept[idx, :] = 0
        init.CopyFrom(numpy_helper.from_array(kept, init.name))
        mask = np.ones(weight.shape[0], dtype=np.float32)
        mask[idx] = 0
        names = {k: f"Outlier_{i}_{k}" for k in ("mask", "idx", "w", "xm", "xo", "yo", "y")}
        graph.initializer.extend([
            numpy_helper.from_array(mask, names["mask"]),
            numpy_helper.from_array(np.array(idx, dtype=np.int64), names["idx"]),
            numpy_helper.from_array(weight[idx, :].astype(np.float32), names["w"]),
        ])
        x_name, y_name = node.input[0], node.output[0]
        pos = list(graph.node).index(node)
        new = [
            onnx.helper.make_node("Mul", [x_name, names["mask"]], [names["xm"]], name=f"Outlier_{i}_mask"),
            onnx.helper.make_node("Gather", [x_name, names["idx"]], [names["xo"]], name=f"Outlier_{i}_gather", axis=-1),
            onnx.helper.make_node("MatMul", [names["xo"], names["w"]], [names["yo"]], name=f"Outlier_{i}_matmul"),
        ]
        for k, n in enumerate(new):
            graph.node.insert(pos + k, n)
        node.input[0] = names["xm"]
        node.output[0] = names["y"]
        add = onnx.helper.make_node("Add", [names["y"], names["yo"]], [y_name], name=f"Outlier_{i}_add")
        graph.node.insert(list(graph.node).index(node) + 1, add)
        chosen[node.name] = idx
    onnx.save(model, str(out))
    log.info("split %d outlier channels off %d MatMuls (factor %g)", sum(map(len, chosen.values())), len(chosen), factor)
    return chosen


def outlier_matmuls(model: Path) -> list[str]:
    """The fp32 MatMuls :func:`split_outliers` added to ``model`` (the quantizer leaves them out)."""
    import onnx

    graph = onnx.load(str(model), load_external_data=False).graph
    return [n.name for n in graph.node if n.op_type == "MatMul" and n.name.startswith("Outlier_")]
