"""``ServerSettings``: what ``ragkit serve`` was asked to run, passed to every worker process.

Workers are separate processes started by uvicorn, so the settings travel as JSON in the
``RAGKIT_SERVE_SETTINGS`` environment variable (no secrets in them: API keys live hashed in the
state database, provider keys in the provider's own variables).
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigError
from ragkit.index.layout import IndexLayout

ENV = "RAGKIT_SERVE_SETTINGS"
CITATION_MODES = ("field", "inline")


@dataclass
class ServerSettings:
    index: str
    pipeline: str | None = None
    provider: str = "local"
    model: str | None = None
    base_url: str | None = None
    provider_options: dict[str, Any] = field(default_factory=dict)
    served_model: str = "ragkit"
    sessions_url: str | None = None
    cors_origins: list[str] = field(default_factory=list)
    host: str = "127.0.0.1"  # the bind address: a name the server answers to (see server/guard.py)
    allowed_hosts: list[str] = field(default_factory=list)  # more Host names (--allowed-host)
    max_body_bytes: int = 1_000_000
    max_upload_bytes: int = 50_000_000
    session_lock_wait: float = 60.0
    turn_lease: float = 600.0
    citations: str = "field"  # "inline": answers also end with a numbered Sources block
    # server-side tools the agent may call beside the knowledge base: registry names (--tool) and
    # their options (--tool-option NAME.KEY=VALUE); never an import path
    tools: list[str] = field(default_factory=list)
    tool_options: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if "*" in self.cors_origins and len(self.cors_origins) > 1:
            raise ConfigError("--cors-origin '*' cannot be combined with named origins; pass either")
        if self.citations not in CITATION_MODES:
            raise ConfigError(f"citations must be one of {CITATION_MODES} (got {self.citations!r})")
        for name in self.tool_options:
            if name not in self.tools:
                raise ConfigError(f"--tool-option {name}.…: '{name}' is not a tool of this server; add --tool {name}")
        if len(set(self.tools)) != len(self.tools):
            raise ConfigError(f"--tool: a tool is named twice ({', '.join(self.tools)})")
        for name in ("max_body_bytes", "max_upload_bytes"):
            if getattr(self, name) < 1024:
                raise ConfigError(f"{name} must be at least 1024 bytes (got {getattr(self, name)})")

    @property
    def index_dir(self) -> Path:
        return Path(self.index).absolute()

    @property
    def state_url(self) -> str:
        return self.sessions_url or "sqlite:///" + str(IndexLayout(self.index_dir).state_db)

    @property
    def uploads_dir(self) -> Path:
        return IndexLayout(self.index_dir).uploads

    def built_tools(self) -> list[Any]:
        """The server-side tools, built by registry name with their options (a ``ConfigError``
        naming the flag for an unknown name or a bad option)."""
        from ragkit.tools import named_tool

        return [named_tool(n, self.tool_options.get(n), where=f"--tool {n}") for n in self.tools]

    def to_env(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_env(cls) -> ServerSettings:
        raw = os.environ.get(ENV)
        if not raw:
            raise ConfigError(f"{ENV} is not set; start the server with `ragkit serve`")
        return cls(**json.loads(raw))


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and names that resolve only to them (``localhost``)."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(i[4][0]).is_loopback for i in infos)
