"""A thread that embeds the texts an indexing run hands it, so the writer's own work runs meanwhile.

The writer (catalog lookups and writes, the stores, its Python) used to embed in its own thread:
while it worked, the model waited, and while the model ran, the writer waited. The run's texts now
go to this worker, which embeds them in calls of at most ``slice_size`` texts, one call after the
other; the writer takes the finished calls' vectors (``results``) and commits them to the
embedding cache itself (the catalog belongs to the writer's thread). Only the worker calls the
embedder during a run.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Mapping

import numpy as np

from ragkit.embedders.base import Embedder

log = logging.getLogger(__name__)


class EmbedWorker:
    def __init__(self, embedder: Embedder, slice_size: int) -> None:
        self.embedder, self.slice_size = embedder, slice_size
        self._cond = threading.Condition()
        self._todo: deque[tuple[str, str]] = deque()  # (text hash, text) not yet taken
        self._taken = 0  # texts of the call running now
        self._done: list[tuple[list[str], np.ndarray]] = []
        self._error: BaseException | None = None
        self._closed = False
        self._thread: threading.Thread | None = None

    def warm(self) -> None:
        """Start the thread now, loading the model (``Embedder.load_for_documents``) while the
        writer reads the first files."""
        with self._cond:
            self._start(warm=True)

    def submit(self, texts: Mapping[str, str]) -> None:
        """Embed ``texts`` (text hash -> text) after what was handed in before."""
        if not texts:
            return
        with self._cond:
            if self._closed:
                raise RuntimeError("the embedding worker is closed")
            self._todo.extend(texts.items())
            self._start(warm=False)
            self._cond.notify_all()

    def _start(self, *, warm: bool) -> None:
        if self._thread is None and not self._closed:
            self._thread = threading.Thread(target=self._work, args=(warm,), name="ragkit-embed", daemon=True)
            self._thread.start()

    def results(self, *, wait: bool) -> list[tuple[list[str], np.ndarray]]:
        """The (hashes, vectors) of the calls finished since the last call; with ``wait``, once
        every text handed in is embedded. An embedding error is raised here, once, after the
        calls that finished before it were returned."""
        with self._cond:
            while wait and (self._todo or self._taken) and self._error is None:
                self._cond.wait()
            done, self._done = self._done, []
            if done or self._error is None:
                return done
            error, self._error = self._error, None
        raise error

    def close(self) -> None:
        """Drop the texts not yet taken and wait for the call running now (its vectors stay in
        ``results``)."""
        with self._cond:
            self._closed = True
            self._todo.clear()
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join()

    def _work(self, warm: bool) -> None:
        if warm:
            try:
                self.embedder.load_for_documents()
            except Exception as exc:  # noqa: BLE001 - the first embed call meets it again and says so
                log.debug("the embedder did not load ahead of the run: %s", exc)
        while True:
            with self._cond:
                while not self._todo and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                part = [self._todo.popleft() for _ in range(min(len(self._todo), self.slice_size))]
                self._taken = len(part)
            try:
                vectors = self.embedder.embed_documents([text for _, text in part])
            except BaseException as exc:  # noqa: BLE001 - raised in the writer's thread by results()
                with self._cond:
                    self._error, self._taken = exc, 0
                    self._todo.clear()
                    self._thread = None  # a later submit starts another
                    self._cond.notify_all()
                return
            with self._cond:
                self._done.append(([h for h, _ in part], vectors))
                self._taken = 0
                self._cond.notify_all()
