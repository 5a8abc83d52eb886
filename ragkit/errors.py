"""The one error hierarchy of ragkit.

Every error says what was wrong, the offending value, and the fix. Only the CLI turns these into
exit codes; library code raises them and never calls ``sys.exit``.
"""

from __future__ import annotations


class RagkitError(Exception):
    """Root of every error ragkit raises on purpose."""

    exit_code: int = 1


class ConfigError(RagkitError):
    """A pipeline or settings file is invalid (names the file, the key path and the fix)."""

    exit_code = 2


class RegistryError(ConfigError):
    """An unknown or duplicate registry name."""


class LoaderError(RagkitError):
    """A file could not be read into documents; carries the path and the reason."""

    def __init__(self, message: str, *, path: str | None = None, reason: str | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.reason = reason or message


class EmbeddingError(RagkitError):
    """An embedder could not be loaded or failed to embed."""


class ModelNotFoundError(EmbeddingError, ConfigError):
    """The configured model is neither a local directory nor an installed model package: a
    configuration error (exit 2) whose message gives the pip package or asks for a local path."""


class StoreError(RagkitError):
    """A vector store operation failed or was asked for something it cannot do."""


class StoreDamagedError(StoreError):
    """A store's saved files are missing, truncated or inconsistent. ``ragkit index`` rebuilds the
    store of an index from its catalog and the embedding cache."""

    #: how the message of a damaged store ends (the fix)
    HINT = (
        "run `ragkit index` on the index's folders to rebuild it from the catalog and the "
        "embedding cache (nothing is re-embedded)"
    )


class IndexLockedError(RagkitError):
    """Another process holds the index's write lock."""

    exit_code = 3


class ProviderError(RagkitError):
    """An LLM provider failed (after retries) or is misconfigured."""


class ToolError(RagkitError):
    """A tool was declared wrongly, got bad arguments, or failed."""


class AgentError(RagkitError):
    """The agent loop could not run."""


class MissingDependencyError(RagkitError):
    """An optional extra is not installed; the message gives the pip command."""

    def __init__(self, package: str, extra: str, purpose: str = "") -> None:
        what = f" for {purpose}" if purpose else ""
        super().__init__(
            f"the optional package '{package}' is needed{what} but is not installed; "
            f"install it with: pip install 'ragkit[{extra}]'"
        )
        self.package = package
        self.extra = extra


__all__ = [
    "AgentError",
    "ConfigError",
    "EmbeddingError",
    "IndexLockedError",
    "LoaderError",
    "MissingDependencyError",
    "ModelNotFoundError",
    "ProviderError",
    "RagkitError",
    "RegistryError",
    "StoreDamagedError",
    "StoreError",
    "ToolError",
]
