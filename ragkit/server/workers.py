"""Run the server's uvicorn workers, each on its own listening socket where the OS balances them.

uvicorn's ``workers=N`` hands every worker the same listening socket, and asyncio accepts every
pending connection at once: a burst of clients lands on whichever worker woke first (in the load
benchmark, 17 to 20 of 20 concurrent clients on one of two workers, so the other one idled while
the first queued them). On Linux each worker here binds its own socket with ``SO_REUSEPORT``
and the kernel spreads new connections over the workers. uvicorn's supervisor still starts,
watches and restarts the workers; only the socket a worker receives differs: ``ReusePortSocket``
travels to the worker process as a recipe and is bound there, and it listens only once that
worker serves.
"""

from __future__ import annotations

import socket
import sys
from typing import Any

from ragkit.errors import ConfigError

APP = "ragkit.server.app:app_from_env"


def balanced() -> bool:
    """Whether connections can be spread over workers by the kernel (Linux ``SO_REUSEPORT``)."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def bind_reuseport(host: str, port: int, *, share: bool = True) -> socket.socket:
    """A socket bound to host:port; ``share=False`` binds without ``SO_REUSEPORT``, which fails
    while anything (another ``ragkit serve`` too) listens on the port."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # as uvicorn binds: "localhost" is IPv4
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if share:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
    except BaseException:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


class ReusePortSocket:
    """Pickled to a worker process as "bind a ``SO_REUSEPORT`` socket to host:port here"."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port

    def __reduce__(self) -> tuple[Any, tuple[str, int]]:
        return bind_reuseport, (self.host, self.port)


def run(*, host: str, port: int, workers: int, log_level: str, access_log: bool) -> None:
    import uvicorn

    options: dict[str, Any] = {"factory": True, "host": host, "port": port, "workers": workers,
                               "log_level": log_level, "access_log": access_log}
    if workers == 1 or not balanced():
        uvicorn.run(APP, **options)
        return
    from uvicorn.supervisors import Multiprocess

    config = uvicorn.Config(APP, **options)
    try:  # a taken port fails here, once, not in every worker
        bind_reuseport(host, port, share=False).close()
    except OSError as exc:
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc} (is another server running "
                          "there? pick another --port)") from None
    try:
        Multiprocess(config, sockets=[ReusePortSocket(host, port)]).run()  # type: ignore[list-item]
    except KeyboardInterrupt:
        pass
