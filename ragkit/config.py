"""Pipeline YAML -> typed, validated specs.

Every ``type:`` is a registry name; components keep their own options next to ``type`` (flat
YAML). Validation happens before anything runs, and every error names the file, the key path
(``splitter.chunk_size``), the bad value and the allowed values or a did-you-mean.
``${VAR}`` and ``${VAR:-default}`` are interpolated from the environment in every string.
"""

from __future__ import annotations

import inspect
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from ragkit import registry
from ragkit.errors import ConfigError, RegistryError
from ragkit.loaders.limits import DEFAULT_LIMITS, LoadLimits
from ragkit.loaders.ocr import OcrSettings
from ragkit.option_values import DRY_BUILD_SECTIONS, check_option_values
from ragkit.registry import Registry, did_you_mean
from ragkit.wiring import MIN_SCORE_RULE, PIPELINE_KEYS, check_min_score, retriever_needs, wired

_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}")


# --------------------------------------------------------------------------- the one default
# What a pipeline is when the YAML leaves a section out (and what `ragkit index` uses without
# --pipeline). pipelines/default.yaml spells out exactly these values (a test asserts it), and the
# the pipeline guide (docs/guides/pipelines.md) describes them.

#: where an index lives when neither --index nor a pipeline says (``$RAGKIT_INDEX`` overrides it)
DEFAULT_INDEX = Path(".ragkit/index")
#: files left out by default: dotfiles and dot-folders, and the sample corpus's question set
DEFAULT_EXCLUDE = ("**/.*", "questions.yaml")
DEFAULT_SPLITTER: dict[str, Any] = {
    "type": "markdown", "unit": "tokens", "chunk_size": 200, "chunk_overlap": 30, "context_header": False,
}
#: ONNX Runtime int8, recipe ``s8-rr-sqxl``: PyTorch fp32's retrieval quality (no
#: nDCG@10 loss on either shared dataset), the fastest recipe whose vectors are the same bits on
#: AVX2 and AVX-512 VNNI processors (docs/benchmarks/indexing.md). ``backend: onnx`` is fp32 (PyTorch's vectors), ``torch`` PyTorch.
DEFAULT_EMBEDDER: dict[str, Any] = {
    "type": "sentence-transformers", "model": "all-MiniLM-L6-v2", "batch_size": 64, "backend": "onnx-int8",
    "recipe": "s8-rr-sqxl",
}
DEFAULT_STORE: dict[str, Any] = {"type": "faiss", "index": "auto"}
#: the default retriever: hybrid, dense-first (the dense ranking, with a small boost for passages
#: holding the query's rare terms; docs/benchmarks/quality.md)
DEFAULT_RETRIEVER: dict[str, Any] = {
    "type": "hybrid", "fusion": "dense-first", "rare_df": 0.01, "boost": 0.1, "exact_boost": 0.5, "name_boost": 0.7,
    "lexical_rank": 2, "top_k": 5,
}


def default_index() -> Path:
    """Where an index lives when neither --index nor a pipeline says: ``$RAGKIT_INDEX`` when set,
    else ``.ragkit/index`` (pipelines/default.yaml spells the same: ``${RAGKIT_INDEX:-.ragkit/index}``)."""
    return Path(os.environ.get("RAGKIT_INDEX") or DEFAULT_INDEX)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ComponentSpec(BaseModel):
    """``{type: name, **options}``; options are checked against the component's signature."""

    model_config = ConfigDict(extra="allow", frozen=True)
    type: str

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class LimitsSpec(_Strict):
    """``sources.limits``: what loading one file, and one run, may cost (defaults: ``LoadLimits``;
    docs/guides/limits.md). A file over a limit is skipped with the key to raise."""

    max_text_per_file_mb: float = Field(default=DEFAULT_LIMITS.max_text_per_file_mb, gt=0)
    max_text_per_run_mb: float = Field(default=DEFAULT_LIMITS.max_text_per_run_mb, gt=0)
    max_unzipped_mb: float = Field(default=DEFAULT_LIMITS.max_unzipped_mb, gt=0)
    file_timeout_s: float = Field(default=DEFAULT_LIMITS.file_timeout_s, gt=0)
    max_memory_mb: float = Field(default=DEFAULT_LIMITS.max_memory_mb, ge=64)
    max_included_mb: float = Field(default=DEFAULT_LIMITS.max_included_mb, ge=0)

    def load_limits(self) -> LoadLimits:
        return LoadLimits(**self.model_dump())


