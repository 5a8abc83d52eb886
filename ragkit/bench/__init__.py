"""``ragkit bench``: an honest vector-store benchmark.

``datasets`` (seeded synthetic vectors or a ``.npy`` matrix; exact ground truth by brute force),
``config`` (``configs/bench.yaml``: backends and profiles), ``runner`` (servers, one worker
process per backend), ``worker`` and ``measure`` (build and query figures, sanity checks),
``metrics`` (recall, percentiles), ``report`` (Markdown, PNG) and ``results`` (the DuckDB file
behind ``--compare``). Nothing here is imported by ``import ragkit``.
"""
