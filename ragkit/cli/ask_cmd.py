"""`ragkit ask` and `ragkit chat`: questions over the index, answered with cited sources."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from ragkit.cli.options import echo_json, index_option, json_option, pipeline_option


class _ProviderChoice(click.Choice):
    """The ``--provider`` names, read from the provider list when a command parses or shows help
    (not when the CLI imports, so ``ragkit index`` does no provider work)."""

    def __init__(self) -> None:
        super().__init__(())

    @property  # type: ignore[override]
    def choices(self) -> tuple[str, ...]:
        from ragkit.provider_names import cli_choices

        return tuple(cli_choices())

    @choices.setter
    def choices(self, value: Any) -> None:  # click's __init__ sets it; the list above is the one source
        pass


class _LazyHelpOption(click.Option):
    """An option whose help text is written when help is shown (it imports the vendors)."""

    def __init__(self, *args: Any, help_text: Callable[[], str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._help_text = help_text

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        if self.help is None:
            self.help = self._help_text()
        return super().get_help_record(ctx)


def _provider_help() -> str:
    from ragkit.vendors import all_vendors

    keys = "; ".join(f"{v.name}: {v.key_vars[0]}{'' if v.requires_key else ' (optional)'}" for v in all_vendors())
    return f"LLM provider. `local` is offline and extractive; the others read their API key from the environment ({keys})."


def provider_options(f: Any) -> Any:
    f = click.option("--base-url", default=None, help="Endpoint of the provider's server (default: the provider's own, e.g. http://localhost:11434/v1 for ollama).")(f)
    f = click.option("--model", "-m", default=None, help="Model name for the provider (default: the provider's).")(f)
    f = click.option("--provider", type=_ProviderChoice(), default="local", show_default=True,
                     cls=_LazyHelpOption, help_text=_provider_help)(f)
    f = click.option("--top-k", "-k", type=click.IntRange(1, 20), default=None, help="Passages per search (default: the pipeline's).")(f)
    return f


def build_agent(pipeline: str | None, index_dir: str | None, provider: str, model: str | None,
                base_url: str | None, top_k: int | None, memory: Any = None, *, policy: str | None = None,
                guardrails: bool = False, sessions: Any = None, session_wait: float = 60.0) -> Any:
    import threading

    from ragkit.index.reader import KnowledgeBase

    kb = KnowledgeBase.open(pipeline=pipeline, index=index_dir)
    # the query model opens (ONNX Runtime session, tokenizer) while the agent's modules import;
    # RAGAgent's warm-up waits for it and reports any error
    threading.Thread(target=_quietly, args=(kb.embedder.load_for_queries,), name="ragkit-warm-up", daemon=True).start()
    from ragkit.rag.agent import RAGAgent

    opts: dict[str, Any] = {"base_url": base_url} if base_url else {}
    return RAGAgent(kb, provider=provider, model=model, top_k=top_k, memory=memory,
                    config=guarded_config(policy, guardrails), sessions=sessions, session_wait=session_wait, **opts)


def _quietly(load: Any) -> None:
    try:
        load()
    except Exception:  # noqa: BLE001 - the warm-up in the agent's first question raises it again, in the foreground
        pass


def guarded_config(policy: str | None, guardrails: bool) -> Any:
    """``--policy FILE`` and ``--guardrails`` as an AgentConfig (None when neither is given). A call
    under review asks on the terminal; without one (piped input) the run pauses and says so."""
    if policy is None and not guardrails:
        return None
    from ragkit.agent import AgentConfig
    from ragkit.agent.values import ToolPolicy
    from ragkit.guardrails import default_guardrails

    return AgentConfig(
        policy=ToolPolicy.from_yaml(policy) if policy else None,
        guardrails=default_guardrails() if guardrails else None,
        approval_handler=_ask_on_terminal if policy and sys.stdin.isatty() else None,
    )


def _ask_on_terminal(request: Any) -> bool:
    click.echo(f"\nThe agent wants to run {request.preview} ({request.reason}).", err=True)
    return bool(click.confirm("Allow it?", default=False, err=True))


def guard_options(f: Any) -> Any:
    f = click.option("--guardrails", is_flag=True, help="Screen the run with the offline guardrails: block prompt "
                     "injection in the question, redact personal data (emails, phones, card numbers, IBANs, IPs, "
                     "national ids) before it reaches the model, neutralise instructions inside passages.")(f)
    f = click.option("--policy", "policy", type=click.Path(dir_okay=False), default=None,
                     help="A YAML tool policy (allow/review/deny lists of tool-name globs, deny_when rules). Calls "
                          "under review ask on the terminal; piped, the run pauses. Allow search_knowledge_base "
                          "in it, or every search asks.")(f)
    return f


@click.command()
@click.argument("question")
@pipeline_option
@index_option
@provider_options
@click.option("--stream", is_flag=True, help="Print the answer as it is generated.")
@click.option("--show-sources", is_flag=True, help="Also print the cited passages' text.")
@click.option("--trace", "show_trace", is_flag=True, help="Print the agent's steps (model calls, tool calls, "
              "guardrails, policy decisions, timings) and per-tool analytics.")
@click.option("--image", "image_files", multiple=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="Show the model an image with the question (PNG, JPEG, GIF or WebP, at most 20 MB; repeat for "
                   "several). Needs a vision model, e.g. --provider openai --model gpt-4o-mini.")
@guard_options
@json_option
def ask(question: str, pipeline: str | None, index_dir: str | None, provider: str, model: str | None,
        base_url: str | None, top_k: int | None, stream: bool, show_sources: bool, show_trace: bool,
        image_files: tuple[str, ...], policy: str | None, guardrails: bool, as_json: bool) -> None:
    """Answer QUESTION from the indexed documents, citing sources as [n].

    Prints the answer, the numbered sources (path, page), and a usage line with the LLM and
    embedding tokens and the total cost. With the default `local` provider everything runs offline.

    \b
    Examples:
      ragkit ask "When does the ferry sail?"
      ragkit ask "Summarise the 2022 budget" --provider openai --model gpt-4o-mini --show-sources
      ragkit ask "..." --provider openai --base-url http://localhost:8000/v1 --stream
      ragkit ask "..." --json | jq .citations
      ragkit ask "..." --guardrails --policy policy.yaml --trace
      ragkit ask "What does this chart show?" --image chart.png --provider openai --model gpt-4o-mini
    """
    from ragkit.messages import Image

    images = [Image.from_file(f) for f in image_files]  # a file that is not an image fails before anything loads
    with build_agent(pipeline, index_dir, provider, model, base_url, top_k, policy=policy, guardrails=guardrails) as agent:
        if stream and not as_json:
            result = _stream_answer(agent, question, images=images)
        else:
            result = agent.ask(question, images=images)
            if not as_json:
                click.echo(result.content)
    if as_json:
        echo_json(result.to_dict())
        return
    print_sources(result, show_text=show_sources)
    for pending in result.pending_approvals:
        click.echo(f"  waiting for approval: {pending['preview']} ({pending['reason']})")
    if show_trace:
        print_trace(result)
        print_analytics(result)
    click.secho(result.usage.summary_line(), dim=True)


def _stream_answer(agent: Any, question: str, session_id: str | None = None, images: Any = ()) -> Any:
    """Print the answer as it streams (a run stopped before any text streams why); its result."""
    result = None
    for event in agent.stream(question, session_id=session_id, images=images):
        if event.type == "text":
            click.echo(event.text, nl=False)
        elif event.type == "result":
            result = event.result
    click.echo()
    return result


def print_sources(result: Any, *, show_text: bool = False) -> None:
    if not result.citations:
        return
    click.echo("\nSources:")
    for c in result.citations:
        where = c.source + (f", {c.location()}" if c.page is not None else "")
        if c.heading:
            where += f" — {c.heading}"
        click.echo(f"  [{c.number}] {where}")
        if show_text:
            import textwrap

            click.echo(textwrap.indent(textwrap.fill(" ".join(c.text.split()), 92), "      "))


def print_trace(result: Any) -> None:
    from ragkit.usage import format_cost

    click.echo("\nTrace:")
    for step in result.trace.to_dict().get("steps", []):
        kind = step["type"]
        if kind == "llm_call":
            detail = f"{step['provider']}:{step['model']} {step['input_tokens']} in / {step['output_tokens']} out"
            detail += f", {format_cost(step.get('cost'))}"
            if step.get("tool_calls"):
                detail += f" -> {', '.join(step['tool_calls'])}"
        elif kind == "tool_call":
            detail = f"{step['name']}({', '.join(f'{k}={v!r}' for k, v in step['arguments'].items())})"
            detail += " ERROR" if step.get("is_error") else ""
        elif kind in ("guardrail", "policy", "approval", "coherence", "budget"):
            detail = " ".join(str(step.get(k)) for k in _GUARDED[kind] if step.get(k) not in (None, "", []))
        else:
            detail = step.get("message") or step.get("model") or ""
        click.echo(f"  #{step['iteration']} {kind:9} {detail}  {float(step.get('duration') or 0) * 1000:.0f} ms")


_GUARDED = {
    "guardrail": ("stage", "guardrail", "action", "findings", "tool"),
    "policy": ("tool", "decision", "rule"),
    "approval": ("tool", "approved", "reason"),
    "coherence": ("tool", "coherent", "explanation"),
    "budget": ("action", "limit", "maximum", "used"),
}


def print_analytics(result: Any) -> None:
    from ragkit.agent.observe.analytics import Analytics

    tools = Analytics().add_trace(result.trace).summary()["tools"]
    if not tools:
        return
    click.echo("\nTools:")
    for name, t in tools.items():
        click.echo(f"  {name}: {t['calls']} call(s), {t['errors']} error(s), p50 {t['latency_ms']['p50']:.0f} ms, "
                   f"arguments {', '.join(sorted(t['arguments'])) or '-'}")


CHAT_HELP = """commands: /sources  the sources of the last answer
          /usage    tokens and cost of this session
          /trace    the steps of the last answer
          /reset    forget the conversation
          /help     this text
          /exit     leave (Ctrl-D too)"""


@click.command()
@pipeline_option
@index_option
@provider_options
@click.option("--history", "history_turns", type=click.IntRange(1, 100), default=10, show_default=True,
              help="Conversation messages kept in memory.")
@click.option("--session", "session_name", default=None, metavar="NAME",
              help="Keep the conversation in the session NAME and resume it on the next `ragkit chat --session NAME`.")
@click.option("--sessions-url", default=None,
              help="Where sessions live: sqlite:///PATH or postgresql://... Default: state.db in the index "
                   "(the one `ragkit serve` uses).")
@click.option("--session-wait", type=click.FloatRange(0, 3600), default=60.0, show_default=True, metavar="SECONDS",
              help="How long a question waits for its session while another turn (a `ragkit serve` request, "
                   "another chat) is answering in it.")
@guard_options
def chat(pipeline: str | None, index_dir: str | None, provider: str, model: str | None,
         base_url: str | None, top_k: int | None, history_turns: int, session_name: str | None,
         sessions_url: str | None, session_wait: float, policy: str | None, guardrails: bool) -> None:
    """Interactive questions over the index, with conversation memory and streaming.

    Works piped too: `printf 'question one\\n/usage\\n' | ragkit chat`.
    With --session NAME the conversation is stored (each turn holds the session, as a served
    turn does) and the next run continues it. Type /help for the commands.
    """
    from ragkit.agent import ConversationMemory
    from ragkit.usage import AgentUsage

    interactive = sys.stdin.isatty()
    total = AgentUsage()
    last = None
    # requests fitted to the model's context window (from the model registry) as the chat grows
    memory = ConversationMemory(max_messages=history_turns * 4, context_window="model")
    sessions = _open_sessions(sessions_url, pipeline, index_dir) if session_name else None
    try:
        with build_agent(pipeline, index_dir, provider, model, base_url, top_k, memory=memory, policy=policy,
                         guardrails=guardrails, sessions=sessions, session_wait=session_wait) as agent:
            if interactive:
                click.echo("ragkit chat: ask about your documents. /help for commands, /exit to leave.")
            if sessions is not None:
                from ragkit.sessions.messages import items_to_messages

                resumed = len(items_to_messages(sessions.get_items(session_name)))  # type: ignore[arg-type]
                if resumed:
                    click.echo(f"resuming session '{session_name}' ({resumed} earlier messages)")
            while True:
                try:
                    line = click.prompt("you", prompt_suffix="> ") if interactive else sys.stdin.readline()
                except (EOFError, click.Abort):
                    break
                if not interactive and line == "":
                    break
                line = line.strip()
                if not line:
                    continue
                if line.startswith("/"):
                    if _command(line, agent, last, total):
                        break
                    if line.split()[0].lower() == "/reset" and sessions is not None:
                        sessions.clear(session_name)
                    continue
                click.echo("ragkit> ", nl=False)
                last = _stream_answer(agent, line, session_name)
                if last is not None:
                    total.merge(last.usage)
                    print_sources(last)
    finally:
        if sessions is not None:
            sessions.close()


def _open_sessions(url: str | None, pipeline: str | None, index_dir: str | None) -> Any:
    """The session store of ``--sessions-url``, else the index's state.db (the one `ragkit serve` uses)."""
    from ragkit.sessions import open_session_store

    if url is None:
        from ragkit.index.layout import IndexLayout
        from ragkit.index.reader import resolve_spec

        url = f"sqlite:///{IndexLayout(resolve_spec(pipeline, index_dir)[1]).state_db}"
    return open_session_store(url)


def _command(line: str, agent: Any, last: Any, total: Any) -> bool:
    cmd = line.split()[0].lower()
    if cmd in ("/exit", "/quit"):
        return True
    if cmd == "/help":
        click.echo(CHAT_HELP)
    elif cmd == "/reset":
        agent.reset()
        click.echo("conversation forgotten")
    elif cmd == "/usage":
        click.echo(total.summary_line())
    elif cmd in ("/sources", "/trace"):
        if last is None:
            click.echo("no answer yet")
        elif cmd == "/sources":
            print_sources(last, show_text=True)
        else:
            print_trace(last)
    else:
        click.echo(f"unknown command {cmd}; /help lists them")
    return False
