"""What guarded runs cost: guardrail throughput, and agent-run overhead as a ratio.

In-process, after a warm-up; medians over ``--rounds`` of ``--runs`` agent runs each, timed with
``time.perf_counter``. The model is ``ScriptedProvider`` (one tool call, then an answer), so the
figures are the loop's own cost, not a model's. Compare the ratios within one run (the machine is
shared and noisy).

    .venv/bin/python benchmarks/guarded_overhead.py --rounds 5 --runs 200
    .venv/bin/python benchmarks/guarded_overhead.py --rounds 5 --runs 200 --results guarded-overhead

``--results NAME`` writes the table to ``benchmarks/results/NAME.json``, which the documentation
renders (docs/benchmarks/serving.md).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ragkit.agent import Agent, AgentConfig, AuditLog, RuleCoherenceChecker, ToolPolicy
from ragkit.guardrails import PIIRedactor, PromptInjection, default_guardrails
from ragkit.testing.scripted import ScriptedProvider, tool_call_response
from ragkit.tools import tool

WORDS = ("the ferry sails on tuesdays from the old harbour and the lighthouse keeper logs the weather "
         "every morning at nine while visitors book tickets online or at the centre").split()


def passage(rng: random.Random, n_words: int = 120) -> str:
    words = [rng.choice(WORDS) for _ in range(n_words)]
    words[rng.randrange(n_words)] = "jo.doe@example.com"
    words[rng.randrange(n_words)] = "+44 20 7946 0958"
    return " ".join(words) + "."


@tool
def search(query: str) -> str:
    """Search.

    Args:
        query: What.
    """
    return "[1] source: a.md\nThe ferry sails on Tuesdays. Contact jo.doe@example.com."


def agent_seconds(config: AgentConfig | None, runs: int, audit: Path | None) -> float:
    observers = [AuditLog(audit, privacy="hashed")] if audit else []
    start = time.perf_counter()
    for _ in range(runs):
        provider = ScriptedProvider([tool_call_response(("search", {"query": "ferry days"})), "Tuesdays [1]."])
        Agent(provider, tools=[search], config=config, observers=observers).run("When does the ferry sail?")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--passages", type=int, default=2000)
    parser.add_argument("--results", metavar="NAME", help="also write benchmarks/results/NAME.json")
    args = parser.parse_args()
    rng = random.Random(18)
    texts = [passage(rng) for _ in range(args.passages)]
    mb = sum(len(t) for t in texts) / 1e6
    guards = {"pii": PIIRedactor(), "injection": PromptInjection(action="rewrite")}
    guarded = AgentConfig(guardrails=default_guardrails(), policy=ToolPolicy(allow=["search"]),
                          coherence=RuleCoherenceChecker())
    for g in guards.values():  # warm-up: regex compilation, caches
        [g.check(t) for t in texts[:50]]
    agent_seconds(None, 10, None)
    agent_seconds(guarded, 10, None)
    throughput: dict[str, list[float]] = {name: [] for name in guards}
    plain, full = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.rounds):
            for name, g in guards.items():
                start = time.perf_counter()
                for t in texts:
                    g.check(t)
                throughput[name].append(mb / (time.perf_counter() - start))
            plain.append(agent_seconds(None, args.runs, None) / args.runs)
            full.append(agent_seconds(guarded, args.runs, Path(tmp) / "audit.jsonl") / args.runs)
    result = {
        "passages": args.passages, "mb": round(mb, 3), "rounds": args.rounds, "runs": args.runs,
        **{f"{n}_mb_per_s": round(statistics.median(v), 2) for n, v in throughput.items()},
        "run_ms_plain": round(statistics.median(plain) * 1000, 3),
        "run_ms_guarded": round(statistics.median(full) * 1000, 3),
        "ratio_guarded_over_plain": round(statistics.median(full) / statistics.median(plain), 2),
    }
    print("| measure | value |\n|---|---|")
    for key, value in result.items():
        print(f"| {key} | {value} |")
    print(json.dumps(result))
    if args.results:
        save(args.results, result, " ".join(["python benchmarks/guarded_overhead.py", *sys.argv[1:]]))


def save(name: str, result: dict[str, float], command: str) -> None:
    """The figures as the documentation's table (``render_tables``' result file)."""
    from render_tables import write_result  # beside this script

    rows = [[f"PII redactor, 120-word passages ({result['mb']:.1f} MB, each with an email and a phone number)",
             f"{result['pii_mb_per_s']:.1f} MB/s"],
            ["injection rules, same passages", f"{result['injection_mb_per_s']:.1f} MB/s"],
            ["agent run, scripted model (one tool call, then the answer), plain", f"{result['run_ms_plain']:.1f} ms"],
            ["the same run with `default_guardrails()`, a tool policy, the rule coherence checker and a hashed "
             "audit log", f"{result['run_ms_guarded']:.1f} ms"]]
    write_result(name, title="Guarded runs: guardrail throughput and the cost of a guarded agent run", command=command,
                 columns=["what", "figure"], rows=rows, align=["left", "right"],
                 conditions={"rounds": f"{result['rounds']}, medians", "runs": result["runs"]})


if __name__ == "__main__":
    main()
