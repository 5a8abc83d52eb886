"""The segmented faiss store (``index: auto``/``flat``): commits that write only what they add,
background merges, approximate segments (PQ + exact re-rank, or IVF) with calibrated recall, tombstones, crash safety, upgrades."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("faiss")

from ragkit.stores._faiss_single import SingleFileFaiss  # noqa: E402
from ragkit.stores._segments import MANIFEST  # noqa: E402
from ragkit.stores.faiss import FaissStore  # noqa: E402
from ragkit.testing.contract import brute_force, make_queries, make_rows  # noqa: E402

DIM = 32


def _store(path: Path | None, **over: object) -> FaissStore:
    opts: dict[str, object] = {"build": {"ann_min": 400, "merge_factor": 4}, "search": {"exact_max": 600}}
    opts.update(over)
    return FaissStore(dimension=DIM, path=path, index="auto", **opts)  # type: ignore[arg-type]


def _fill(store: FaissStore, rows, step: int) -> None:
    ids, x, meta = rows
    for a in range(0, len(ids), step):
        store.add(ids[a : a + step], x[a : a + step], meta[a : a + step])
        store.persist()
    store.wait_merges()


def test_a_commit_writes_only_what_it_adds(tmp_path: Path) -> None:
    s = _store(tmp_path / "s", build={"merge_factor": 1000})
    rows = make_rows(600, DIM, 1)
    _fill(s, rows, 100)
    before = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "s").rglob("*") if p.is_file() and p.name != MANIFEST}
    ids, x, meta = make_rows(50, DIM, 2)
    s.add(ids, x, meta)
    s.persist()
    after = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "s").rglob("*") if p.is_file() and p.name != MANIFEST}
    assert all(after.get(name) == stamp for name, stamp in before.items())  # nothing rewritten
    assert s.count() == 650


@pytest.mark.parametrize("ann", ["pq", "ivfpq", "ivf"])
def test_merges_build_an_approximate_index_with_measured_recall_and_filters_work(tmp_path: Path, ann: str) -> None:
    s = _store(tmp_path / "s", build={"ann": ann, "ann_min": 400, "merge_factor": 4})
    rows = make_rows(2000, DIM, 3)
    _fill(s, rows, 50)
    info = s.describe()
    assert info[f"{ann}_segments"] >= 1 and info["ann_segments"] == info[f"{ann}_segments"]
    assert info["search_mode"] == "approximate"
    assert info["recall_at_10"] is not None and info["recall_at_10"] >= 0.95
    assert info["segments"] < 2000 // 50  # merged
    assert s._log._pick() == []  # each merge started the next: no backlog left once merges settle
    if ann in ("pq", "ivfpq"):
        assert info["rerank"] and info["pq_m"] == [DIM // 2]
    if ann == "ivfpq":
        assert info["nlist"] and info["nprobe"] and max(info["nprobe"]) <= max(info["nlist"])
    queries = make_queries(40, DIM, 3)
    found = total = 0
    for q in queries:
        truth = [i for i, _ in brute_force(rows, q, 10)]
        got = [h.id for h in s.search(q, k=10)]
        assert len(got) == len(set(got)) == 10
        found += len(set(truth) & set(got))
        total += 10
    assert found / total >= 0.9
    flt = {"source": "doc3.md"}
    for q in queries[:5]:
        assert [h.id for h in s.search(q, k=5, filter=flt)] == [i for i, _ in brute_force(rows, q, 5, flt)][:5] or \
            all(h.metadata["source"] == "doc3.md" for h in s.search(q, k=5, filter=flt))
    reopened = _store(tmp_path / "s")
    assert reopened.count() == 2000 and reopened.describe()[f"{ann}_segments"] == info[f"{ann}_segments"]


@pytest.mark.parametrize("ann", ["pq", "ivfpq"])
def test_pq_segments_keep_filters_and_tombstones_exact_enough(tmp_path: Path, ann: str) -> None:
    """A filter that keeps half the rows lengthens the shortlist; one that keeps few is searched
    exactly; deleted rows never come back; a fixed ``search.rerank`` overrides the calibrated one."""
    s = _store(tmp_path / "s", build={"ann": ann, "ann_min": 400, "merge_factor": 4})
    ids, x, meta = make_rows(2000, DIM, 5)
    for i, m in enumerate(meta):
        m["half"] = i % 2
        m["rare"] = i % 97 == 0
    _fill(s, (ids, x, meta), 100)
    assert s.describe()[f"{ann}_segments"] >= 1
    gone = set(ids[::3])
    s.delete(sorted(gone))
    s.persist()
    rows = ([i for i in ids if i not in gone], np.stack([v for i, v in zip(ids, x, strict=True) if i not in gone]),
            [m for i, m in zip(ids, meta, strict=True) if i not in gone])
    found = total = 0
    for q in make_queries(20, DIM, 6):
        for flt in ({"half": 1}, {"rare": True}):
            truth = [i for i, _ in brute_force(rows, q, 10, flt)]
            got = [h.id for h in s.search(q, k=10, filter=flt)]
            assert len(got) == min(10, len(truth)) and not gone & set(got)
            if flt == {"rare": True}:
                assert got == truth  # few matching rows: exact
            found += len(set(truth) & set(got))
            total += len(truth)
    assert found / total >= 0.9
    tiny = _store(tmp_path / "s", search={"exact_max": 600, "rerank": 10})
    assert tiny.describe()["rerank"] == [10]
    assert len(tiny.search(make_queries(1, DIM, 7)[0], k=10)) == 10


def test_ivf_segments_built_before_the_pq_index_still_open_and_search(tmp_path: Path) -> None:
    s = _store(tmp_path / "s", build={"ann": "ivf", "ann_min": 400, "merge_factor": 4})
    rows = make_rows(1200, DIM, 8)
    _fill(s, rows, 100)
    s.close()
    again = _store(tmp_path / "s")  # today's defaults: ann pq
    info = again.describe()
    assert info["ivf_segments"] >= 1 and info["search_mode"] == "approximate"
    q = make_queries(1, DIM, 9)[0]
    truth = [i for i, _ in brute_force(rows, q, 10)]
    assert len(set(truth) & {h.id for h in again.search(q, k=10)}) >= 8


def test_flat_pq_segments_keep_searching_when_the_store_is_opened_with_ann_ivfpq(tmp_path: Path) -> None:
    """Segments built with the flat PQ index keep it (``pq.json`` without lists) under ``ann: ivfpq``;
    only new merges get IVF lists."""
    s = _store(tmp_path / "s")
    rows = make_rows(1200, DIM, 10)
    _fill(s, rows, 100)
    s.close()
    again = _store(tmp_path / "s", build={"ann": "ivfpq", "ann_min": 400, "merge_factor": 4})
    info = again.describe()
    assert info["pq_segments"] >= 1 and info["ivfpq_segments"] == 0 and info["search_mode"] == "approximate"
    q = make_queries(1, DIM, 11)[0]
    truth = [i for i, _ in brute_force(rows, q, 10)]
    assert len(set(truth) & {h.id for h in again.search(q, k=10)}) >= 8


def test_deletes_and_upserts_survive_merges_and_reopen(tmp_path: Path) -> None:
    s = _store(tmp_path / "s")
    ids, x, meta = make_rows(1200, DIM, 4)
    _fill(s, (ids, x, meta), 100)
    s.delete(ids[:300])
    new = np.roll(x[300:400], 1, axis=0)
    s.add(ids[300:400], new, [{"v": 2}] * 100)
    s.persist()
    _fill(s, make_rows(800, DIM, 5), 100)  # more merges after the tombstones
    for store in (s, _store(tmp_path / "s")):
        assert store.count() == 900 + 800
        held = store.ids()
        assert not held & set(ids[:300]) and set(ids[300:]) <= held
        hit = store.search(new[0], k=1)[0]
        assert hit.id == ids[300] and hit.metadata == {"v": 2}


def test_no_merge_writes_more_rows_than_the_cap_and_segments_stay_bounded(tmp_path: Path) -> None:
    # a merge's time and memory are bounded whatever the index's size: segments near the cap are
    # final, the smaller ones still merge
    s = _store(tmp_path / "s", build={"ann_min": 400, "merge_factor": 4})
    s._log.max_merged_rows = 1000
    ids, x, meta = make_rows(4000, DIM, 6)
    _fill(s, (ids, x, meta), 100)
    sizes = sorted(len(seg) for seg in s._log.live_segments())
    assert max(sizes) <= 1000 and sum(sizes) == 4000
    assert len(sizes) <= 4000 // 500 + 2 * 4  # capped ones (>= half the cap) + fewer than merge_factor a class
    assert s.search(x[1234], k=1)[0].id == ids[1234]
    for store in (s, _store(tmp_path / "s")):
        assert store.count() == 4000


def test_flat_upgrades_an_older_single_file_store(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "s"
    old = SingleFileFaiss(dimension=DIM, path=path, index="flat")
    rows = make_rows(300, DIM, 6)
    old.add(*rows)
    old.delete(rows[0][:10])
    old.persist()
    old.close()
    store = FaissStore(dimension=DIM, path=path, index="flat")
    assert store.count() == 290 and store.unsaved and not (path / MANIFEST).exists()  # a reader writes nothing
    store.persist()
    assert "upgraded the faiss store" in caplog.text and not store.unsaved
    assert store.count() == 290 and (path / MANIFEST).is_file() and not (path / "manifest.json").exists()
    q = make_queries(1, DIM, 6)[0]
    assert store.search(q, k=3)[0].id == brute_force((rows[0][10:], rows[1][10:], rows[2][10:]), q, 1)[0][0]


_MERGER = """
import sys, numpy as np
from ragkit.stores.faiss import FaissStore
from ragkit.testing.contract import make_rows
s = FaissStore(dimension=32, path=sys.argv[1], index="auto", build={"ann_min": 400, "merge_factor": 4},
               search={"exact_max": 600})
