"""Every built-in registry name resolves in a fresh interpreter, and provider names come from one
list (``--provider vllm|llamacpp|gemini`` must work in a fresh process, not only once
``ragkit.providers.openai`` happens to be imported, where the presets register)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragkit.testing.servers import FakeOpenAIServer

from ..unit.pipeline.helpers import write_cli_pipeline

ROOT = Path(__file__).resolve().parents[2]

# The parent imports only the registry; each name is resolved in a child forked from it, so no
# name is resolved with the help of a module another name imported.
_RESOLVE_EACH = r"""
import json, os, sys
from ragkit import registry
from ragkit.cli.ask_cmd import ask  # the names `--provider` offers
offered = next(p for p in ask.params if p.name == "provider").type.choices
failures = {}
kinds = [(kind, getattr(registry, kind), getattr(registry, kind).names())
         for kind in ("loaders", "splitters", "embedders", "stores", "retrievers", "providers")]
for kind, reg, names in kinds + [("--provider", registry.providers, offered)]:
    for name in names:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                obj = reg.get(name)
                msg = "" if obj is not None else "resolved to None"
            except BaseException as exc:
                msg = f"{type(exc).__name__}: {exc}"
            os.write(w, msg.encode())
            os._exit(0)
        os.close(w)
        with os.fdopen(r) as f:
            msg = f.read()
        os.waitpid(pid, 0)
        if msg:
            failures[f"{kind}:{name}"] = msg
print(json.dumps({"failures": failures, "modules": sorted(m for m in sys.modules if m.startswith("ragkit"))}))
"""


def _fresh_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", **extra}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks one child per name")
def test_every_builtin_name_of_every_registry_resolves_in_a_fresh_interpreter() -> None:
    proc = subprocess.run([sys.executable, "-c", _RESOLVE_EACH], capture_output=True, text=True,
                          env=_fresh_env(), timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["failures"] == {}
    # the parent stayed fresh: no component module was imported before a child resolved its name
    assert "ragkit.providers.openai" not in out["modules"] and "ragkit.stores.faiss" not in out["modules"]


@pytest.mark.parametrize("provider", ["vllm", "gemini", "llamacpp"])
def test_ask_with_a_preset_provider_in_a_fresh_process(tmp_path: Path, provider: str) -> None:
    docs, pipe = write_cli_pipeline(tmp_path)
    env = _fresh_env(GEMINI_API_KEY="test")
    indexed = subprocess.run([sys.executable, "-m", "ragkit.cli.main", "index", str(docs), "--pipeline", str(pipe)],
                             capture_output=True, text=True, env=env, timeout=180)
    assert indexed.returncode == 0, indexed.stderr
    with FakeOpenAIServer() as server:  # answers "echo: <last user message>"
        proc = subprocess.run(
            [sys.executable, "-m", "ragkit.cli.main", "ask", "Where is the ferry?", "--pipeline", str(pipe),
             "--provider", provider, "--model", "m", "--base-url", server.url],
            capture_output=True, text=True, env=env, timeout=180)
        assert proc.returncode == 0, proc.stderr
        assert "echo: Where is the ferry?" in proc.stdout
        assert server.requests_to("/v1/chat/completions")[-1].body["model"] == "m"


def test_one_list_builds_the_registry_the_vendors_and_the_cli_choices() -> None:
    from ragkit.cli.ask_cmd import ask
    from ragkit.provider_names import PROVIDERS, Preset, cli_choices, presets
    from ragkit.providers.openai import OpenAIProvider
    from ragkit.registry import providers
    from ragkit.vendors import all_vendors, environment_variables

    names = [p.name for p in PROVIDERS]
    assert len(names) == len(set(names))
    assert set(names) <= set(providers.names())
    choice = next(p for p in ask.params if p.name == "provider")
    assert list(choice.type.choices) == cli_choices()  # type: ignore[attr-defined]
    assert {"local", "openai", "ollama", "vllm", "llamacpp", "gemini", "anthropic", "cohere"} <= set(cli_choices())
    vendors = {v.name: v for v in all_vendors()}
    for preset in presets():  # what adding one Preset entry gives
        assert isinstance(preset, Preset)
        cls = providers.get(preset.name)
        assert issubclass(cls, OpenAIProvider) and cls.name == preset.name and cls.__name__ == preset.class_name
        vendor = vendors[preset.name]
        assert vendor is cls.vendor and vendor.base_url == preset.base_url and vendor.key_vars == (preset.key_var,)
        assert vendor.requires_key is not bool(preset.local_command)
        assert preset.key_var in environment_variables() and preset.name in cli_choices()


def test_the_cli_does_no_provider_work_until_a_command_needs_it() -> None:
    """Importing the CLI (what ``ragkit index`` does before it indexes) reads no provider list and
    imports no vendor; ``ask --help`` then names the providers and their key variables."""
    code = ("import sys; from ragkit.cli.main import cli\n"
            "print(sorted(m for m in sys.modules if m.startswith(('ragkit.vendors', 'ragkit.provider_names'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"
    from click.testing import CliRunner

    from ragkit.cli.main import cli

    shown = CliRunner().invoke(cli, ["ask", "--help"]).output
    assert "OPENAI_API_KEY" in shown and "anthropic" in shown