class SourcesSpec(_Strict):
    paths: list[str] = Field(default_factory=list)
    include: list[str] = Field(default_factory=lambda: ["**/*"])
    exclude: list[str] = Field(default_factory=lambda: list(DEFAULT_EXCLUDE))
    respect_gitignore: bool = True
    max_file_size_mb: float = Field(default=50.0, gt=0)
    follow_symlinks: bool = True
    #: what loading a file (and a run) may cost: text, zip containers, time, memory
    limits: LimitsSpec = Field(default_factory=LimitsSpec)
    #: asset extensions (images, SVG, CSS, ...) indexed anyway: those mapped under ``loaders:``
    _asset_opt_ins: frozenset[str] = PrivateAttr(default=frozenset())
    #: the pipeline's ``ocr:``: images are read (not assets) while OCR is on
    _ocr: OcrSettings = PrivateAttr(default_factory=lambda: OcrSettings(mode="never"))

    @property
    def asset_opt_ins(self) -> frozenset[str]:
        return self._asset_opt_ins

    @property
    def ocr_images(self) -> bool:
        """Whether discovery passes images on to OCR (``ragkit.loaders.assets.ocr_image``)."""
        return self._ocr.enabled


class SplitterSpec(ComponentSpec):
    type: str = DEFAULT_SPLITTER["type"]
    chunk_size: int = Field(default=200, ge=1)
    chunk_overlap: int = Field(default=30, ge=0)
    unit: Literal["tokens", "chars"] = "tokens"
    #: prepend the document title and heading path to what is embedded and BM25-indexed
    context_header: bool = DEFAULT_SPLITTER["context_header"]


class EmbedderSpec(ComponentSpec):
    type: str = DEFAULT_EMBEDDER["type"]


class StoreSpec(ComponentSpec):
    type: str = DEFAULT_STORE["type"]


class RetrieverSpec(ComponentSpec):
    #: hybrid, dense-first (docs/benchmarks/quality.md); see DEFAULT_RETRIEVER
    type: str = DEFAULT_RETRIEVER["type"]
    top_k: int = Field(default=5, ge=1)
    #: hits scoring below it are dropped (in the units of this retriever's score)
    min_score: float | None = None

    @field_validator("min_score", mode="before")
    @classmethod
    def _min_score(cls, v: Any) -> float | None:
        try:
            return check_min_score(v)
        except ConfigError:
            raise ValueError(MIN_SCORE_RULE) from None


class LexicalSpec(_Strict):
    """The BM25 index kept beside the vectors. ``enabled: null`` = on when the retriever needs it.

    ``backend: postgres`` keeps it in PostgreSQL full-text search instead (``dsn``: the pgvector
    store's when unset; ``table``; ``language``: a text search configuration), so an index with a
    server store writes no local file (``ragkit.retrieval.pg_lexical``)."""

    enabled: bool | None = None
    backend: Literal["local", "postgres"] = "local"
    k1: float = Field(default=1.5, gt=0)
    b: float = Field(default=0.75, ge=0, le=1)
    stemmer: str | None = "english"
    stopwords: str | None = "en"
    dsn: str | None = None
    table: str = "ragkit_lexical"
    language: str = "english"


class RaySpec(_Strict):
    """Where and how the ``ray`` engine runs (``indexing.ray``)."""

    #: ``auto`` = the cluster in RAY_ADDRESS or running on this machine, else a new local one;
    #: ``host:port`` = a cluster's GCS address; ``ray://host:10001`` = Ray Client
    address: str = "auto"
    #: CPUs each embed actor reserves (and the torch threads it uses)
    num_cpus_per_worker: float = Field(default=1.0, gt=0)
    #: sources per map_batches batch (each batch is loaded, split and embedded by one actor)
    batch_size: int = Field(default=64, ge=1)
    #: embed actors in the pool; each loads the model once
    embed_actors: int = Field(default=1, ge=1)

    @field_validator("address")
    @classmethod
    def _address(cls, v: str) -> str:
        if v == "auto" or v.startswith("ray://") or re.fullmatch(r"[\w.\-]+:\d+", v):
            return v
        raise ValueError("must be 'auto', 'ray://HOST:PORT' (Ray Client) or 'HOST:PORT' (the cluster's GCS)")


