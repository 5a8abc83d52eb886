"""What OCR costs: pages per CPU-second, its share of a mixed folder's indexing, and that a folder
without scans indexes as fast with OCR on as with it off.

Three measurements, each written as a table to ``benchmarks/results/`` (rendered into the
benchmark pages by ``render_tables.py``):

- ``ocr-throughput``: every scanned PDF page and image under ``--scans`` read as the loaders read
  it (``ocr_pdf_page``: ``pdftoppm`` renders the page, Tesseract reads it; ``ocr_image`` for an
  image), at the pipeline's default DPI, one page at a time. CPU time is what those programs used
  (this process's children, ``RUSAGE_CHILDREN``).
- ``ocr-indexing-share``: ``ragkit index`` (the default pipeline, its own process, a fresh index)
  over a folder of ``--born`` born-digital files plus three scans. Total CPU is the indexing
  process's with every descendant (``os.wait4``); OCR CPU is what ``tesseract`` and ``pdftoppm``
  used, each run under ``/usr/bin/time`` by a stand-in of the same name put first on the PATH.
- ``ocr-no-scan-overhead``: ``ragkit index`` over a folder without scans or images with
  ``ocr: {mode: never}`` and with the default ``auto``, alternating which goes first, each its
  own process and a fresh index; the CPU ratio auto / never per round and its median.

    python benchmarks/ocr_cost.py --scans /work/evaldata/scans --born /work/evaldata/markitdown \\
        --no-scan /work/evaldata/nlppapers /work/evaldata/starlette --rounds 3

``--scans`` is the folder of ``benchmarks/folders/scans.yaml`` (its comment says how to fetch
it); ``--no-scan`` takes any folders of born-digital files (their images are left out).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from _common import bench_env, run_measured  # noqa: E402
from render_tables import write_result  # noqa: E402

log = logging.getLogger("ocr_cost")
PDF_TEXT_CHARS = 20  # a PDF page with fewer extractable characters than this is a scan
NO_SCAN_SUFFIXES = {".pdf", ".md", ".markdown", ".html", ".htm", ".txt", ".rst", ".adoc", ".docx", ".pptx",
                    ".xlsx", ".csv", ".json", ".epub", ".ipynb"}
#: time limits raised so that no page is left out on a loaded machine (CPU time is what is measured)
LOADED_PAGE_TIMEOUT_S = 900.0
LOADED_FILE_TIMEOUT_S = 7200.0
COMMAND = "python " + " ".join([Path(__file__).relative_to(REPO).as_posix(), *sys.argv[1:]])


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def scanned_pages(folder: Path) -> list[tuple[Path, int | None]]:
    """(file, page) for every PDF page without a text layer and (image, None) for every image."""
    from ragkit.loaders.ocr import IMAGE_EXTENSIONS

    pages: list[tuple[Path, int | None]] = []
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() in IMAGE_EXTENSIONS:
            pages.append((path, None))
        elif path.suffix.lower() == ".pdf":
            pages += [(path, n) for n in untexted_pages(path)]
    return pages


def untexted_pages(pdf: Path) -> list[int]:
    """The pages of ``pdf`` with (almost) no text layer; ``pdftotext`` (poppler, installed with
    OCR) ends each page with a form feed."""
    text = subprocess.run(["pdftotext", "-q", str(pdf), "-"], capture_output=True, check=False).stdout
    texts = text.decode("utf-8", "replace").split("\f")[:-1]
    return [n for n, page in enumerate(texts, 1) if len(page.strip()) < PDF_TEXT_CHARS]


def spread(pages: list[tuple[Path, int | None]], limit: int) -> list[tuple[Path, int | None]]:
    """Up to ``limit`` of ``pages``, taking each file's pages in turn (every file's first page first)."""
    per_file: dict[Path, list[tuple[Path, int | None]]] = {}
    for item in pages:
        per_file.setdefault(item[0], []).append(item)
    chosen: list[tuple[Path, int | None]] = []
    while len(chosen) < limit and any(per_file.values()):
        for queue in per_file.values():
            if queue and len(chosen) < limit:
                chosen.append(queue.pop(0))
    return chosen


def throughput(scans: Path, limit: int) -> list[list[object]]:
    """One row per kind of input (PDF pages, images) and one for all: pages, CPU s, pages per CPU-s."""
    from ragkit.config import PipelineSpec
    from ragkit.loaders import ocr

    dpi = PipelineSpec().ocr.dpi
    settings = ocr.OcrSettings(dpi=dpi, page_timeout_s=LOADED_PAGE_TIMEOUT_S)
    spent: dict[str, list[float]] = {"PDF pages (render + OCR)": [], "images (OCR)": []}
    chars = 0
    for path, page in spread(scanned_pages(scans), limit):
        before = children_cpu()
        text = (ocr.ocr_image(path, settings) if page is None else ocr.ocr_pdf_page(path, page, settings)).text
        cpu = children_cpu() - before
        chars += len(text)
        spent["images (OCR)" if page is None else "PDF pages (render + OCR)"].append(cpu)
        log.warning("%s p. %s: %.2f CPU s, %d characters", path.name, page or 1, cpu, len(text))
    rows = []
    everything = [c for cpus in spent.values() for c in cpus]
    for name, cpus in [*spent.items(), ("all", everything)]:
        total = sum(cpus)
        rows.append([f"{name}, {dpi} DPI", len(cpus), total, len(cpus) / total if total else None,
                     statistics.median(cpus) if cpus else None])
    log.warning("OCR read %d characters from %d pages", chars, len(everything))
    return rows


# --------------------------------------------------------------------------- indexing runs


def shim_dir(root: Path, log_file: Path) -> Path:
    """A folder of stand-ins for ``tesseract`` and ``pdftoppm`` that run the real program under
    ``/usr/bin/time``, which appends its user and system CPU seconds to ``log_file``."""
    timer = shutil.which("time", path="/usr/bin:/bin")
    if timer is None:
        raise SystemExit("ocr_cost.py needs /usr/bin/time (Debian: apt-get install time) to time OCR's programs")
    shims = root / "shims"
    shims.mkdir()
    for program in ("tesseract", "pdftoppm"):
        real = shutil.which(program)
        if real is None:
            raise SystemExit(f"{program} is not installed; install it with: make ocr")
        shim = shims / program
        shim.write_text(f'#!/bin/sh\nexec {timer} -a -o "{log_file}" -f "%U %S" {real} "$@"\n', encoding="utf-8")
        shim.chmod(0o755)
    return shims


def logged_cpu(log_file: Path) -> float:
    if not log_file.exists():
        return 0.0
    total = 0.0
    for line in log_file.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) == 2:
            total += float(parts[0]) + float(parts[1])
    return total


def index_run(name: str, docs: Path, work: Path, ocr: dict[str, object] | None = None,
              embedder: dict[str, object] | None = None) -> tuple[float, float, float, dict]:
    """``ragkit index docs`` with the default pipeline (and ``ocr``, ``embedder``), a fresh index,
    its own process: (CPU s with descendants, OCR programs' CPU s, wall s, its JSON report)."""
    import yaml

    run_dir = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=work))
    spec = yaml.safe_load((REPO / "pipelines" / "default.yaml").read_text(encoding="utf-8"))
    spec["index"] = str(run_dir / "index")
    spec["ocr"] = {**spec["ocr"], "page_timeout_s": LOADED_PAGE_TIMEOUT_S, **(ocr or {})}
    spec["sources"]["limits"]["file_timeout_s"] = LOADED_FILE_TIMEOUT_S
    if embedder is not None:
        spec["embedder"] = embedder
    pipe = run_dir / "pipeline.yaml"
    pipe.write_text(yaml.safe_dump(spec), encoding="utf-8")
    cpu_log = run_dir / "ocr-cpu.log"
    shims = shim_dir(run_dir, cpu_log)
    env = bench_env({"PATH": f"{shims}{os.pathsep}{os.environ.get('PATH', '')}",
                     "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"})
    m = run_measured(name, [sys.executable, "-m", "ragkit.cli.main", "index", str(docs), "--pipeline", str(pipe),
                            "--json"], env=env)
    if not m.ok:
        raise SystemExit(f"{name}: ragkit index failed (exit {m.returncode}):\n{m.stderr_tail}")
    shutil.rmtree(run_dir / "index", ignore_errors=True)
    return m.cpu, logged_cpu(cpu_log), m.wall, m.report