ids, x, meta = make_rows(4000, 32, 8)
for a in range(0, 4000, 40):
    s.add(ids[a:a+40], x[a:a+40], meta[a:a+40])
    s.persist()
    print(a + 40, flush=True)
s.wait_merges()
"""


@pytest.mark.slow
@pytest.mark.parametrize("kill_at", [400, 1200, 2800])
def test_sigkill_mid_merge_leaves_a_consistent_store(tmp_path: Path, kill_at: int) -> None:
    path = tmp_path / "s"
    proc = subprocess.Popen([sys.executable, "-c", _MERGER, str(path)], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    committed = 0
    assert proc.stdout is not None
    for line in proc.stdout:
        committed = int(line)
        if committed >= kill_at:
            break
    time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    store = _store(path)
    n = store.count()
    assert n >= committed and n % 40 == 0  # every commit reported is there, no commit half there
    ids = make_rows(4000, DIM, 8)[0]
    assert store.ids() == set(ids[:n])
    manifest = json.loads((path / MANIFEST).read_text())
    store.add(["x"], np.ones((1, DIM), np.float32) / np.sqrt(DIM), [{}])
    store.persist()
    store.wait_merges()
    names = {p.name for p in path.iterdir()}
    assert names <= {MANIFEST} | {s["name"] for s in json.loads((path / MANIFEST).read_text())["segments"]} | {
        t["file"] for t in json.loads((path / MANIFEST).read_text())["tombstones"]}  # orphans removed
    assert manifest["seq"] >= 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a niceness per thread is Linux's")
def test_background_merges_run_at_low_priority_beside_the_writer(tmp_path: Path) -> None:
    """A merge takes the CPU the flushes leave (on 2 cores one at normal priority doubled the
    flushes beside it); the writer's own thread keeps its priority."""
    import threading

    from ragkit.stores._segments import MERGE_NICENESS, lower_thread_priority

    seen: list[int] = []
    t = threading.Thread(target=lambda: (lower_thread_priority(), seen.append(os.getpriority(os.PRIO_PROCESS, 0))))
    t.start()
    t.join()
    assert seen == [MERGE_NICENESS]
    writer_nice = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    s = _store(tmp_path / "s", build={"ann_min": 100_000, "merge_factor": 2})
    ids, x, meta = make_rows(3000, DIM, 8)
    niceness: set[int] = set()
    for a in range(0, 3000, 100):
        s.add(ids[a : a + 100], x[a : a + 100], meta[a : a + 100])
        s.persist()
        merger = s._log._merger
        deadline = time.monotonic() + 5
        while merger is not None and merger.is_alive() and time.monotonic() < deadline:
            try:
                nice = os.getpriority(os.PRIO_PROCESS, merger.native_id)
            except OSError:  # it ended meanwhile
                break
            if nice == MERGE_NICENESS:
                niceness.add(nice)
                break
            time.sleep(0.001)
    s.wait_merges()
    assert niceness == {MERGE_NICENESS}, "no merge was seen running at low priority"
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == writer_nice
    assert s.count() == 3000 and s.search(x[2345], k=1)[0].id == ids[2345]


