"""Open an ONNX Runtime session on a cached export, fast on every open after the first.

Creating a session parses the whole protobuf, copies every weight out of it and runs the graph
optimizer: about half of a cold ``ragkit search`` once PyTorch is out of the way. So the first
session of an export saves its optimized graph (``ORT_ENABLE_EXTENDED``: fusions that do not
depend on the processor) next to the export, in ``optimized-ort<version>/``, with the weights in
an external file ``model.data`` that ONNX Runtime maps instead of copying; later sessions open
that copy. Measured on 2 shared cores: session creation 145-290 ms from ``model.onnx``, 65-155 ms
from the optimized copy, identical outputs (``benchmarks/cold_search.py`` has the whole-process
figures). The copy is named after the ONNX Runtime version, so an upgrade optimizes again, and
is written in a temporary directory and renamed into place; when it cannot be written (a
read-only cache) or cannot be loaded, the session opens ``model.onnx`` as before.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

MODEL_FILE = "model.onnx"
DATA_FILE = "model.data"


def optimized_dir(model: Path, ort_version: str) -> Path:
    """Where the optimized copy of ``model`` lives for this ONNX Runtime version."""
    return model.parent / f"optimized-ort{ort_version}"


def open_session(model: Path, *, threads: int) -> Any:
    """An ``InferenceSession`` of ``model`` (or of its optimized copy) on ``threads`` intra-op threads."""
    import onnxruntime as ort

    copy = optimized_dir(model, ort.__version__)
    if (copy / MODEL_FILE).is_file() and (copy / DATA_FILE).is_file():
        try:
            return _session(ort, copy / MODEL_FILE, threads)
        except Exception as exc:  # a damaged copy: the export itself still works
            log.warning("could not load the optimized ONNX model %s (%s); using %s", copy, exc, model)
            return _session(ort, model, threads)
    try:
        tmp = Path(tempfile.mkdtemp(prefix=".optimizing-", dir=model.parent))
    except OSError as exc:  # a read-only cache
        log.debug("not saving an optimized copy of %s: %s", model, exc)
        return _session(ort, model, threads)
    try:
        session = _session(ort, model, threads, save=tmp / MODEL_FILE)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    try:
        os.replace(tmp, copy)
        log.debug("saved the optimized ONNX graph of %s in %s", model, copy)
    except OSError:  # another process saved it first (the directory exists and is not empty)
        shutil.rmtree(tmp, ignore_errors=True)
    return session


def _session(ort: Any, path: Path, threads: int, *, save: Path | None = None) -> Any:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    # idle workers sleep instead of spinning: on a shared 2-core box (and beside the pipeline's
    # loader thread) this measured 12% (fp32) to 18% (int8) faster than ORT's default
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if save is None:
        # on the saved copy the extended fusions are done already; the layout passes of
        # ENABLE_ALL depend on this processor, so they are never saved and run here
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    else:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        options.optimized_model_filepath = str(save)
        options.add_session_config_entry("session.optimized_model_external_initializers_file_name", DATA_FILE)
        options.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def session_feeds(encodings: list[Any], width: int, input_names: tuple[str, ...] | list[str]) -> tuple[dict[str, Any], Any]:
    """The inputs of one session run over ``encodings`` (tokenizer encodings) padded to ``width``
    tokens, and their attention mask (``token_type_ids`` only when the graph has that input)."""
    import numpy as np

    ids = np.zeros((len(encodings), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, enc in enumerate(encodings):
        n = len(enc.ids)
        ids[row, :n] = enc.ids
        mask[row, :n] = 1
    feeds = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in input_names:
        feeds["token_type_ids"] = np.zeros_like(ids)
    return feeds, mask
