"""`ragkit index` and `ragkit status`."""

from __future__ import annotations

import sys
from typing import Any

import click

from ragkit.cli.options import echo_json, index_option, json_option, pipeline_option


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@pipeline_option
@index_option
@click.option("--strict", is_flag=True, help="Fail the run at the first file that cannot be read.")
@click.option("--prune", is_flag=True,
              help="Allow removing all (or more than half) of the sources of a folder that is now empty or mostly gone.")
@click.option("--engine", type=click.Choice(["local", "ray"]), default=None,
              help="Where load/split/embed run (default: the pipeline's indexing.engine, else local).")
@click.option("--ray-address", metavar="ADDR", default=None,
              help="Ray cluster for --engine ray: auto, HOST:PORT or ray://HOST:10001 (default: indexing.ray.address).")
@json_option
def index(
    paths: tuple[str, ...], pipeline: str | None, index_dir: str | None, strict: bool, prune: bool,
    engine: str | None, ray_address: str | None, as_json: bool,
) -> None:
    """Build or update the index from files and folders.

    Incremental: unchanged files are skipped by content hash, changed files replace exactly their
    own chunks, deleted files leave the index. Files that cannot be read are skipped and listed
    by reason, with a count and examples (use --strict to fail instead); when every file is
    skipped the command exits with status 1. A folder that is now empty (an unmounted
    drive?) or lost more than half of its files keeps its sources unless --prune is given.
    Ctrl-C keeps every embedding computed so far: the next run takes them from the cache.

    \b
    Examples:
      ragkit index data/
      ragkit index docs/ notes/ --pipeline pipelines/default.yaml --index .ragkit/docs
      ragkit index data/ --json | jq .chunks_added
      ragkit index data/ --engine ray --ray-address 10.0.0.5:6379
    """
    from ragkit.index.reader import resolve_spec
    from ragkit.index.writer import IndexingPipeline

    spec, idx = resolve_spec(pipeline, index_dir)
    if engine is not None or ray_address is not None:
        spec = spec.with_engine(engine, ray_address)
    pipe = None
    try:
        with _Progress(disable=as_json or not sys.stderr.isatty()) as progress:
            pipe = IndexingPipeline(spec, index_dir=idx, strict=strict, progress=progress)
            report = pipe.index_paths(list(paths), prune=prune)
    except KeyboardInterrupt:
        done = pipe.report.texts_embedded if pipe is not None and pipe.report is not None else 0
        click.echo(
            f"interrupted: the {done} embeddings computed in this run are saved in the embedding cache; "
            "run the same command again to continue (nothing is embedded twice)",
            err=True,
        )
        sys.exit(130)
    if as_json:
        echo_json(report.to_dict())
    else:
        for line in report.summary_lines():
            click.echo(line)
    if report.nothing_indexed:
        click.echo(f"error: nothing could be indexed: all {len(report.skipped)} files were skipped (the reasons "
                   "are listed above); fix them, or map their extensions to a loader under loaders: in the pipeline",
                   err=True)
        sys.exit(1)


class _Progress:
    """tqdm bars on stderr: files processed, texts embedded (rate and ETA), chunks stored. While
    the bars are shown, log lines are written through tqdm so they do not break them."""

    #: event -> (bar, description, unit)
    BARS = {"file": ("files", "file"), "embedded": ("embedding", "chunk"), "chunks": ("stored", "chunk")}

    def __init__(self, *, disable: bool) -> None:
        self.disable = disable
        self.bars: dict[str, Any] = {}
        self._redirect: Any = None

    def __enter__(self) -> _Progress:
        if not self.disable:
            from tqdm.contrib.logging import logging_redirect_tqdm

            self._redirect = logging_redirect_tqdm()
            self._redirect.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        for bar in self.bars.values():
            bar.close()
        if self._redirect is not None:
            self._redirect.__exit__(*exc)

    def _bar(self, event: str) -> Any:
        from tqdm import tqdm

        if event not in self.bars:
            desc, unit = self.BARS[event]
            self.bars[event] = tqdm(total=0 if event == "embedded" else None, desc=desc, unit=unit,
                                    file=sys.stderr, position=len(self.bars), dynamic_ncols=True)
        return self.bars[event]

    def __call__(self, event: str, n: int) -> None:
        if self.disable:
            return
        if event == "total":
            self._bar("file").reset(total=n)
        elif event == "embed_total":  # more texts to embed: the embedding bar's total grows
            bar = self._bar("embedded")
            bar.total += n
            bar.refresh()
        elif event in self.BARS:
            self._bar(event).update(n)


