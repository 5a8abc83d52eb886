"""The index: everything that reads or writes an index directory.

- ``layout``: every path inside an index directory
- ``components``: embedder, splitter, store, lexical index and retrievers built from a spec
- ``sources``: which files to index and their names; ``prepare``: load + split a source
- ``loading``: one file through its loader under the pipeline's ``limits:``; ``load_worker``: the
  loader process that runs ragkit's parsers under a time limit and a memory ceiling
- ``catalog``: the DuckDB catalog (sources, chunks, runs, embedding cache); ``ids``: chunk ids
- ``sinks``: the ``IndexSink`` protocol the vector store and the BM25 index are kept in step by
- ``writer``: ``IndexingPipeline``, the incremental, crash-safe writer; ``report``: its report
- ``lock``: the single-writer lock and the pid of the run holding it
- ``reader``: ``KnowledgeBase``, an index opened for search; ``status``: status and verify

Importing this package imports none of them (``import ragkit`` stays light).
"""
