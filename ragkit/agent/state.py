"""The state of one agent run, and the bookkeeping that updates it.

``RunState`` is the single, explicit state of a run: plain data (messages, iteration, trace, usage,
tool-call records, citations) plus references to the provider and the tools *by name*, so it can
be serialized (``to_dict``/``from_dict``) and resumed. ``Run`` binds a state to the live objects
of one run (the provider, tools, config, observers, injected context, memory) and turns provider
responses and tool results into the state; the step machine in ``loop.py`` decides *when*.
"""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ragkit.agent import values
from ragkit.agent.config import AgentConfig
from ragkit.agent.observe.observers import ObserverSet
from ragkit.agent.observe.trace import AgentTrace, CacheHitStep, ErrorStep, LLMCallStep, ToolCallStep
from ragkit.agent.result import AgentResult, ToolCallRecord
from ragkit.agent.structured import OutputFormat, is_native, with_instructions
from ragkit.agent.tool_choice import offer
from ragkit.agent.values import ExecutionLog, preview
from ragkit.cache import cache_key
from ragkit.errors import AgentError, RagkitError
from ragkit.messages import Message, Response, ToolCall, ToolSpec
from ragkit.providers.base import Provider
from ragkit.providers.params import ParamError
from ragkit.providers.vision import require_vision
from ragkit.registry import did_you_mean
from ragkit.tools.registry import ToolRegistry
from ragkit.tools.tool import ToolResult
from ragkit.types import Citation
from ragkit.usage import AgentUsage

Prompt = str | Sequence[Message]
SCHEMA_VERSION = 2  # of RunState.to_dict; from_dict refuses a newer one


@dataclass
class ToolRun:
    """One executed call: the request, its result and when it started (seconds into the run)."""

    call: ToolCall
    result: ToolResult
    start: float