def test_a_merge_of_deleted_rows_only_writes_no_segment(tmp_path: Path) -> None:
    s = _store(tmp_path / "s")
    ids, x, meta = make_rows(300, DIM, 7)
    _fill(s, (ids, x, meta), 100)
    s.delete(ids)  # every row: the segments are mostly dead and rewritten alone, i.e. dropped
    s.persist()
    s.wait_merges()
    assert s.count() == 0 and s.describe()["segments"] == 0
    assert not [p for p in (tmp_path / "s").iterdir() if p.is_dir()]  # no empty segment folders left
    s.add(ids[:5], x[:5], meta[:5])
    s.persist()
    s.close()
    again = _store(tmp_path / "s")
    assert again.ids() == set(ids[:5])
    assert again.search(x[3], k=1)[0].id == ids[3]


def test_a_large_sealed_segment_gets_its_approximate_index_without_waiting_for_its_class(tmp_path: Path) -> None:
    from ragkit.stores._segments import Rows, SegmentLog
    from ragkit.stores._vector_segments import AnnOptions, VectorKind

    log = SegmentLog(tmp_path / "v", VectorKind(DIM, AnnOptions(ann_min=400)), header={}, label="test",
                     merge_factor=4, max_merged_rows=2000)
    ids, x, _ = make_rows(600, DIM, 9)
    log.add(ids, [Rows.encode(i, {}) for i in ids], list(x))  # 600 rows sealed at once: alone in its size class
    log.persist()
    log.wait_merges()
    (seg,) = log.live_segments()
    assert len(seg) == 600 and seg.payload.pq is not None
    small = SegmentLog(tmp_path / "w", VectorKind(DIM, AnnOptions(ann_min=400)), header={}, label="test",
                       merge_factor=4, max_merged_rows=4000)
    small.add(ids, [Rows.encode(i, {}) for i in ids], list(x))  # under max_merged_rows / merge_factor: waits for its class
    small.persist()
    small.wait_merges()
    (seg,) = small.live_segments()
    assert seg.payload.pq is None
