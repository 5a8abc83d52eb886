"""The ``ray`` indexing engine: load, split and embed the changed sources on a Ray cluster.

The writer (``index/writer.py``) stays the single, crash-safe committer; this engine only
replaces its producer. On the driver (the ``ragkit index`` process):

1. Discovery and change detection, exactly as locally (``Preparer.check``: check the file, hash
   its bytes, compare with the catalog). Unchanged sources and files refused by the checks go
   straight to the writer; nothing is shipped for them, so an unchanged re-run never touches
   the cluster.
2. The embedding cache's text hashes for this model go into the object store once, as sorted
   64-bit keys (8 bytes per cached text, shared by the actors of a node; ``Catalog.cached_keys``);
   the workers embed only chunk texts outside it (a changed file re-embeds only its changed chunks,
   nothing cached is re-embedded remotely).
3. The changed sources become a Ray Dataset; ``map_batches`` runs ``_LoadSplitEmbed`` in an actor
   pool of ``embed_actors`` actors (each builds the loaders, splitter and embedder, and loads the
   model, once): per batch of ``batch_size`` sources it loads and splits them with the same
   ``Preparer`` as the local engine (a bad file is skipped with the same reason) and embeds the
   uncached texts sorted by length. Actors and their tasks are retried when a worker dies.
4. Results stream back (``iter_batches``) as ``Prepared`` sources carrying their fresh vectors;
   the writer commits them in its usual order (cache, sinks, persist, catalog) and the workers'
   embedding usage is added to the driver's embedder, so the run report sums it. Each batch
   names the node that did it; the run report counts the batches per node (``ray_nodes``).
5. Work lost with a node (its actors, or the results held in its object store) that Ray's own
   restarts do not recover fails the stream with a Ray system error: the driver then ships the
   sources it has not received yet again, up to ``RETRIES`` times (``ray_reshipped`` in the
   report). A source is committed once, when it is received, so nothing is duplicated. An error
   in our own code on a worker (a user error) is not retried.

The files must be readable at the same path on every node (a shared or network file system).
"""

from __future__ import annotations

import logging
import pickle
import socket
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.config import PipelineSpec, RaySpec
from ragkit.errors import MissingDependencyError, RagkitError
from ragkit.index.cache_keys import key_of
from ragkit.index.catalog import Catalog, SourceRow, has_key
from ragkit.index.components import Components
from ragkit.index.layout import IndexLayout
from ragkit.index.prepare import Prepared, Preparer, Unit
from ragkit.index.report import IndexReport

log = logging.getLogger(__name__)
#: a worker that dies is restarted, and its batch retried, this many times before the run fails
RETRIES = 3
#: seconds to wait for the cluster's GCS port to accept a connection before giving up
PROBE_TIMEOUT = 10.0


def prepared_on_ray(
    units: Iterator[Unit], parts: Components, spec: PipelineSpec, known: Mapping[str, SourceRow], catalog: Catalog,
    report: IndexReport,
) -> Iterator[Prepared]:
    """The writer's stream of prepared sources, with the changed ones done on the cluster."""
    checker = Preparer(parts, spec, known)
    ship: list[Unit] = []
    for unit in units:
        p = checker.check(unit)
        if p.unchanged or p.error is not None:
            yield p
        else:
            ship.append(unit)
    if not ship:
        log.info("ray engine: no new or changed sources; nothing shipped to the cluster")
        return
    ray = _import_ray()
    opts = spec.indexing.ray
    started = connect(opts.address)
    try:
        emb = parts.embedder
        cached = ray.put(catalog.cached_keys(emb.model_id))  # 8 B per cached text, shared per node
        log.info("ray engine: shipping %d sources to %d embed actor(s)", len(ship), opts.embed_actors)
        for p, (tokens, texts, cost), node in _resilient(ship, spec, parts.layout.root, cached, opts, report):
            if texts:
                emb.usage.add(tokens, texts, cost)
            if node:
                report.ray_nodes[node] = report.ray_nodes.get(node, 0) + 1
            yield p
    finally:
        if started:
            ray.shutdown()


def connect(address: str) -> bool:
    """Connect to the cluster at ``address`` (see ``RaySpec``) unless Ray is already initialized in
    this process; True when this call initialized it (the caller then shuts it down)."""
    ray = _import_ray()
    if ray.is_initialized():
        return False
    quiet: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
    if address != "auto":
        if not address.startswith("ray://"):
            _probe(address)  # ray.init retries an address nothing answers on for minutes
        try:
            ray.init(address=address, **quiet)
        except (ConnectionError, TimeoutError, RuntimeError) as exc:
            raise _unreachable(address, str(exc)) from None
        return True
    try:
        ray.init(address="auto", **quiet)
    except ConnectionError:
        log.info("ray engine: no running Ray cluster found; starting a local one")
        ray.init(include_dashboard=False, **quiet)
    return True


Usage = tuple[int, int, float | None]


def _resilient(
    ship: list[Unit], spec: PipelineSpec, index_dir: Path, cached: Any, opts: RaySpec, report: IndexReport
) -> Iterator[tuple[Prepared, Usage, str]]:
    """``_stream`` of ``ship``; when the cluster loses work, the sources not received yet again."""
    pending = {(u.root, u.source): u for u in ship}
    for attempt in range(RETRIES + 1):
        try:
            for p, used, node in _stream(list(pending.values()), spec, index_dir, cached, opts):
                if pending.pop((p.root, p.source), None) is not None:  # a source is yielded once
                    yield p, used, node
            return
        except Exception as exc:  # noqa: BLE001 - only Ray's lost-work errors are retried
            if not _lost_work(exc) or (attempt == RETRIES and pending):
                raise
            if not pending:  # every source was received before the cluster failed
                return
            log.warning("ray engine: the cluster lost work (%s); shipping the %d source(s) not received yet again",
                        _first_line(exc), len(pending))
            report.ray_reshipped += len(pending)