@click.command()
@pipeline_option
@index_option
@click.option("--verify", is_flag=True, help="Check the vector store against the catalog and report drift.")
@json_option
def status(pipeline: str | None, index_dir: str | None, verify: bool, as_json: bool) -> None:
    """Show what is in the index: counts, size, last run, skipped files.

    With --verify, compare the chunk ids in the vector store with the catalog; exits with
    status 1 when they drift (run `ragkit index` again to repair).
    """
    from ragkit.index.status import index_status

    info = index_status(pipeline=pipeline, index=index_dir, verify=verify)
    if as_json:
        echo_json(info)
    else:
        _print_status(info)
    if verify and not info["verify"]["ok"]:
        sys.exit(1)


def _print_status(info: dict[str, Any]) -> None:
    t = info["totals"]
    click.echo(f"index: {info['index_dir']}  ({info['size_bytes'] / 1e6:.1f} MB on disk)")
    how = ", ".join(f"{k} {info[k]}" for k in ("backend", "recipe") if info.get(k))
    click.echo(f"pipeline: store {info['store']}, embedder {info['embedder']}" + (f" ({how})" if how else ""))
    if info.get("running"):
        pid = info["running"].get("pid")
        click.echo(f"an index run is in progress ({f'pid {pid}' if pid else 'pid unknown'}); "
                   "search works meanwhile, counts are shown when it ends")
    if t is not None:
        click.echo(f"sources: {t['sources']} indexed, {t['skipped']} skipped; chunks: {t['chunks']} "
                   f"({t['chunk_tokens']:,} tokens)")
    last = info.get("last_run")
    if last:
        s = last["stats"]
        click.echo(
            f"last run: #{last['id']} {last['status']} at {last['finished_at'] or last['started_at']} "
            f"({len(s.get('added', []))} added, {len(s.get('updated', []))} updated, "
            f"{len(s.get('removed', []))} removed, {last['embedding_tokens']:,} embedding tokens, {last['seconds']:.1f} s)"
        )
    _print_search_index(info.get("search_index"))
    if info.get("skipped_groups"):
        from ragkit.index.report import SkipGroup

        click.echo("skipped:")
        for g in info["skipped_groups"]:
            click.echo(f"  {SkipGroup(g['reason'], g['count'], tuple(g['examples'])).line()}")
    if "verify" in info:
        v = info["verify"]
        if v.get("busy"):
            click.echo("verify: not possible while the index run holds the catalog; try again when it ends")
        elif v.get("damaged"):
            click.echo(f"verify: DAMAGED: {v['damaged']}")
        elif v["ok"]:
            click.echo(f"verify: ok ({v['store_count']} chunks in the store match the catalog)")
        else:
            click.echo(
                f"verify: DRIFT: {len(v['missing_from_store'])} catalog chunks missing from the store, "
                f"{len(v['orphans_in_store'])} store chunks unknown to the catalog; run `ragkit index` to repair"
            )


def _print_search_index(si: dict[str, Any] | None) -> None:
    """One line on how the store searches: exact, or approximate with the recall it measured."""
    if not si or si.get("damaged"):
        return
    line = f"search: {si.get('search_mode', 'exact')} over {si.get('live', 0):,} vectors in {si.get('segments', 0)} segments"
    if si.get("ann_segments") or si.get("ivf_segments"):
        kinds = []
        if si.get("pq_segments"):
            kinds.append(f"{si['pq_segments']} PQ segments (re-rank {'/'.join(str(n) for n in si.get('rerank') or [])}, "
                         f"m {'/'.join(str(n) for n in si.get('pq_m') or [])})")
        if si.get("ivfpq_segments"):
            kinds.append(f"{si['ivfpq_segments']} IVF-PQ segments (lists {'/'.join(str(n) for n in si.get('nlist') or [])}, "
                         f"nprobe {'/'.join(str(n) for n in si.get('nprobe') or [])}, "
                         f"re-rank {'/'.join(str(n) for n in si.get('rerank') or [])})")
        if si.get("ivf_segments"):
            kinds.append(f"{si['ivf_segments']} IVF segments (nprobe {'/'.join(str(n) for n in si.get('nprobe') or [])})")
        rows = si.get("ann_rows", si.get("ivf_rows", 0))
        line += (f"; {rows:,} of them in {' and '.join(kinds)}, recall@10 {si['recall_at_10']:.3f} against exact "
                 "search, measured when built")
    click.echo(line)


__all__ = ["index", "status"]
