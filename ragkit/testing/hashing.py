"""HashingEmbedder: a deterministic, dependency-free fake embedder for tests and examples.

Feature hashing of lowercased word unigrams and bigrams into ``dimension`` signed buckets, then
L2 normalization. Texts sharing words get similar vectors, so retrieval tests behave sensibly
without loading a model.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
import uuid
from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from ragkit.embedders.base import Embedder, normalize_rows
from ragkit.errors import ConfigError, EmbeddingError
from ragkit.registry import embedders

_WORD = re.compile(r"\w+", re.UNICODE)


@embedders.register("hashing")
class HashingEmbedder(Embedder):
    semantic = False  # shared words, not meaning
    def __init__(
        self, *, dimension: int = 256, model: str = "hashing", price_per_million: float | None = None,
        delay: float = 0.0, calls_file: str | None = None, gate_file: str | None = None,
        gate_timeout: float = 600.0, gate_after: int = 0,
    ) -> None:
        """``model`` names the model it pretends to be for pricing (its price in the model registry,
        ``ragkit/models.yaml``, unless ``price_per_million`` is given; a model without a price is
        unpriced); ``delay`` seconds of sleep per embed call simulate a slow model (crash tests);
        ``calls_file``: each embed call appends a line to it when it starts (its texts and process id) (a test in another
        process waits on it instead of on the clock); ``gate_file``: each embed call, once noted,
        waits until that file exists (a test in another process holds the run open by construction
        and releases it by creating the file; after ``gate_timeout`` seconds the call fails);
        ``gate_after``: with ``calls_file``, that many calls (the first lines of the file, counted
        across every process sharing it) pass the gate, so a run is held after a known amount of work."""
        super().__init__()
        self.delay = delay
        self.calls_file = calls_file
        self.gate_file = gate_file
        self.gate_timeout = gate_timeout
        if gate_after < 0 or (gate_after and not calls_file):
            raise ConfigError(f"gate_after must be 0 or more and needs calls_file (got {gate_after})")
        self.gate_after = gate_after
        self.pricing_name = model
        if price_per_million is None:
            from ragkit import pricing

            price_per_million = pricing.embedding_rate(model)
        if dimension < 2:
            raise ConfigError(f"dimension must be at least 2 (got {dimension})")
        self._dimension = dimension
        self.model_id = f"{model}-{dimension}"
        self.price_per_million = price_per_million
        self.calls: list[int] = []  # batch sizes seen, for tests
        self._features: dict[str, int] = {}

    @property
    def dimension(self) -> int:
        return self._dimension

    def count_tokens(self, text: str) -> int:
        return len(_WORD.findall(text))

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        ordinal = self._note_call(len(texts)) if self.calls_file else 0
        if self.gate_file and ordinal >= self.gate_after:
            self._wait_for_gate(self.gate_file)
        if self.delay:
            time.sleep(self.delay)
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        codes: list[int] = []
        counts: list[int] = []
        tokens = 0
        get, feature = self._features.get, self._feature
        for i, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            tokens += len(words)
            feats = words + [f"{a} {b}" for a, b in pairwise(words)]
            found = [get(f) or feature(f) for f in feats]
            codes.extend(found)
            counts.append(len(found))
            if not words:
                out[i, 0] = 1.0
        if codes:
            arr = np.asarray(codes, dtype=np.int64)
            rows = np.repeat(np.arange(len(texts)), counts)
            np.add.at(out, (rows, np.abs(arr) - 1), np.sign(arr).astype(np.float32))
        self.calls.append(len(texts))
        self._record(tokens, len(texts))
        return normalize_rows(out)

    def _note_call(self, n: int) -> int:
        """Append this call to ``calls_file`` (one line, atomically: texts, process id, a token); its
        0-based place in the file."""
        assert self.calls_file is not None
        token = uuid.uuid4().hex
        with open(self.calls_file, "a", encoding="utf-8") as fh:
            fh.write(f"{n} {os.getpid()} {token}\n")
        with open(self.calls_file, encoding="utf-8") as fh:
            return next(i for i, line in enumerate(fh) if line.rstrip("\n").endswith(token))

    def _wait_for_gate(self, gate: str) -> None:
        deadline = time.monotonic() + self.gate_timeout
        while not os.path.exists(gate):
            if time.monotonic() > deadline:
                raise EmbeddingError(f"hashing embedder: {gate} was not created within {self.gate_timeout:g} s "
                                     "(gate_file holds each embed call until the file exists)")
            time.sleep(0.01)

    def _feature(self, feat: str) -> int:
        """A feature's bucket + 1, negative for a negative sign; cached, as most words recur."""
        h = int.from_bytes(hashlib.blake2b(feat.encode(), digest_size=8).digest(), "little")
        code = (h % self._dimension + 1) * (1 if (h >> 63) & 1 else -1)
        if len(self._features) > 2_000_000:
            self._features.clear()
        self._features[feat] = code
        return code