class OcrSpec(_Strict):
    """``ocr:``: text from images and PDF pages without a usable text layer (docs/guides/ocr.md).
    ``ocr: auto`` alone sets the mode."""

    mode: Literal["auto", "always", "never"] = "auto"
    #: Tesseract language codes (each needs Debian's ``tesseract-ocr-<code>``)
    languages: list[str] = Field(default_factory=lambda: ["eng"], min_length=1)
    dpi: int = Field(default=300, ge=70, le=1200)
    page_timeout_s: float = Field(default=60.0, gt=0)
    #: an image with fewer letters and digits than this holds no text worth indexing; a PDF page
    #: with fewer beside an image or a page of drawing is a scan (OCR reads it)
    min_chars: int = Field(default=40, ge=0)

    @model_validator(mode="before")
    @classmethod
    def _mode_alone(cls, data: Any) -> Any:
        return {"mode": data} if isinstance(data, str) else data

    @field_validator("languages")
    @classmethod
    def _language_codes(cls, value: list[str]) -> list[str]:
        bad = [lang for lang in value if not re.fullmatch(r"[A-Za-z_]{2,16}", lang)]
        if bad:
            raise ValueError(f"not a Tesseract language code: {bad[0]!r} (e.g. eng, deu, fra, chi_sim)")
        return value

    def settings(self, cache_dir: Path | None = None) -> OcrSettings:
        return OcrSettings(mode=self.mode, languages=tuple(self.languages), dpi=self.dpi,
                           page_timeout_s=self.page_timeout_s, min_chars=self.min_chars, cache_dir=cache_dir)


class IndexingSpec(_Strict):
    #: chunks per embed/store/commit batch; a crash loses at most one batch of work
    flush_chunks: int = Field(default=4096, ge=1)
    #: where load -> split -> embed runs: in this process, or on a Ray cluster
    engine: Literal["local", "ray"] = "local"
    ray: RaySpec = Field(default_factory=RaySpec)


class AgentSpec(_Strict):
    """``agent:``: how ``RAGAgent`` and ``ragkit ask`` guard their runs (``ragkit.agent.values``)."""

    #: the offline guardrails (``default_guardrails()``): injection blocked, personal data redacted
    guardrails: bool = False
    #: a tool policy: ``{allow: [globs], review: [globs], deny: [globs], deny_when: [{tool, arg, pattern}]}``
    policy: dict[str, Any] | None = None


class PriceSpec(_Strict):
    """One entry of ``pricing:``: a model's price (USD per million tokens) for ragkit's cost reports,
    added to the model registry (``ragkit.pricing.register``) when the pipeline is used."""

    input: float = Field(ge=0)  # USD per million input (or embedded) tokens
    output: float | None = Field(default=None, ge=0)  # USD per million output tokens (chat models)
    cached_input: float | None = Field(default=None, ge=0)
    #: only when served by this provider (e.g. ``groq``); any provider when left out
    provider: str | None = None
    kind: Literal["chat", "embedding"] = "chat"
    context_window: int | None = Field(default=None, ge=1)
    max_output_tokens: int | None = Field(default=None, ge=1)
    dimension: int | None = Field(default=None, ge=1)
    aliases: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _chat_has_output(self) -> PriceSpec:
        if self.kind == "chat" and self.output is None:
            raise ValueError("a chat model needs an output price too (USD per million tokens), or set kind: embedding")
        return self