def link_files(files: Sequence[Path], folder: Path) -> Path:
    """``folder`` holding a symbolic link to each of ``files`` (names kept apart by a number)."""
    folder.mkdir(parents=True)
    for i, path in enumerate(files):
        (folder / f"{i:03d}-{path.name}").symlink_to(path.resolve())
    return folder


def born_digital_files(folders: Sequence[Path], limit: int) -> list[Path]:
    """Up to ``limit`` files of the text formats under ``folders`` in name order: no images, and
    no PDF with a page OCR would read."""
    found = [p for folder in folders for p in sorted(folder.rglob("*"))
             if p.is_file() and p.suffix.lower() in NO_SCAN_SUFFIXES and ".git" not in p.parts]
    return [p for p in found if p.suffix.lower() != ".pdf" or not untexted_pages(p)][:limit]


def indexing_share(scans: Path, born: Sequence[Path], work: Path, n_born: int) -> list[list[object]]:
    """One row: the mixed folder's files, pages OCR'd, indexing CPU, OCR CPU and its share."""
    chosen_scans = [p for p in sorted(scans.iterdir()) if p.name in ("linn.pdf", "epson.pdf", "8087_054.3B.tif")]
    files = born_digital_files(born, n_born)
    docs = link_files(files + chosen_scans, work / "mixed")
    cpu, ocr_cpu, wall, report = index_run("mixed", docs, work)
    log.warning("mixed folder: %d files, %.1f CPU s, OCR %.1f CPU s, %.1f s wall; added %d", len(files) + 3, cpu,
                ocr_cpu, wall, len(report.get("added", [])))
    return [[f"{len(files)} born-digital files + {len(chosen_scans)} scans", len(files) + len(chosen_scans),
             len(report.get("added", [])), cpu, ocr_cpu, ocr_cpu / cpu if cpu else None]]


