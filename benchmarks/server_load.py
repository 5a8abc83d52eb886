"""Load benchmark for `ragkit serve`: concurrent streaming clients against the server,
compared with calling the same agent in-process.

Set-up: a small corpus indexed with the hashing embedder (no model), the `echo` provider (a
scripted LLM that streams its answer word by word with `--delay` seconds per word, and names the
question it answers), `ragkit serve --workers N` on loopback. Each round runs `--clients`
concurrent streaming chat completions through the official `openai` SDK, each in its own
session, then the same number of concurrent in-process runs of the agent (`Engine.stream`, the
server's own adapter over `RAGAgent`/`Agent.astream`). Time to first token (TTFT) is from sending
the request to the first non-empty content delta.

It checks correctness as it goes: every client finishes, every answer names its own question (no
cross-talk), and every session holds exactly its own turn. It prints p50/p95 TTFT for both paths
and the server's overhead (server minus in-process, per percentile); the target is an overhead
p95 of at most 50 ms. Compare within one run: the machines are shared and noisy.

    .venv/bin/python benchmarks/server_load.py --clients 20 --workers 2 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine_facts, markdown_table, print_facts, versions  # noqa: E402

TARGET_OVERHEAD_P95_MS = 50.0
TOPICS = ["ferry timetable", "lighthouse keeper", "tide tables", "harbour dues", "weather station",
          "rain gauge", "radio channels", "bird census", "library hours", "school bus"]


@dataclass
class Sample:
    client: int
    ttft: float
    total: float
    text: str
    ok: bool
    build: float = 0.0  # through the server: seconds the client SDK took before the request left it


def build_index(root: Path) -> Path:
    """Twenty short documents, indexed with the hashing embedder (deterministic, no model)."""
    from ragkit.config import parse_pipeline
    from ragkit.index.writer import IndexingPipeline

    docs = root / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    for i in range(20):
        topic = TOPICS[i % len(TOPICS)]
        (docs / f"doc{i:02d}.md").write_text(
            f"# {topic.title()} {i}\n\nNote {i} about the {topic}: it changes on day {i % 7 + 1} of the week. "
            f"The {topic} office opens at {8 + i % 4} o'clock.\n", encoding="utf-8")
    spec = parse_pipeline({"index": str(root / "index"), "embedder": {"type": "hashing", "dimension": 64},
                           "store": {"type": "memory"},
                           "splitter": {"type": "recursive", "unit": "chars", "chunk_size": 300, "chunk_overlap": 0}},
                          origin="server_load.py")
    IndexingPipeline(spec).index_paths([docs])
    return root / "index"


def question(i: int) -> str:
    return f"Question {i}: when does the {TOPICS[i % len(TOPICS)]} office open?"


async def server_round(base_url: str, url: str, clients: int, pid: int | None = None) -> tuple[list[Sample], float]:
    """One round through the server; returns the samples and the server's CPU seconds spent on
    the streamed completions alone (sessions are created before, and checked after, that window)."""
    import httpx
    import openai

    async with httpx.AsyncClient(timeout=120) as http:
        sessions = [(await http.post(url + "/sessions", json={})).json()["id"] for _ in range(clients)]
    sent: dict[str, float] = {}

    async def on_send(request: Any) -> None:  # the request leaves the SDK (built, about to be sent)
        sent[json.loads(request.content)["session_id"]] = time.perf_counter()

    client = openai.AsyncOpenAI(base_url=base_url, api_key="x", max_retries=0, timeout=120,
                                http_client=openai.DefaultAsyncHttpxClient(event_hooks={"request": [on_send]}))

    async def one(i: int) -> Sample:
        t0 = time.perf_counter()
        ttft, parts = float("nan"), []
        stream = await client.chat.completions.create(
            model="ragkit", messages=[{"role": "user", "content": question(i)}], stream=True,
            stream_options={"include_usage": True}, extra_body={"session_id": sessions[i]})
        async for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                if not parts:
                    ttft = time.perf_counter() - t0
                parts.append(chunk.choices[0].delta.content)
        return Sample(i, ttft, time.perf_counter() - t0, "".join(parts), True, sent[sessions[i]] - t0)

    cpu0 = server_cpu(pid) if pid else 0.0
    samples = await asyncio.gather(*(one(i) for i in range(clients)))
    cpu = server_cpu(pid) - cpu0 if pid else 0.0
    await client.close()
    async with httpx.AsyncClient(timeout=120) as http:
        for s, sid in zip(samples, sessions, strict=True):
            items = (await http.get(f"{url}/sessions/{sid}")).json()["messages"]
            s.ok = [i["content"] for i in items] == [question(s.client), s.text] and _own_answer(s)
    return list(samples), cpu


async def inprocess_round(engine: Any, clients: int) -> list[Sample]:
    from ragkit.server.engine import Answer, TurnOptions

    async def one(i: int) -> Sample:
        t0 = time.perf_counter()
        ttft, parts = float("nan"), []
        async for piece in engine.stream([{"role": "user", "content": question(i)}], TurnOptions()):
            if isinstance(piece, Answer):
                continue
            if not parts:
                ttft = time.perf_counter() - t0
            parts.append(piece)
        s = Sample(i, ttft, time.perf_counter() - t0, "".join(parts), True)
        s.ok = _own_answer(s)
        return s

    return list(await asyncio.gather(*(one(i) for i in range(clients))))


def _own_answer(s: Sample) -> bool:
    return s.text.startswith(f"You asked: {question(s.client)}")


def percentile(values: list[float], q: float) -> float:
    vals = sorted(v for v in values if v == v)
    if not vals:
        return float("nan")
    if len(vals) == 1:
        return vals[0]
    return statistics.quantiles(vals, n=100, method="inclusive")[int(q) - 1]


def run(*, clients: int = 20, workers: int = 2, rounds: int = 3, delay: float = 0.02,
        root: Path | None = None) -> dict[str, Any]:
    """Run the benchmark; returns every sample and the summary (used by the smoke test too)."""
    from ragkit.server.engine import Engine
    from ragkit.server.library import Library
    from ragkit.testing.server_process import ragkit_server

    with tempfile.TemporaryDirectory(prefix="ragkit-load-") as tmp:
        base = Path(root) if root is not None else Path(tmp)
        index = build_index(base)
        library = Library(index, pipeline=None, uploads_dir=index / "uploads")
        engine = Engine(library, provider="echo", provider_options={"delay": delay})
        engine.warm_up()
        server_samples: list[Sample] = []
        local_samples: list[Sample] = []
        with ragkit_server(index, workers=workers, provider="echo",
                           args=["--provider-option", f"delay={delay}"]) as server:
            asyncio.run(server_round(server.base_url, server.url, min(clients, 4)))  # warm-up, not measured
            asyncio.run(inprocess_round(engine, min(clients, 4)))
            cpu = {"server": 0.0, "in_process": 0.0}
            for _ in range(rounds):
                samples, used = asyncio.run(server_round(server.base_url, server.url, clients, server.proc.pid))
                server_samples += samples
                cpu["server"] += used
                before = time.process_time()
                local_samples += asyncio.run(inprocess_round(engine, clients))
                cpu["in_process"] += time.process_time() - before
        library.close()
    result = summarize(server_samples, local_samples, clients=clients, workers=workers, rounds=rounds, delay=delay)
    result["cpu_ms_per_request"] = {k: 1000 * v / (rounds * clients) for k, v in cpu.items()}
    return result


def server_cpu(pid: int) -> float:
    """CPU seconds used so far by the server process and its workers."""
    import psutil

    procs = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    return sum(p.cpu_times().user + p.cpu_times().system for p in procs)


def summarize(server: list[Sample], local: list[Sample], **params: Any) -> dict[str, Any]:
    def stats(samples: list[Sample]) -> dict[str, float]:
        ttft = [s.ttft * 1000 for s in samples]
        total = [s.total * 1000 for s in samples]
        return {"ttft_p50_ms": percentile(ttft, 50), "ttft_p95_ms": percentile(ttft, 95),
                "total_p50_ms": percentile(total, 50), "total_p95_ms": percentile(total, 95)}

    srv, loc = stats(server), stats(local)
    return {
        "params": params, "server": srv, "in_process": loc,
        "overhead_p50_ms": srv["ttft_p50_ms"] - loc["ttft_p50_ms"],
        "overhead_p95_ms": srv["ttft_p95_ms"] - loc["ttft_p95_ms"],
        "client_build_p50_ms": percentile([s.build * 1000 for s in server], 50),
        "client_build_p95_ms": percentile([s.build * 1000 for s in server], 95),
        "all_finished": all(s.text for s in server + local),
        "no_cross_talk": all(s.ok for s in server + local),
        "samples": {"server": [asdict(s) for s in server], "in_process": [asdict(s) for s in local]},
    }


def report(result: dict[str, Any]) -> str:
    srv, loc = result["server"], result["in_process"]
    rows = [["ragkit serve (HTTP, SSE)", srv["ttft_p50_ms"], srv["ttft_p95_ms"], srv["total_p50_ms"], srv["total_p95_ms"]],
            ["agent in-process", loc["ttft_p50_ms"], loc["ttft_p95_ms"], loc["total_p50_ms"], loc["total_p95_ms"]],
            ["overhead", result["overhead_p50_ms"], result["overhead_p95_ms"],
             srv["total_p50_ms"] - loc["total_p50_ms"], srv["total_p95_ms"] - loc["total_p95_ms"]]]
    verdict = "met" if result["overhead_p95_ms"] <= TARGET_OVERHEAD_P95_MS else "NOT met"
    cpu = result.get("cpu_ms_per_request", {})
    return (markdown_table(["path", "TTFT p50 ms", "TTFT p95 ms", "total p50 ms", "total p95 ms"], rows)
            + f"\n\nall finished: {result['all_finished']}; no cross-talk: {result['no_cross_talk']}; "
            f"target overhead p95 <= {TARGET_OVERHEAD_P95_MS:.0f} ms: {verdict}"
            f"\nof the server path's TTFT, the client SDK (in this one benchmark process) took p50 "
            f"{result['client_build_p50_ms']:.1f} ms, p95 {result['client_build_p95_ms']:.1f} ms to build and "
            "hand over the request before it left the process"
            + (f"\nCPU per request: server (all workers) {cpu['server']:.1f} ms, agent in-process "
               f"{cpu['in_process']:.1f} ms" if cpu else ""))


def save(name: str, result: dict[str, Any], command: str) -> None:
    """The summary as the documentation's table (a ``render_tables`` result file)."""
    from render_tables import write_result  # beside this script

    srv, loc = result["server"], result["in_process"]
    cpu = result.get("cpu_ms_per_request", {})

    def row(path: str, ttft50: float, ttft95: float, total50: float, cpu_ms: float | None) -> list[str]:
        return [path, f"{ttft50:.0f} ms", f"{ttft95:.0f} ms", f"{total50:.0f} ms", "" if cpu_ms is None else f"{cpu_ms:.1f} ms"]

    rows = [row("`ragkit serve` (HTTP, SSE, SQLite sessions and traces)", srv["ttft_p50_ms"], srv["ttft_p95_ms"],
                srv["total_p50_ms"], cpu.get("server")),
            row("agent in-process", loc["ttft_p50_ms"], loc["ttft_p95_ms"], loc["total_p50_ms"], cpu.get("in_process")),
            row("overhead", result["overhead_p50_ms"], result["overhead_p95_ms"], srv["total_p50_ms"] - loc["total_p50_ms"],
                cpu["server"] - cpu["in_process"] if cpu else None)]
    write_result(name, title="`ragkit serve` under concurrent streaming clients, against the agent in-process",
                 command=command, columns=["path", "TTFT p50", "TTFT p95", "total p50", "CPU per request"], rows=rows,
                 conditions={"params": result["params"], "all_finished": result["all_finished"],
                             "no_cross_talk": result["no_cross_talk"]})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--delay", type=float, default=0.02, help="seconds per streamed word of the echo LLM")
    ap.add_argument("--json", type=Path, default=None, help="write every sample and the summary here")
    ap.add_argument("--results", metavar="NAME", help="also write the table to benchmarks/results/NAME.json (the docs')")
    args = ap.parse_args()
    print_facts("machine", machine_facts())
    print_facts("versions", versions(packages=["fastapi", "uvicorn", "starlette", "openai"]))
    result = run(clients=args.clients, workers=args.workers, rounds=args.rounds, delay=args.delay)
    print(f"\n{args.clients} concurrent streaming clients x {args.rounds} rounds, {args.workers} workers, "
          f"echo LLM {args.delay * 1000:.0f} ms/word\n")
    print(report(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2), encoding="utf-8")
    if args.results:
        save(args.results, result, " ".join(["python benchmarks/server_load.py", *sys.argv[1:]]))
    return 0 if result["all_finished"] and result["no_cross_talk"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
