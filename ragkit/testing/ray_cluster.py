"""A multi-node Ray cluster on this machine, started as an operator would: ``ray start --head``
and ``ray start --address`` (with ``--block``, so each node's processes are children of a
process we own), each node with its own CPUs, custom resource and temp dir.

A node can be killed (SIGKILL to every process of that node: its raylet, its workers, its
agents), the way a machine that loses power leaves a cluster. ``docs/scaling.md`` shows the
same commands (``head_command`` and ``node_command`` build them). Used by the cluster tests.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from ragkit.errors import RagkitError
from ragkit.testing.servers.base import free_port

log = logging.getLogger(__name__)

#: seconds a node may take to start (a loaded 2-core machine takes ~15 s for a head)
STARTUP_DEADLINE = 180.0
#: the environment every node and driver gets: no usage stats, no token auth on loopback
RAY_ENV = {"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
_READY = "This command will now block forever"


def ray_executable() -> str:
    exe = Path(sys.executable).parent / "ray"
    if not exe.exists():
        raise RagkitError(f"no `ray` command next to {sys.executable}; install the ray extra: pip install 'ragkit[ray]'")
    return str(exe)


def head_command(*, port: int, num_cpus: float, temp_dir: Path, dashboard_port: int, client_port: int,
                 object_store_mb: int = 150) -> list[str]:
    """``ray start --head``: the GCS at ``port``, the dashboard at ``dashboard_port`` (127.0.0.1)."""
    return ["ray", "start", "--head", "--port", str(port), "--num-cpus", f"{num_cpus:g}",
            "--temp-dir", str(temp_dir), "--dashboard-host", "127.0.0.1", "--dashboard-port", str(dashboard_port),
            "--ray-client-server-port", str(client_port), *_node_args(object_store_mb)]


def node_command(*, address: str, num_cpus: float, temp_dir: Path, name: str, object_store_mb: int = 150) -> list[str]:
    """``ray start --address``: a worker node with ``num_cpus`` CPUs and the custom resource ``name``."""
    return ["ray", "start", "--address", address, "--num-cpus", f"{num_cpus:g}", "--temp-dir", str(temp_dir),
            "--resources", json.dumps({name: 1}), *_node_args(object_store_mb)]


def _node_args(object_store_mb: int) -> list[str]:
    # ports the OS picks: several nodes share this machine
    return ["--dashboard-agent-listen-port", "0", "--min-worker-port", "0", "--max-worker-port", "0",
            "--object-store-memory", str(object_store_mb * 2**20)]


@dataclass
class RayNode:
    """One node: the ``ray start --block`` process that owns its processes, and its log."""

    name: str
    proc: subprocess.Popen[bytes]
    log_path: Path
    temp_dir: Path
    killed: bool = False

    def processes(self) -> list[Any]:
        """The node's live processes (``psutil.Process``, which refuses to signal a reused pid)."""
        import psutil

        try:
            root = psutil.Process(self.proc.pid)
            return [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return []


class LocalRayCluster:
    """``with LocalRayCluster(root) as cluster``: ``cluster.start_head(...)``, ``cluster.add_node(...)``,
    ``cluster.kill_node(node)``; every node is stopped on exit."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.nodes: list[RayNode] = []
        self.address = ""
        self.dashboard = ""
        self.env = {**os.environ, **RAY_ENV}

    def __enter__(self) -> LocalRayCluster:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    def start_head(self, *, num_cpus: float = 0) -> RayNode:
        port, dash, client = free_port("127.0.0.1"), free_port("127.0.0.1"), free_port("127.0.0.1")
        cmd = head_command(port=port, num_cpus=num_cpus, temp_dir=self.root / "head", dashboard_port=dash,
                           client_port=client)
        node = self._start("head", cmd)
        found = re.search(r"ray start --address='([^']+)'", node.log_path.read_text(errors="replace"))
        if found is None:
            raise RagkitError(f"the Ray head started but its log names no address: {node.log_path}")
        self.address = found.group(1)
        self.dashboard = f"http://127.0.0.1:{dash}"
        return node

    def add_node(self, name: str, *, num_cpus: float = 1) -> RayNode:
        """A worker node with ``num_cpus`` CPUs and one unit of the custom resource ``name``."""
        if not self.address:
            raise RagkitError("start the head (start_head) before adding nodes")
        return self._start(name, node_command(address=self.address, num_cpus=num_cpus,
                                              temp_dir=self.root / name, name=name))

    def _start(self, name: str, cmd: list[str]) -> RayNode:
        log_path = self.root / f"{name}.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(log_path, "wb") as out:
            proc = subprocess.Popen([ray_executable(), *cmd[1:], "--block"], stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, env=self.env)
        node = RayNode(name, proc, log_path, self.root / name)
        self.nodes.append(node)
        deadline = time.monotonic() + STARTUP_DEADLINE
        while _READY not in log_path.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                tail = log_path.read_text(errors="replace")[-3000:]
                raise RagkitError(f"Ray node {name} did not start ({' '.join(cmd)}; exit code {proc.poll()}):\n{tail}")
            time.sleep(0.1)
        log.info("ray node %s up (pid %d)", name, proc.pid)
        return node

    def kill_node(self, node: RayNode) -> None:
        """SIGKILL every process of ``node`` at once, as a power loss would."""
        procs = node.processes()
        node.killed = True
        _kill(procs)
        node.proc.wait(timeout=60)
        log.info("ray node %s killed (%d processes)", node.name, len(procs))

    def node_id(self, name: str) -> str:
        """The Ray node id of the node started as ``name`` (needs ``ray.init`` in this process)."""
        import ray

        for n in ray.nodes():
            if n["Alive"] and (name in n["Resources"] or (name == "head" and "node:__internal_head__" in n["Resources"])):
                return str(n["NodeID"])
        raise RagkitError(f"no live Ray node named {name}")

    def stop(self) -> None:
        """Stop the worker nodes, then the head (SIGTERM: ``ray start --block`` stops its processes);
        whatever is left of a node is killed by pid."""
        import psutil

        # the worker nodes together, then the head
        for group in ([n for n in self.nodes if n.name != "head"], [n for n in self.nodes if n.name == "head"]):
            procs = [p for node in group for p in node.processes()]
            for node in group:
                if node.proc.poll() is None:
                    node.proc.terminate()
            for node in group:
                try:
                    node.proc.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    node.proc.kill()
            _, alive = psutil.wait_procs(procs, timeout=10)
            _kill(alive)
        self.nodes.clear()


def _kill(procs: list[Any]) -> None:
    import psutil

    for proc in procs:
        try:
            proc.kill()  # SIGKILL, unless the pid now belongs to another process
        except psutil.NoSuchProcess:
            pass