def no_scan_overhead(folders: Sequence[Path], work: Path, n_files: int, rounds: int,
                     embedder: dict[str, object] | None) -> list[list[object]]:
    """Per round (alternating which mode goes first): CPU s with ``never`` and ``auto``, their
    ratio and the load; then the medians."""
    files = born_digital_files(folders, n_files)
    docs = link_files(files, work / "no-scan")
    rows: list[list[object]] = []
    ratios = []
    modes: list[tuple[str, dict[str, object]]] = [("never", {"mode": "never"}), ("auto", {"mode": "auto"})]
    for r in range(rounds):
        order = modes if r % 2 == 0 else modes[::-1]
        cpu: dict[str, float] = {}
        load = os.getloadavg()[0]
        for mode, conf in order:
            cpu[mode], ocr_cpu, wall, _ = index_run(f"no-scan-{mode}", docs, work, conf, embedder)
            log.warning("round %d %s: %.1f CPU s (OCR programs %.2f), %.1f s wall", r + 1, mode, cpu[mode], ocr_cpu, wall)
        ratios.append(cpu["auto"] / cpu["never"])
        rows.append([f"round {r + 1} ({order[0][0]} first)", len(files), cpu["never"], cpu["auto"], ratios[-1], load])
    rows.append([{"value": "median", "bold": True}, len(files), statistics.median(float(r[2]) for r in rows),  # type: ignore[arg-type]
                 statistics.median(float(r[3]) for r in rows), {"value": statistics.median(ratios), "bold": True},  # type: ignore[arg-type]
                 None])
    return rows


# --------------------------------------------------------------------------- main


def timed(what: str, fn: Callable[[], list[list[object]]]) -> list[list[object]]:
    t0 = time.perf_counter()
    rows = fn()
    log.warning("%s took %.0f s", what, time.perf_counter() - t0)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=Path, required=True, help="the scans folder (benchmarks/folders/scans.yaml)")
    parser.add_argument("--pages", type=int, default=12, help="scanned pages and images to time (spread over the files)")
    parser.add_argument("--born", type=Path, nargs="+", default=[], help="born-digital folders for the mixed folder")
    parser.add_argument("--born-files", type=int, default=20, help="born-digital files in the mixed folder")
    parser.add_argument("--no-scan", type=Path, nargs="+", default=[], help="folders for the no-scan comparison")
    parser.add_argument("--no-scan-files", type=int, default=200, help="files in the no-scan folder")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of the no-scan comparison")
    parser.add_argument("--embedder", choices=("default", "hashing"), default="default",
                        help="no-scan comparison: the default pipeline's model, or the hashing embedder (the "
                             "loading path alone, where OCR's checks are; result ocr-no-scan-overhead-hashing)")
    parser.add_argument("--only", choices=("throughput", "share", "no-scan"), action="append",
                        help="run only these measurements (repeatable; default: all three)")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    only = set(args.only or ("throughput", "share", "no-scan"))
    with tempfile.TemporaryDirectory(prefix="ocr-cost-") as tmp:
        work = Path(tmp)
        if "throughput" in only:
            rows = timed("throughput", lambda: throughput(args.scans, args.pages))
            write_result("ocr-throughput", title="OCR throughput (Tesseract, pdftoppm; one page at a time)",
                         command=COMMAND, columns=["input", "pages", "CPU s", "pages per CPU-second",
                                                   "median CPU s per page"],
                         rows=rows, decimals=[None, 0, 1, 2, 2], align=["left", "right", "right", "right", "right"],
                         directory=args.out)
        if "share" in only:
            rows = timed("share", lambda: indexing_share(args.scans, args.born, work, args.born_files))
            write_result("ocr-indexing-share", title="OCR's share of indexing a mixed folder (ragkit index, default pipeline)",
                         command=COMMAND, columns=["folder", "files", "files indexed", "indexing CPU s", "OCR CPU s",
                                                   "OCR share"],
                         rows=rows, decimals=[None, 0, 0, 1, 1, 2], align=["left"] + ["right"] * 5, directory=args.out)
        if "no-scan" in only:
            hashing = args.embedder == "hashing"
            embedder = {"type": "hashing", "dimension": 384} if hashing else None
            rows = timed("no-scan", lambda: no_scan_overhead(args.no_scan, work, args.no_scan_files, args.rounds,
                                                             embedder))
            write_result("ocr-no-scan-overhead" + ("-hashing" if hashing else ""),
                         title="A folder without scans: indexing CPU with ocr: never and auto (ragkit index, default "
                               "pipeline" + (", hashing embedder: the loading path alone)" if hashing else ")"),
                         command=COMMAND, columns=["run", "files", "CPU s never", "CPU s auto", "auto / never",
                                                   "load average"],
                         rows=rows, decimals=[None, 0, 1, 1, 3, 1], align=["left"] + ["right"] * 5,
                         hidden_columns=["load average"], directory=args.out)
    print(json.dumps({"written": sorted(str(p) for p in args.out.glob("ocr-*.json"))}))  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