class PipelineSpec(_Strict):
    version: Literal[1] = 1
    name: str = "default"
    #: ``$RAGKIT_INDEX`` when set, else ``.ragkit/index``
    index: str = Field(default_factory=lambda: str(default_index()))
    sources: SourcesSpec = Field(default_factory=SourcesSpec)
    loaders: dict[str, str | ComponentSpec] = Field(default_factory=dict)
    splitter: SplitterSpec = Field(default_factory=lambda: SplitterSpec(**DEFAULT_SPLITTER))
    embedder: EmbedderSpec = Field(default_factory=lambda: EmbedderSpec(**DEFAULT_EMBEDDER))
    store: StoreSpec = Field(default_factory=lambda: StoreSpec(**DEFAULT_STORE))
    retriever: RetrieverSpec = Field(default_factory=lambda: RetrieverSpec(**DEFAULT_RETRIEVER))
    lexical: LexicalSpec = Field(default_factory=LexicalSpec)
    indexing: IndexingSpec = Field(default_factory=IndexingSpec)
    ocr: OcrSpec = Field(default_factory=OcrSpec)
    agent: AgentSpec = Field(default_factory=AgentSpec)
    #: prices of models the registry lacks (or prices you pay instead): ``{name: {input, output, ...}}``
    pricing: dict[str, PriceSpec] = Field(default_factory=dict)
    #: where the spec came from (for error messages); not part of the YAML
    origin: str = Field(default="<defaults>", exclude=True)
    #: the YAML as written, before ${VAR} interpolation (so secrets are never saved resolved)
    _raw: dict[str, Any] | None = PrivateAttr(default=None)
    # a spec changed by command-line overrides (``with_engine``) saves the pipeline it came from
    _saved_as: PipelineSpec | None = PrivateAttr(default=None)

    def model_post_init(self, context: Any, /) -> None:
        # an extension mapped to a loader is indexed even when it is an asset type (opt-in)
        self.sources._asset_opt_ins = frozenset(self.loader_overrides())
        self.sources._ocr = self.ocr.settings()

    def register_prices(self) -> None:
        """Add ``pricing:`` to the model registry (``ragkit.pricing.register``), so costs use them."""
        if self.pricing:
            from ragkit import pricing

            pricing.register_many({n: p.model_dump(exclude_none=True) for n, p in self.pricing.items()},
                                  origin=self.origin)

    def loader_overrides(self) -> dict[str, ComponentSpec]:
        out: dict[str, ComponentSpec] = {}
        for ext, val in self.loaders.items():
            out[ext if ext.startswith(".") else f".{ext}"] = (
                ComponentSpec(type=val) if isinstance(val, str) else val
            )
        return out

    @property
    def uses_lexical(self) -> bool:
        if self.lexical.enabled is not None:
            return self.lexical.enabled
        return "lexical" in retriever_needs({"type": self.retriever.type, **self.retriever.options})

    def settings_key(self, *sections: str) -> str:
        """The JSON of ``sections`` (what decides an index's chunks or vectors), for fingerprints.
        A splitter option at its off value that older versions did not have (``context_header:
        false``) is left out, so an index built before it existed keeps its fingerprint."""
        data = self.model_dump(mode="json", include=set(sections))
        if "splitter" in data and data["splitter"].get("context_header") is False:
            del data["splitter"]["context_header"]
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)  # as model_dump_json writes it

    def to_yaml_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude={"origin"})

    def to_saved_dict(self) -> dict[str, Any]:
        """What an index keeps: the full resolved pipeline (every default filled in), with the
        ``${VAR}`` references of the YAML as written kept unresolved (so keys and passwords read
        from the environment are never written to disk); a spec not read from YAML has its
        secret-looking values removed."""
        if self._saved_as is not None:
            return self._saved_as.to_saved_dict()
        full = self.to_yaml_dict()
        if self._raw is None:
            return _redact(full)  # type: ignore[no-any-return]
        return _keep_references(full, self._raw)  # type: ignore[no-any-return]

    def with_engine(self, engine: str | None = None, ray_address: str | None = None) -> PipelineSpec:
        """This spec with the indexing engine (and the Ray cluster address) set from the command
        line, validated like the YAML; the saved pipeline keeps the YAML as written."""
        data = self.indexing.model_dump()
        if engine is not None:
            data["engine"] = engine
        if ray_address is not None:
            data["ray"]["address"] = ray_address
        try:
            indexing = IndexingSpec.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(_format_validation(exc, "--ray-address").replace(": ray.", ": indexing.ray.")) from None
        if ray_address is not None and indexing.engine != "ray":
            raise ConfigError(
                f"--ray-address needs the ray engine: add --engine ray (this pipeline's indexing.engine is '{indexing.engine}')"
            )
        copy = self.model_copy(update={"indexing": indexing})
        copy._raw, copy._saved_as = self._raw, self._saved_as or self
        return copy

