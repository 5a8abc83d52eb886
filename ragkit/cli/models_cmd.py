"""`ragkit models`: the model registry (prices, context windows, capabilities)."""

from __future__ import annotations

from typing import Any

import click

from ragkit.cli.options import echo_json

KINDS = ("chat", "embedding", "rerank")


@click.command("models")
@click.option("--provider", "-p", metavar="NAME", help="Only this vendor's models (openai, anthropic, gemini, groq, ollama, ...).")
@click.option("--kind", type=click.Choice(KINDS), help="Only chat, embedding or rerank models [default: all].")
@click.option("--search", "-s", "text", metavar="TEXT", help="Only models whose name contains TEXT.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: every field, with the vendor's price page.")
def models(provider: str | None, kind: str | None, text: str | None, as_json: bool) -> None:
    """List the models ragkit knows: prices (USD per million tokens), context window, longest answer,
    and whether the API offers tools, image input and JSON-schema output.

    A model served by a local vendor (ollama, vllm, llamacpp) costs 0 by design. A model not listed
    is *unpriced*: its cost shows as "unpriced", never $0, until you add a price with `pricing:` in
    the pipeline YAML or `ragkit.pricing.register(...)`. Typed names: `from ragkit.models import OpenAI`.

    \b
    Examples:
      ragkit models --provider groq
      ragkit models --kind embedding
      ragkit models -s claude --json | jq '.models[].name'
    """
    from ragkit import pricing
    from ragkit.errors import ConfigError
    from ragkit.registry import did_you_mean

    vendors = pricing.vendors()
    if provider is not None and provider not in vendors:
        raise ConfigError(f"unknown provider {provider!r}{did_you_mean(provider, vendors)} (known: "
                          f"{', '.join(sorted(vendors))})")
    rows = [m for m in pricing.models(provider=provider, kind=kind) if not text or text.lower() in m.name.lower()]
    if as_json:
        echo_json({"as_of": pricing.as_of(), "models": [_as_dict(m, vendors) for m in rows]})
        return
    counts = ", ".join(f"{sum(m.kind == k for m in rows)} {k}" for k in KINDS if any(m.kind == k for m in rows))
    click.echo(f"{len(rows)} models ({counts or 'none'}); USD per million tokens, list prices as of "
               f"{pricing.as_of()}; local models cost 0 by design")
    table = [("MODEL", "PROVIDER", "KIND", "INPUT", "OUTPUT", "CACHED", "CONTEXT", "MAX OUT", "NOTES")]
    table += [_row(m) for m in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    for r in table:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip())


def _price(value: float | None, local: bool) -> str:
    if value is None:
        return "-"
    if local:
        return "0"
    text = f"{value:.4f}".rstrip("0")
    return text + "0" * max(0, 2 - len(text.split(".")[1]))


def _tokens(value: int | None) -> str:
    if value is None:
        return "-"
    return f"{value // 1000}k" if value >= 10_000 and value % 1000 == 0 else f"{value:,}"


def _row(m: Any) -> tuple[str, ...]:
    if m.kind == "chat":
        notes = [f for f in ("tools", "vision", "json_schema") if getattr(m, f)]
    elif m.kind == "embedding":
        notes = [f"dim {m.dimension}"] if m.dimension else []
    else:
        notes = [f"${m.per_1k_searches:.2f} per 1k searches"] if m.per_1k_searches is not None else []
    if m.long_context is not None:
        notes.append(f"more above {_tokens(m.long_context.above)}")
    if m.deprecated:
        notes.append("deprecated")
    out = m.output if m.kind == "chat" else None
    return (m.name, m.provider or "(any)", m.kind, _price(m.input, m.local), _price(out, m.local),
            _price(m.cached_input, m.local), _tokens(m.context_window),
            _tokens(m.max_output_tokens) if m.kind == "chat" else "-", " ".join(notes))


def _as_dict(m: Any, vendors: dict[str, Any]) -> dict[str, Any]:
    from dataclasses import asdict

    data = asdict(m)
    data["aliases"] = list(m.aliases)
    vendor = vendors.get(m.provider)
    data["price_page"] = vendor.prices if vendor is not None else ""
    return data