@dataclass
class RunState:
    """Everything a run has decided and recorded so far; plain data, serializable."""

    run_id: str
    provider: str  # the provider's name (and model), not the object
    model: str
    tools: list[str]  # names of the tools offered to the model
    messages: list[Message]
    new_from: int = 0  # messages[new_from:] are this run's (added to memory at the end)
    params: dict[str, Any] = field(default_factory=dict)
    iteration: int = 0
    use_memory: bool = True
    trace: AgentTrace = field(default_factory=AgentTrace)
    usage: AgentUsage = field(default_factory=AgentUsage)
    records: list[ToolCallRecord] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    # multi-agent runs (``AgentRunner``): who speaks now, how often the floor changed, calls waiting
    # for a human, what tools keep between calls, the user's context, the session and how many
    # messages it already holds
    current_agent: str | None = None
    handoffs: int = 0
    # tool calls waiting for a human (see agent/guard/approval.py): {call_id, tool, arguments, preview,
    # reason, agent, decision: None | "approved" | "rejected", message}; the paused turn runs on resume
    pending_approvals: list[dict[str, Any]] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)  # why the model chose its tools, per turn
    tool_state: dict[str, Any] = field(default_factory=dict)
    context: Any = None
    session_id: str | None = None
    saved: int = 0  # messages[:saved] are in the session
    written: int = 0  # session items this run wrote (a retried resume skips those already there)
    schema_version: int = SCHEMA_VERSION

    # --- approvals ---------------------------------------------------------------------------

    @property
    def pending(self) -> list[dict[str, Any]]:
        """The entries of ``pending_approvals`` still waiting for ``approve``/``reject``."""
        return [e for e in self.pending_approvals if e.get("decision") is None]

    def approve(self, call_id: str) -> dict[str, Any]:
        """Let the paused call run when the run resumes."""
        return values.decide(self.pending_approvals, call_id, "approved")

    def reject(self, call_id: str, message: str = "") -> dict[str, Any]:
        """Do not run the call; the model gets ``message`` as its result."""
        return values.decide(self.pending_approvals, call_id, "rejected", message)

    # --- continuing a finished run ----------------------------------------------------------

    def continued(self, message: str | Message | Sequence[Message]) -> RunState:
        """The state of a new run that continues this finished one with ``message`` (a user
        question, or the results of a client's tool calls): the conversation, the current agent,
        the tool state and the context carry over; iterations, usage, trace (its
        ``continued_from`` names this run), records and citations start afresh. This state is left
        as it is (continue it again, or from its JSON in another process)."""
        new = [Message(role="user", content=message)] if isinstance(message, str) else \
            [message] if isinstance(message, Message) else list(message)
        if not new or any(m.role not in ("user", "tool") for m in new):
            raise AgentError("continue a run with a user message (a string or Message(role='user', ...)) or with "
                             "the results of its client tool calls (role 'tool')")
        if self.pending:
            raise AgentError(f"this run is paused for approval of {[e['call_id'] for e in self.pending]}; decide "
                             "(state.approve / state.reject) and resume() it, then continue the finished run")
        if self.session_id is not None:
            raise AgentError(f"this run belongs to session {self.session_id!r}, whose store holds the conversation; "
                             f"continue it with run(message, session_id={self.session_id!r})")
        last = self.messages[-1] if self.messages else None
        asked = {c.id for c in last.tool_calls} if last is not None and last.role == "assistant" else set()
        missing = sorted(asked - {m.tool_call_id for m in new if m.role == "tool"})
        if missing:
            raise AgentError(f"the run ended waiting for the results of its tool calls {missing}; continue it with a "
                             "Message(role='tool', tool_call_id=..., content=...) for each")
        run_id = uuid.uuid4().hex[:12]
        trace = AgentTrace(run_id=run_id, sampling=dict(self.trace.sampling), continued_from=self.run_id)
        return RunState(
            run_id=run_id, provider=self.provider, model=self.model, tools=list(self.tools),
            messages=[*self.messages, *new], new_from=len(self.messages), params=dict(self.params),
            use_memory=self.use_memory, trace=trace, current_agent=self.current_agent,
            tool_state=copy.deepcopy(self.tool_state), context=copy.deepcopy(self.context),
        )

    # --- serialization -----------------------------------------------------------------------

    def to_json(self, **kwargs: Any) -> str:
        """Plain ``json.dumps`` of ``to_dict`` (tool state and context must be JSON data or dataclasses)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)

    @classmethod
    def from_json(cls, text: str, *, agents: Any = None, context_type: type | None = None) -> RunState:
        """Load a saved state. ``agents`` (an ``AgentRunner`` or agent definitions) checks that every
        agent the state names exists; ``context_type`` (or the runner's) rebuilds a dataclass context."""
        return cls.from_dict(json.loads(text)).bind(agents, context_type)

    def bind(self, agents: Any = None, context_type: type | None = None) -> RunState:
        """Check the agents this state names against ``agents``; rebuild a saved dataclass context."""
        found = values.check_agents([self.current_agent, *(m.agent for m in self.messages)], agents)
        self.context = values.load_context(self.context, context_type or found)
        return self

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return {
            "run_id": self.run_id, "provider": self.provider, "model": self.model, "tools": list(self.tools),
            "messages": [m.to_dict() for m in self.messages], "new_from": self.new_from,
            "params": dict(self.params), "iteration": self.iteration, "use_memory": self.use_memory,
            "trace": self.trace.to_dict(), "usage": self.usage.to_dict(),
            "records": [asdict(r) for r in self.records], "citations": [c.to_dict() for c in self.citations],
            "current_agent": self.current_agent, "handoffs": self.handoffs,
            "pending_approvals": [dict(e) for e in self.pending_approvals], "tool_state": self.tool_state,
            "context": values.dump_context(self.context), "session_id": self.session_id, "saved": self.saved,
            "written": self.written, "reasoning": list(self.reasoning),
            "schema_version": self.schema_version,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunState:
        version = data.get("schema_version", 1)
        if version > SCHEMA_VERSION:
            raise AgentError(f"this run state has schema version {version}, newer than this ragkit reads "
                             f"({SCHEMA_VERSION}); upgrade ragkit to resume it")
        return cls(
            run_id=data["run_id"], provider=data["provider"], model=data.get("model", ""),
            tools=list(data.get("tools", [])), messages=[Message.from_dict(m) for m in data["messages"]],
            new_from=data.get("new_from", 0), params=dict(data.get("params", {})),
            iteration=data.get("iteration", 0), use_memory=data.get("use_memory", True),
            trace=AgentTrace.from_dict(data.get("trace", {})), usage=AgentUsage.from_dict(data.get("usage", {})),
            records=[ToolCallRecord(**r) for r in data.get("records", [])],
            citations=[Citation(**c) for c in data.get("citations", [])],
            current_agent=data.get("current_agent"), handoffs=data.get("handoffs", 0),
            pending_approvals=[dict(e) for e in data.get("pending_approvals", [])],
            tool_state=dict(data.get("tool_state") or {}), context=values.plain_context(data.get("context")),
            session_id=data.get("session_id"), saved=data.get("saved", 0), written=data.get("written", 0),
            reasoning=list(data.get("reasoning", [])),
        )


class Run:
    """A ``RunState`` bound to the live objects of one run; records what happens into the state."""

    def __init__(self, *, provider: Provider, config: AgentConfig, tools: ToolRegistry, observers: ObserverSet,
                 context: dict[str, Any], prompt: Prompt = "", use_memory: bool = True,
                 state: RunState | None = None, history: Sequence[Message] | None = None,
                 response_format: Any = None) -> None:
        """A new run of ``prompt`` after ``history`` (default: the memory's, when the run uses it),
        or (with ``state``) the continuation of a saved one: the machine goes on from
        ``state.iteration`` with the state's messages. ``response_format`` (else the config's) asks
        for structured output (``agent/structured.py``)."""
        self.provider, self.config, self.tools, self.obs = provider, config, tools, observers
        self.output = OutputFormat.of(response_format if response_format is not None else config.response_format)
        self.output_retries = 0
        self.context = context
        use_memory = state.use_memory if state is not None else use_memory
        self.memory = config.memory if use_memory else None
        self.client = {spec.name: spec for spec in config.client_tools}  # the caller runs these
        clash = sorted(set(self.client) & set(tools.names()))
        if clash:
            raise ParamError("tools", f"client tools {clash} have the names of the agent's own tools; rename them")
        self.specs: list[ToolSpec] = [*tools.specs(), *config.client_tools]
        if state is None:
            run_id = uuid.uuid4().hex[:12]
            messages, new_from = self._initial_messages(prompt, history)
            state = RunState(
                run_id=run_id, provider=provider.name, model=provider.model, tools=tools.names(),
                messages=messages, new_from=new_from, params=config.provider_params(), use_memory=use_memory,
                trace=AgentTrace(run_id=run_id),
            )
            # what the model requests carry: the provider's defaults, then the run's own settings
            state.trace.record_sampling(getattr(provider, "default_params", None) or {}, state.params)
        if state.iteration == 0:  # images for a model that cannot see them: refused before any call
            require_vision(provider, state.messages)
        self.state = st = state  # shortcuts for the bookkeeping below
        self.run_id, self.trace, self.usage, self.messages = st.run_id, st.trace, st.usage, st.messages
        self.records, self.citations, self.params = st.records, st.citations, st.params
        # hooks of multi-agent runs (set by ``agent.multi.runner.MultiAgentRun``; a plain ``Agent`` has none)
        self.agent_name: str | None = st.current_agent
        self.needs_approval: Callable[[ToolCall], bool] | None = None
        self.execution_log: ExecutionLog | None = None
        self.handoff: Callable[[Run], Any] | None = None  # a step run after each turn's tools
        # a step run once a fresh run's input has passed the input guardrails, before the first model
        # call (the turn owner stores the input there: see ``agent/conversation.py``)
        self.admit: Callable[[Run], Any] | None = None
        self.prechecks: list[Callable[[Run, ToolCall], ToolResult | None]] = [values.precheck]
        self.marks: dict[str, Any] = {}  # scratch space of the guarded steps (not part of the state)

    @property
    def iteration(self) -> int:
        return self.state.iteration

    @iteration.setter
    def iteration(self, value: int) -> None:
        self.state.iteration = value

    def _initial_messages(self, prompt: Prompt, history: Sequence[Message] | None) -> tuple[list[Message], int]:
        new = [Message(role="user", content=prompt)] if isinstance(prompt, str) else list(prompt)
        if not new:
            raise AgentError("run() needs a prompt: a non-empty string or a list of Messages")
        if history is None:
            history = self.memory.messages() if self.memory else []
        has_system = any(m.role == "system" for m in [*history, *new])
        system = [Message(role="system", content=self.config.system_prompt)] \
            if self.config.system_prompt and not has_system else []
        messages = [*system, *history, *new]
        if self.memory is not None:  # the window bounds what is sent, not only what is kept
            messages = self.memory.trim(messages)
        return messages, max(0, len(messages) - len(new))

    # --- model calls -------------------------------------------------------------------------

    def offered(self, offer_tools: bool = True) -> tuple[list[ToolSpec] | None, dict[str, Any]]:
        """The tools and parameters of the next model call: the tools as ``tool_choice`` allows them
        now (``required``/named until the run's first tool call)."""
        called = bool(self.records) or any(m.role == "tool" for m in self.messages[self.state.new_from:])
        tools, extra = offer(self.specs, self.config.tool_choice, called) if offer_tools else (None, {})
        return tools, {**self.params, **extra}

    def with_output(self, messages: list[Message], params: dict[str, Any]) -> list[Message]:
        """The call's messages with the structured-output format: ``response_format`` added to
        ``params`` for a provider that enforces it, else an instruction beside the system prompt."""
        if self.output is None:
            return messages
        if self.output_native:
            params["response_format"] = self.output.wire()
            return messages
        return with_instructions(messages, self.output)

    @property
    def output_native(self) -> bool:
        return self.output is not None and is_native(self.provider)

    @property
    def holds_output(self) -> bool:
        """Streamed text waits for the structured-output check (so an invalid answer can go back)."""
        return self.output is not None

    def cache_key(self) -> str:
        system = "\n".join(m.content for m in self.messages if m.role == "system")
        params = {k: v for k, v in self.params.items() if k != "temperature"}
        if self.config.tool_choice is not None:
            params["tool_choice"] = self.config.tool_choice
        if self.output is not None:
            params["response_format"] = self.output.wire()
        return cache_key(
            provider=self.provider.name, model=self.provider.model, system_prompt=system,
            messages=[m for m in self.messages if m.role != "system"], tools=self.specs,
            temperature=self.config.temperature, params=params,
        )

    def cache_lookup(self) -> Response | None:
        """A cached response for the current messages (recorded as a hit), or None."""
        cache = self.config.cache
        if cache is None:
            return None
        start = self.trace.elapsed()
        key = self.cache_key()
        response = cache.get(key)
        if response is None:
            return None
        model = response.model or self.provider.model
        self.usage.add_llm(model=model, input_tokens=response.usage.input_tokens,
                           output_tokens=response.usage.output_tokens, cached=True, provider=self.provider.name,
                           iteration=self.iteration)
        self.trace.add(CacheHitStep(self.iteration, start, self.trace.elapsed() - start, key, model,
                                    response.usage.input_tokens, response.usage.output_tokens))
        self.obs.emit("on_cache_hit", self.run_id, key, response)
        return response

    def cache_store(self, response: Response) -> None:
        if self.config.cache is not None and response.stop_reason != "length":
            self.config.cache.set(self.cache_key(), response)

    def llm_started(self) -> float:
        self.obs.emit("on_llm_start", self.run_id, self.iteration, list(self.messages), self.specs)
        return self.trace.elapsed()

    def llm_finished(self, response: Response, start: float, *, streamed: bool = False) -> None:
        duration = self.trace.elapsed() - start
        model = response.model or self.provider.model
        cost = self.usage.add_llm(model=model, input_tokens=response.usage.input_tokens,
                                  output_tokens=response.usage.output_tokens, provider=self.provider.name,
                                  iteration=self.iteration, cached_input_tokens=response.usage.cached_input_tokens,
                                  images=response.usage.images)
        self.trace.add(LLMCallStep(
            self.iteration, start, duration, self.provider.name, model,
            response.usage.input_tokens, response.usage.output_tokens, cost,
            [c.name for c in response.tool_calls], response.stop_reason, streamed, images=response.usage.images,
        ))
        named = response if response.model else replace(response, model=model)  # observers learn the model
        self.obs.emit("on_llm_end", self.run_id, self.iteration, named, duration)

    def llm_failed(self, exc: BaseException, start: float) -> Exception:
        """Record a provider failure; returns the exception to raise."""
        message = f"provider '{self.provider.name}' failed in iteration {self.iteration}: {type(exc).__name__}: {exc}"
        self.trace.add(ErrorStep(self.iteration, start, message, "provider", self.trace.elapsed() - start))
        if isinstance(exc, RagkitError):
            return exc
        error = AgentError(message + "; check the provider's configuration and logs")
        error.__cause__ = exc
        return error

    # --- tool calls --------------------------------------------------------------------------

    def precheck(self, call: ToolCall) -> ToolResult | None:
        """An error result for a call that cannot run (refused by the text tool-call parser, bad
        JSON, unknown tool), else None; then the ``prechecks`` hooks may answer a call without
        running it (handoffs, approvals). Call it once per call: the hooks keep per-turn records."""
        return self.invalid(call) or next((r for check in self.prechecks if (r := check(self, call)) is not None), None)

    def invalid(self, call: ToolCall) -> ToolResult | None:
        """The error result of a call that cannot run at all (no hooks, no side effects), else None."""
        if call.parse_error and call.parse_error.startswith("refused"):  # the text tool-call parser's verdict
            return ToolResult(call.name, f"error: {call.parse_error}", is_error=True, error_kind="arguments")
        if call.parse_error:
            return ToolResult(call.name, (
                f"error: the arguments for tool '{call.name}' are not valid JSON ({call.parse_error}); "
                "call it again with a JSON object that matches its schema"
            ), is_error=True, error_kind="arguments")
        if call.name not in self.tools:
            available = ", ".join(self.tools.names()) or "(none)"
            return ToolResult(call.name, (
                f"error: unknown tool '{call.name}'{did_you_mean(call.name, self.tools.names())}; "
                f"available tools: {available}"
            ), is_error=True, error_kind="unknown_tool")
        return None

    def unanswered_calls(self) -> tuple[ToolCall, ...]:
        """The tool calls of a turn that paused for approval (the last message, still unanswered)."""
        last = self.messages[-1] if self.messages else None
        return last.tool_calls if last is not None and last.role == "assistant" else ()

    def pause(self, calls: Sequence[ToolCall]) -> AgentResult | None:
        """The ``paused`` result when a call of this turn waits for a decision (an undecided entry
        of ``pending_approvals``, added by the decision step), else None. The one way a run pauses."""
        ids = {c.id for c in calls}
        waiting = [e for e in self.state.pending if e["call_id"] in ids]
        if not waiting:
            return None
        names = ", ".join(preview(e["tool"], e["arguments"]) for e in waiting)
        return self.end(f"Paused: waiting for approval of {names}.", "paused", remember=False)

    def tool_started(self, call: ToolCall) -> float:
        self.obs.emit("on_tool_start", self.run_id, call)
        return self.trace.elapsed()

    def tool_chunk(self, call: ToolCall, text: str) -> None:
        self.obs.emit("on_tool_chunk", self.run_id, call, text)

    def tools_finished(self, runs: Sequence[ToolRun]) -> None:
        """Fold results (in call order) into messages, trace, usage, records and citations."""
        values.record(self, runs)  # first: a crash after this point cannot run a gated call twice
        for run in runs:
            call, result = run.call, run.result
            self.messages.append(Message(role="tool", content=result.content, tool_call_id=call.id, name=call.name,
                                         citations=tuple(result.citations)))
            self.trace.add(ToolCallStep(self.iteration, run.start, result.duration, call.name, call.id,
                                        dict(call.arguments), result.content, result.is_error, result.error_kind,
                                        result.chunks, result.chunk_bytes, result.first_chunk, result.attempts,
                                        list(result.retried)))
            self.records.append(ToolCallRecord(call.id, call.name, dict(call.arguments), result.content,
                                               result.is_error, result.error_kind, self.iteration, result.duration))
            if call.name in self.tools:
                self.usage.add_tool(call.name, result.usage, error=result.is_error, iteration=self.iteration)
            for citation in result.citations:
                if citation not in self.citations:
                    self.citations.append(citation)
            if result.is_error:
                self.trace.add(ErrorStep(self.iteration, run.start, result.content, result.error_kind or "tool"))
                self.obs.emit("on_tool_error", self.run_id, call, result)
            else:
                self.obs.emit("on_tool_end", self.run_id, call, result)

    # --- the end -----------------------------------------------------------------------------

    def finish(self, response: Response | None, *, stop: str | None = None, content: str = "") -> AgentResult:
        """The result: the model's answer, the max_iterations note, or (``stop``) another ending."""
        if stop is None and response is None:
            n = self.config.max_iterations
            content = (f"Stopped after {n} iterations without a final answer (max_iterations={n}). "
                       "Raise AgentConfig.max_iterations or ask a simpler question.")
            stop = "max_iterations"
        elif stop is None and response is not None:
            content = response.content
            stop = "length" if response.stop_reason == "length" else "stop"
        parsed = None
        if self.output is not None and stop == "stop":
            parsed, error = self.output.check(content)
            stop = "stop" if error is None else "invalid_output"
        return self.end(content, stop, parsed=parsed)

    def fail(self, error: BaseException) -> None:
        """The end of a run that raised (``error``) or was abandoned (``GeneratorExit``): the trace is
        finished and observers get ``on_agent_end`` with a ``RunFailed``, so every run ends with an
        event (audit, analytics, telemetry). Nothing is remembered; the caller gets the exception."""
        from ragkit.agent.result import RunFailed

        cancelled = isinstance(error, GeneratorExit)
        kind = type(error).__name__
        recorded = bool(self.trace.steps) and isinstance(self.trace.steps[-1], ErrorStep)  # e.g. by llm_failed
        if not cancelled and not recorded:
            self.trace.add(ErrorStep(self.iteration, self.trace.elapsed(), f"{kind}: {error}", "run"))
        self.trace.finish()
        if not cancelled:
            self.obs.emit("on_error", self.run_id, error)
        result = RunFailed(
            content="", tool_calls=self.records, iterations=self.iteration, trace=self.trace, usage=self.usage,
            stop_reason="cancelled" if cancelled else "error", messages=list(self.messages), citations=self.citations,
            reasoning="\n\n".join(self.state.reasoning), state=self.state,
            error_type="" if cancelled else kind, error="" if cancelled else str(error),
        )
        self.obs.emit("on_agent_end", self.run_id, result)

    def end(self, content: str, stop: str, *, result_class: type[AgentResult] = AgentResult,
            remember: bool = True, **fields: Any) -> AgentResult:
        """The run's result (``result_class`` with its extra ``fields``); ``remember=False`` keeps this
        run's messages out of memory (a blocked input, a paused run)."""
        if remember and self.memory is not None:
            dropped = self.memory.add(*self.messages[self.state.new_from:])
            if dropped:
                kept = self.memory.count_tokens(self.memory.messages())
                self.obs.emit("on_memory_trim", self.run_id, dropped, kept, self.memory.token_limit)
        self.trace.finish()
        result = result_class(
            content=content, tool_calls=self.records, iterations=self.iteration, trace=self.trace,
            usage=self.usage, stop_reason=stop, messages=list(self.messages), citations=self.citations,
            reasoning="\n\n".join(self.state.reasoning), pending_approvals=[dict(p) for p in self.state.pending_approvals],
            state=self.state, **fields,
        )
        self.obs.emit("on_agent_end", self.run_id, result)
        return result