# --------------------------------------------------------------------------- interpolation


def interpolate(value: Any, *, path: str = "", origin: str = "") -> Any:
    """Replace ``${VAR}`` / ``${VAR:-default}`` in every string of a YAML tree."""
    if isinstance(value, str):
        def sub(m: re.Match[str]) -> str:
            name, has_default, default = m.group(1), m.group(2), m.group(3)
            if name in os.environ:
                return os.environ[name]
            if has_default is not None:
                return default or ""
            raise ConfigError(
                f"{origin}: {path or '<root>'}: environment variable ${{{name}}} is not set; "
                f"set it (export {name}=...) or give a default with ${{{name}:-value}}"
            )
        return _ENV.sub(sub, value)
    if isinstance(value, Mapping):
        return {k: interpolate(v, path=_join(path, str(k)), origin=origin) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, path=f"{path}[{i}]", origin=origin) for i, v in enumerate(value)]
    return value


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


# --------------------------------------------------------------------------- loading


def read_yaml_mapping(path: str | Path, *, kind: str, keys: str) -> dict[str, Any]:
    """The mapping in the YAML file ``path`` (a ``kind`` file: pipeline, policy, ...), or a
    ``ConfigError`` naming the file and the fix; ``keys`` says what the mapping should hold."""
    import yaml

    p = Path(path)
    if not p.is_file():
        what = "is a directory, not a YAML file" if p.is_dir() else f"no such file: {p.absolute()}"
        raise ConfigError(f"{kind} file not found: {p} ({what}); check the path and the file name")
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{p}: invalid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: a {kind} file must be a mapping of {keys} (got {type(data).__name__})")
    return data


def load_pipeline(
    path: str | Path | None = None, *, overrides: Mapping[str, Any] | None = None, saved: bool = False
) -> PipelineSpec:
    """Read, interpolate and validate a pipeline file (or the built-in defaults when None).

    ``saved``: the file is an index's ``pipeline.yaml``; one written before the index kept the full
    pipeline (some sections missing) gets the defaults of that time (``LEGACY_DEFAULTS``), which
    are what the index was built with."""

    data: Any = {}
    origin = "<defaults>"
    if path is not None:
        origin = str(Path(path))
        data = read_yaml_mapping(path, kind="pipeline", keys="keys")
    if saved and not set(PipelineSpec.model_fields) - {"origin"} <= set(data):
        data = _with_legacy_defaults(data)
    if saved:
        data = _with_legacy_embedder(data)
    raw = dict(data)
    data = interpolate(data, origin=origin)
    for key, val in (overrides or {}).items():
        data[key] = val
        raw[key] = val
    spec = parse_pipeline(data, origin=origin)
    spec._raw = raw
    return spec


_SECRET_KEYS = ("api_key", "password", "token", "secret")

#: the defaults before the one default: an index whose saved pipeline.yaml lacks a
#: section was built with these (store {type: faiss} then meant the FAISS default, HNSW)
LEGACY_DEFAULTS: dict[str, dict[str, Any]] = {
    "sources": {"exclude": []},
    "splitter": {"type": "recursive"},
    "embedder": {"type": "sentence-transformers"},
    "store": {"type": "faiss"},
    "retriever": {"type": "dense"},
}