def _lost_work(exc: BaseException) -> bool:
    """A Ray system error (a dead actor, worker or node; an object lost with its node), possibly
    wrapped in a task error, and not an error raised by our code on a worker."""
    import ray.exceptions as rex

    lost = (rex.RayActorError, rex.WorkerCrashedError, rex.NodeDiedError, rex.ObjectLostError, rex.RaySystemError)
    seen: BaseException | None = exc
    for _ in range(8):  # a short chain of causes
        if seen is None:
            return False
        if isinstance(seen, lost):
            return True
        seen = getattr(seen, "cause", None) or seen.__cause__
    return False


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]


def _probe(address: str, timeout: float = PROBE_TIMEOUT) -> None:
    """Fail now, naming the address, when nothing accepts a connection at the cluster's GCS port."""
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise _unreachable(address, f"nothing accepts connections there ({exc})") from None


def _unreachable(address: str, why: str) -> RagkitError:
    return RagkitError(
        f"could not connect to the Ray cluster at {address} (indexing.ray.address or --ray-address): {why}. "
        "Start its head with `ray start --head --port PORT` and use the address it prints, or use "
        "address: auto (the cluster in RAY_ADDRESS or on this machine, else a local one)"
    )


def _stream(
    ship: list[Unit], spec: PipelineSpec, index_dir: Path, cached: Any, opts: RaySpec
) -> Iterator[tuple[Prepared, Usage, str]]:
    import ray.data

    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.verbose_progress = False
    blocks = min(-(-len(ship) // opts.batch_size), 200)
    ds = ray.data.from_items([{"unit": pickle.dumps(u)} for u in ship], override_num_blocks=blocks)
    with warnings.catch_warnings():
        # Ray 2.60 deprecates remote args for 2.64 without a replacement for max_restarts yet
        warnings.filterwarnings("ignore", message=".*ray_remote_args.* is deprecated")
        ds = _load_split_embed(ds, spec, index_dir, cached, opts, actors=min(opts.embed_actors, blocks))
    for batch in ds.iter_batches(batch_size=None, batch_format="numpy"):
        for blob, tokens, texts, cost, node in zip(
            batch["prepared"], batch["tokens"], batch["texts"], batch["cost"], batch["node"], strict=True
        ):
            yield pickle.loads(blob), (int(tokens), int(texts), None if cost is None else float(cost)), str(node)


def _load_split_embed(ds: Any, spec: PipelineSpec, index_dir: Path, cached: Any, opts: RaySpec, *, actors: int) -> Any:
    import ray.data

    return ds.map_batches(
        _LoadSplitEmbed,
        fn_constructor_kwargs={"spec": spec, "index_dir": str(index_dir), "cached": cached},
        batch_size=opts.batch_size,
        batch_format="numpy",
        compute=ray.data.ActorPoolStrategy(size=actors),  # no more actors than blocks of work
        num_cpus=opts.num_cpus_per_worker,
        ray_remote_args_fn=_retries,
    )


class _LoadSplitEmbed:
    """One actor of the pool: loads, splits and embeds batches of sources."""

    def __init__(self, spec: PipelineSpec, index_dir: str, cached: Any) -> None:
        import ray

        self.parts = Components(spec, IndexLayout(index_dir))
        self.preparer = Preparer(self.parts, spec, {})  # the driver already decided what changed
        # sorted 64-bit keys of the cached text hashes: a numpy array read from the object store
        # without a copy, so the actors of a node share one
        self.cached: np.ndarray = ray.get(cached) if isinstance(cached, ray.ObjectRef) else cached
        self.parts.embedder.load_for_documents()  # the model, once per actor
        self.node = ray.get_runtime_context().get_node_id()

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, list[Any]]:
        prepared = list(self.preparer.prepare_all(pickle.loads(blob) for blob in batch["unit"]))
        todo: dict[str, str] = {}
        for p in prepared:
            for c, h in zip(p.chunks, p.chunk_hashes(), strict=True):
                if not has_key(self.cached, key_of(h)):
                    todo.setdefault(h, c.indexed_text)
        order = sorted(todo, key=lambda h: len(todo[h]))  # length-sorted: little padding
        emb = self.parts.embedder
        before = emb.usage.snapshot()
        vectors = dict(zip(order, emb.embed_documents([todo[h] for h in order]), strict=True)) if order else {}
        used = emb.usage.since(before)
        for p in prepared:
            p.vectors = {h: vectors[h] for h in p.chunk_hashes() if h in vectors}
        n = len(prepared)
        # the batch's usage, and the node that did it, ride on its first row
        return {
            "prepared": [pickle.dumps(p) for p in prepared],
            "tokens": [used.tokens] + [0] * (n - 1),
            "texts": [len(order)] + [0] * (n - 1),
            "cost": [used.cost] + [0.0] * (n - 1),
            "node": [self.node] + [""] * (n - 1),
        }


def _retries() -> dict[str, int]:
    """Ray options of each actor: restarted when its worker dies, its batch retried."""
    return {"max_restarts": RETRIES, "max_task_retries": RETRIES}


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise MissingDependencyError("ray", "ray", "indexing.engine: ray") from None
    return ray


__all__ = ["connect", "prepared_on_ray"]