def _with_legacy_defaults(data: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(data)
    for section, defaults in LEGACY_DEFAULTS.items():
        given = out.get(section)
        out[section] = {**defaults, **given} if isinstance(given, Mapping) else (given or dict(defaults))
    return out


#: embedder options an index saved before ragkit pinned them was built with when its
#: saved pipeline leaves them out: the defaults of that time (PyTorch; the int8 recipe per ISA class)
LEGACY_EMBEDDER: dict[str, tuple[tuple[str, Any, dict[str, Any]], ...]] = {
    "sentence-transformers": (("backend", None, {"backend": "torch"}), ("backend", "onnx-int8", {"recipe": "auto"})),
    "onnx": (("quantize", "int8", {"recipe": "auto"}),),
}


def _with_legacy_embedder(data: Mapping[str, Any]) -> dict[str, Any]:
    """A saved pipeline's embedder with the options it left out set as they were when it was saved
    (an index written since pins them itself, see ``Embedder.saved_options``)."""
    out = dict(data)
    emb = out.get("embedder")
    if not isinstance(emb, Mapping):
        return out
    emb = dict(emb)
    for key, value, pins in LEGACY_EMBEDDER.get(str(emb.get("type")), ()):
        if emb.get(key) == value:
            for name, pinned in pins.items():
                emb.setdefault(name, pinned)
    out["embedder"] = emb
    return out


def _keep_references(full: Any, raw: Any) -> Any:
    """``full`` with every string of ``raw`` that holds a ``${VAR}`` reference put back as written."""
    if isinstance(raw, str) and _ENV.search(raw):
        return raw
    if isinstance(full, dict) and isinstance(raw, Mapping):
        return {k: _keep_references(v, raw[k]) if k in raw else v for k, v in full.items()}
    if isinstance(full, list) and isinstance(raw, list) and len(full) == len(raw):
        return [_keep_references(f, r) for f, r in zip(full, raw, strict=True)]
    return full


def _redact(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: (None if any(s in str(k).lower() for s in _SECRET_KEYS) and v else _redact(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact(v) for v in value]
    if isinstance(value, str):
        return re.sub(r"(://[^:/@\s]+:)[^@\s]+@", r"\1***@", value)  # passwords in DSNs
    return value


def parse_pipeline(data: Mapping[str, Any], *, origin: str = "<dict>") -> PipelineSpec:
    try:
        spec = PipelineSpec.model_validate({**data, "origin": origin})
    except ValidationError as exc:
        raise ConfigError(_format_validation(exc, origin)) from None
    check_components(spec)
    return spec


def _format_validation(exc: ValidationError, origin: str) -> str:
    lines = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"] if not str(p).startswith("function-"))
        loc = re.sub(r"\.(str|ComponentSpec)$", "", loc)
        if err["type"] == "extra_forbidden":
            parent = loc.rsplit(".", 1)[0] if "." in loc else ""
            lines.append(f"{loc}: unknown key{_allowed_keys(parent, loc.rsplit('.', 1)[-1])}")
            continue
        got = err.get("input")
        extra = ""
        if err["type"] == "literal_error":
            extra = f" ({err.get('ctx', {}).get('expected', '')})"
        lines.append(f"{loc}: {err['msg']}{extra} (got {got!r})")
    head = f"{origin}: invalid pipeline"
    return head + (":\n  " + "\n  ".join(lines) if len(lines) > 1 else f": {lines[0]}")


def _allowed_keys(parent: str, key: str) -> str:
    model: type[BaseModel] = PipelineSpec
    for part in [p for p in parent.split(".") if p]:
        field = model.model_fields.get(part)
        ann = getattr(field, "annotation", None)
        if not (isinstance(ann, type) and issubclass(ann, BaseModel)):
            return ""
        model = ann
    names = [n for n in model.model_fields if n != "origin"]
    return did_you_mean(key, names)


# --------------------------------------------------------------------------- components

_SECTIONS: dict[str, tuple[Registry[type], str]] = {
    "splitter": (registry.splitters, "splitter"),
    "embedder": (registry.embedders, "embedder"),
    "store": (registry.stores, "store"),
    "retriever": (registry.retrievers, "retriever"),
}


def check_components(spec: PipelineSpec) -> None:
    """Resolve every ``type:`` and check each option against the component's signature, and its
    value against what the component accepts (:mod:`ragkit.option_values`).

    Importing the component's module is cheap (heavy libraries load on first use)."""
    for section, (reg, kind) in _SECTIONS.items():
        comp: ComponentSpec = getattr(spec, section)
        cls = resolve(reg, comp.type, f"{section}.type", spec.origin)
        opts = component_options(spec, section)
        check_options(cls, opts, section=section, kind=kind, name=comp.type, origin=spec.origin)
        if section == "retriever" and "base" in opts:
            check_retriever_spec(opts["base"], key="retriever.base", origin=spec.origin)
        check_option_values(
            cls, opts, section=section, name=comp.type, origin=spec.origin, dry_build=section in DRY_BUILD_SECTIONS
        )
    for ext, comp in spec.loader_overrides().items():
        cls = resolve(registry.loaders, comp.type, f"loaders.{ext}", spec.origin)
        check_options(cls, comp.options, section=f"loaders.{ext}", kind="loader", name=comp.type, origin=spec.origin)


def check_retriever_spec(conf: Any, *, key: str, origin: str) -> None:
    """Check a nested retriever spec (the ``base`` a rerank or mmr retriever wraps)."""
    if not isinstance(conf, Mapping) or not isinstance(conf.get("type"), str):
        raise ConfigError(f"{origin}: {key}: must be a retriever spec such as {{type: hybrid}} (got {conf!r})")
    cls = resolve(registry.retrievers, conf["type"], f"{key}.type", origin)
    opts = {k: v for k, v in conf.items() if k != "type" and k not in PIPELINE_KEYS["retriever"]}
    check_options(cls, opts, section=key, kind="retriever", name=conf["type"], origin=origin)
    try:
        check_min_score(conf.get("min_score"), f"{key}.min_score")
    except ConfigError as exc:
        raise ConfigError(f"{origin}: {exc}") from None
    if "base" in opts:
        check_retriever_spec(opts["base"], key=f"{key}.base", origin=origin)


def resolve(reg: Registry[type], name: str, key: str, origin: str) -> type:
    try:
        return reg.get(name)
    except RegistryError as exc:
        raise ConfigError(f"{origin}: {key}: {exc}") from None
    except ImportError as exc:
        raise ConfigError(f"{origin}: {key}: '{name}' cannot be loaded: {exc}") from None


def component_options(spec: PipelineSpec, section: str) -> dict[str, Any]:
    comp: ComponentSpec = getattr(spec, section)
    fields = {k: getattr(comp, k) for k in type(comp).model_fields if k != "type"}
    skip = PIPELINE_KEYS.get(section, frozenset())
    opts = {k: v for k, v in fields.items() if k not in skip}
    opts.update(comp.options)
    return opts


def resolved_options(spec: PipelineSpec, section: str) -> dict[str, Any]:
    """``section``'s type and options with the component's own defaults filled in, so two specs that
    build the same component compare equal (``{type: faiss}`` and ``{type: faiss, index: hnsw}``)."""
    comp: ComponentSpec = getattr(spec, section)
    reg = _SECTIONS[section][0]
    try:
        params = inspect.signature(reg.get(comp.type)).parameters.values()
    except Exception:  # noqa: BLE001 - an unknown type: compare as written
        params = []  # type: ignore[assignment]
    defaults = {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}
    return {"type": comp.type, **defaults, **component_options(spec, section)}


def check_options(cls: type, opts: Mapping[str, Any], *, section: str, kind: str, name: str, origin: str) -> None:
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):
        return
    params = sig.parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    allowed = [n for n, p in params.items() if p.kind is not inspect.Parameter.VAR_POSITIONAL and n not in wired(kind)]
    for key in opts:
        if key in wired(kind):
            raise ConfigError(f"{origin}: {section}.{key}: set by ragkit when it builds the {kind} (from the embedder "
                              f"and the index), not in the pipeline")
        if key not in params:
            raise ConfigError(
                f"{origin}: {section}.{key}: unknown option for {kind} '{name}'{did_you_mean(key, allowed)}"
            )


def build_component(reg: Registry[type], spec: PipelineSpec, section: str, **runtime: Any) -> Any:
    """Instantiate the component of ``section`` with its options plus runtime arguments."""
    comp: ComponentSpec = getattr(spec, section)
    cls = resolve(reg, comp.type, f"{section}.type", spec.origin)
    opts = {**component_options(spec, section), **runtime}
    try:
        return cls(**opts)
    except ConfigError as exc:
        raise ConfigError(f"{spec.origin}: {section}: {exc}") from None
    except TypeError as exc:
        raise ConfigError(f"{spec.origin}: {section}: invalid options for '{comp.type}': {exc}") from None
