"""Typed model names for IDE completion, generated from ``ragkit/models.yaml`` (as of 2026-08-21).

    from ragkit.models import OpenAI
    provider = OpenAIProvider(model=OpenAI.GPT_4O)

Do not edit: regenerate with ``python -m ragkit.model_info --write-constants`` (a test checks that
this file matches the registry). Prices and limits: ``ragkit models`` or ``ragkit.pricing.model_info``.
"""

from __future__ import annotations

from typing import Final


class OpenAI:
    """OpenAI models (chat and embedding)."""

    GPT_3_5_TURBO: Final = "gpt-3.5-turbo"
    GPT_4: Final = "gpt-4"
    GPT_4_TURBO: Final = "gpt-4-turbo"
    CHATGPT_4O_LATEST: Final = "chatgpt-4o-latest"
    GPT_4O: Final = "gpt-4o"
    GPT_4O_2024_05_13: Final = "gpt-4o-2024-05-13"
    GPT_4O_MINI: Final = "gpt-4o-mini"
    GPT_4_1: Final = "gpt-4.1"
    GPT_4_1_MINI: Final = "gpt-4.1-mini"
    GPT_4_1_NANO: Final = "gpt-4.1-nano"
    O1: Final = "o1"
    O1_MINI: Final = "o1-mini"
    O1_PRO: Final = "o1-pro"
    O3: Final = "o3"
    O3_MINI: Final = "o3-mini"
    O3_PRO: Final = "o3-pro"
    O4_MINI: Final = "o4-mini"
    O3_DEEP_RESEARCH: Final = "o3-deep-research"
    O4_MINI_DEEP_RESEARCH: Final = "o4-mini-deep-research"
    GPT_5: Final = "gpt-5"
    GPT_5_MINI: Final = "gpt-5-mini"
    GPT_5_NANO: Final = "gpt-5-nano"
    GPT_5_PRO: Final = "gpt-5-pro"
    GPT_5_CHAT_LATEST: Final = "gpt-5-chat-latest"
    GPT_5_CODEX: Final = "gpt-5-codex"
    GPT_5_1: Final = "gpt-5.1"
    GPT_5_1_CHAT_LATEST: Final = "gpt-5.1-chat-latest"
    GPT_5_1_CODEX: Final = "gpt-5.1-codex"
    GPT_5_1_CODEX_MAX: Final = "gpt-5.1-codex-max"
    GPT_5_1_CODEX_MINI: Final = "gpt-5.1-codex-mini"
    GPT_5_2: Final = "gpt-5.2"
    GPT_5_2_CHAT_LATEST: Final = "gpt-5.2-chat-latest"
    GPT_5_2_CODEX: Final = "gpt-5.2-codex"
    GPT_5_2_PRO: Final = "gpt-5.2-pro"
    GPT_5_3_CHAT_LATEST: Final = "gpt-5.3-chat-latest"
    GPT_5_3_CODEX: Final = "gpt-5.3-codex"
    GPT_5_4: Final = "gpt-5.4"
    GPT_5_4_MINI: Final = "gpt-5.4-mini"
    GPT_5_4_NANO: Final = "gpt-5.4-nano"
    GPT_5_4_PRO: Final = "gpt-5.4-pro"
    GPT_5_5: Final = "gpt-5.5"
    GPT_5_5_PRO: Final = "gpt-5.5-pro"
    TEXT_EMBEDDING_3_SMALL: Final = "text-embedding-3-small"
    TEXT_EMBEDDING_3_LARGE: Final = "text-embedding-3-large"
    TEXT_EMBEDDING_ADA_002: Final = "text-embedding-ada-002"


class Anthropic:
    """Anthropic models (chat)."""

    CLAUDE_3_HAIKU: Final = "claude-3-haiku"
    CLAUDE_3_OPUS: Final = "claude-3-opus"
    CLAUDE_3_5_HAIKU: Final = "claude-3-5-haiku"
    CLAUDE_3_5_SONNET: Final = "claude-3-5-sonnet"
    CLAUDE_3_7_SONNET: Final = "claude-3-7-sonnet"
    CLAUDE_SONNET_4_0: Final = "claude-sonnet-4-0"
    CLAUDE_OPUS_4_0: Final = "claude-opus-4-0"
    CLAUDE_OPUS_4_1: Final = "claude-opus-4-1"
    CLAUDE_SONNET_4_5: Final = "claude-sonnet-4-5"
    CLAUDE_HAIKU_4_5: Final = "claude-haiku-4-5"
    CLAUDE_OPUS_4_5: Final = "claude-opus-4-5"
    CLAUDE_OPUS_4_6: Final = "claude-opus-4-6"
    CLAUDE_SONNET_4_6: Final = "claude-sonnet-4-6"
    CLAUDE_OPUS_4_7: Final = "claude-opus-4-7"
    CLAUDE_OPUS_4_8: Final = "claude-opus-4-8"
    CLAUDE_SONNET_5: Final = "claude-sonnet-5"
    CLAUDE_FABLE_5: Final = "claude-fable-5"


class Gemini:
    """Gemini models (chat and embedding)."""

    GEMINI_1_5_PRO: Final = "gemini-1.5-pro"
    GEMINI_1_5_FLASH: Final = "gemini-1.5-flash"
    GEMINI_1_5_FLASH_8B: Final = "gemini-1.5-flash-8b"
    GEMINI_2_0_FLASH: Final = "gemini-2.0-flash"
    GEMINI_2_0_FLASH_LITE: Final = "gemini-2.0-flash-lite"
    GEMINI_2_5_PRO: Final = "gemini-2.5-pro"
    GEMINI_2_5_FLASH: Final = "gemini-2.5-flash"
    GEMINI_2_5_FLASH_LITE: Final = "gemini-2.5-flash-lite"
    GEMINI_3_PRO_PREVIEW: Final = "gemini-3-pro-preview"
    GEMINI_3_FLASH_PREVIEW: Final = "gemini-3-flash-preview"
    GEMINI_3_1_PRO_PREVIEW: Final = "gemini-3.1-pro-preview"
    GEMINI_3_1_FLASH_LITE: Final = "gemini-3.1-flash-lite"
    GEMINI_3_5_FLASH: Final = "gemini-3.5-flash"
    GEMINI_FLASH_LATEST: Final = "gemini-flash-latest"
    GEMINI_FLASH_LITE_LATEST: Final = "gemini-flash-lite-latest"
    GEMINI_EMBEDDING_001: Final = "gemini-embedding-001"


class Mistral:
    """Mistral models (chat and embedding)."""

    MISTRAL_LARGE_LATEST: Final = "mistral-large-latest"
    MISTRAL_LARGE_2411: Final = "mistral-large-2411"
    MISTRAL_MEDIUM_LATEST: Final = "mistral-medium-latest"
    MISTRAL_MEDIUM_2505: Final = "mistral-medium-2505"
    MISTRAL_MEDIUM_2604: Final = "mistral-medium-2604"
    MISTRAL_SMALL_LATEST: Final = "mistral-small-latest"
    MISTRAL_SMALL_2506: Final = "mistral-small-2506"
    MAGISTRAL_MEDIUM_LATEST: Final = "magistral-medium-latest"
    MAGISTRAL_SMALL: Final = "magistral-small"
    CODESTRAL_LATEST: Final = "codestral-latest"
    DEVSTRAL_MEDIUM_LATEST: Final = "devstral-medium-latest"
    MINISTRAL_8B_LATEST: Final = "ministral-8b-latest"
    MINISTRAL_3B_LATEST: Final = "ministral-3b-latest"
    PIXTRAL_LARGE_LATEST: Final = "pixtral-large-latest"
    PIXTRAL_12B: Final = "pixtral-12b"
    MISTRAL_NEMO: Final = "mistral-nemo"
    OPEN_MISTRAL_7B: Final = "open-mistral-7b"
    OPEN_MIXTRAL_8X7B: Final = "open-mixtral-8x7b"
    OPEN_MIXTRAL_8X22B: Final = "open-mixtral-8x22b"
    MISTRAL_EMBED: Final = "mistral-embed"
    CODESTRAL_EMBED: Final = "codestral-embed"


class Groq:
    """Groq models (chat)."""

    LLAMA_3_3_70B_VERSATILE: Final = "llama-3.3-70b-versatile"
    LLAMA_3_1_8B_INSTANT: Final = "llama-3.1-8b-instant"
    META_LLAMA_LLAMA_4_SCOUT_17B_16E_INSTRUCT: Final = "meta-llama/llama-4-scout-17b-16e-instruct"
    META_LLAMA_LLAMA_4_MAVERICK_17B_128E_INSTRUCT: Final = "meta-llama/llama-4-maverick-17b-128e-instruct"
    OPENAI_GPT_OSS_120B: Final = "openai/gpt-oss-120b"
    OPENAI_GPT_OSS_20B: Final = "openai/gpt-oss-20b"
    QWEN_QWEN3_32B: Final = "qwen/qwen3-32b"
    MOONSHOTAI_KIMI_K2_INSTRUCT_0905: Final = "moonshotai/kimi-k2-instruct-0905"
    LLAMA3_70B_8192: Final = "llama3-70b-8192"
    LLAMA3_8B_8192: Final = "llama3-8b-8192"


class DeepSeek:
    """DeepSeek models (chat)."""

    DEEPSEEK_CHAT: Final = "deepseek-chat"
    DEEPSEEK_REASONER: Final = "deepseek-reasoner"
    DEEPSEEK_V4_FLASH: Final = "deepseek-v4-flash"
    DEEPSEEK_V4_PRO: Final = "deepseek-v4-pro"


class XAI:
    """XAI models (chat)."""

    GROK_3: Final = "grok-3"
    GROK_3_MINI: Final = "grok-3-mini"
    GROK_4: Final = "grok-4"
    GROK_4_FAST_REASONING: Final = "grok-4-fast-reasoning"
    GROK_4_FAST_NON_REASONING: Final = "grok-4-fast-non-reasoning"
    GROK_4_1_FAST_REASONING: Final = "grok-4-1-fast-reasoning"
    GROK_4_1_FAST_NON_REASONING: Final = "grok-4-1-fast-non-reasoning"
    GROK_CODE_FAST_1: Final = "grok-code-fast-1"
    GROK_4_20_0309_REASONING: Final = "grok-4.20-0309-reasoning"
    GROK_4_20_0309_NON_REASONING: Final = "grok-4.20-0309-non-reasoning"
    GROK_4_3: Final = "grok-4.3"
    GROK_BUILD_0_1: Final = "grok-build-0.1"


class Cohere:
    """Cohere models (chat and embedding and rerank)."""

    COMMAND_R7B_12_2024: Final = "command-r7b-12-2024"
    COMMAND_R_08_2024: Final = "command-r-08-2024"
    COMMAND_R_PLUS_08_2024: Final = "command-r-plus-08-2024"
    COMMAND_A_03_2025: Final = "command-a-03-2025"
    COMMAND_A_REASONING_08_2025: Final = "command-a-reasoning-08-2025"
    COMMAND_A_VISION_07_2025: Final = "command-a-vision-07-2025"
    COMMAND_A_PLUS_05_2026: Final = "command-a-plus-05-2026"
    EMBED_V4_0: Final = "embed-v4.0"
    EMBED_ENGLISH_V3_0: Final = "embed-english-v3.0"
    EMBED_MULTILINGUAL_V3_0: Final = "embed-multilingual-v3.0"
    EMBED_ENGLISH_LIGHT_V3_0: Final = "embed-english-light-v3.0"
    EMBED_MULTILINGUAL_LIGHT_V3_0: Final = "embed-multilingual-light-v3.0"
    RERANK_V3_5: Final = "rerank-v3.5"
    RERANK_ENGLISH_V3_0: Final = "rerank-english-v3.0"
    RERANK_MULTILINGUAL_V3_0: Final = "rerank-multilingual-v3.0"


class Together:
    """Together models (chat)."""

    META_LLAMA_LLAMA_3_3_70B_INSTRUCT_TURBO: Final = "meta-llama/Llama-3.3-70B-Instruct-Turbo"
    META_LLAMA_META_LLAMA_3_8B_INSTRUCT_LITE: Final = "meta-llama/Meta-Llama-3-8B-Instruct-Lite"
    QWEN_QWEN2_5_7B_INSTRUCT_TURBO: Final = "Qwen/Qwen2.5-7B-Instruct-Turbo"
    QWEN_QWEN3_235B_A22B_INSTRUCT_2507_TPUT: Final = "Qwen/Qwen3-235B-A22B-Instruct-2507-tput"
    QWEN_QWEN3_5_397B_A17B: Final = "Qwen/Qwen3.5-397B-A17B"
    QWEN_QWEN3_5_9B: Final = "Qwen/Qwen3.5-9B"
    QWEN_QWEN3_6_PLUS: Final = "Qwen/Qwen3.6-Plus"
    DEEPSEEK_AI_DEEPSEEK_V4_PRO: Final = "deepseek-ai/DeepSeek-V4-Pro"
    GOOGLE_GEMMA_4_31B_IT: Final = "google/gemma-4-31B-it"
    MOONSHOTAI_KIMI_K2_6: Final = "moonshotai/Kimi-K2.6"
    OPENAI_GPT_OSS_120B: Final = "openai/gpt-oss-120b"
    OPENAI_GPT_OSS_20B: Final = "openai/gpt-oss-20b"
    ZAI_ORG_GLM_5_1: Final = "zai-org/GLM-5.1"
    MINIMAXAI_MINIMAX_M2_7: Final = "MiniMaxAI/MiniMax-M2.7"
    NVIDIA_NEMOTRON_3_ULTRA_550B_A55B: Final = "nvidia/nemotron-3-ultra-550b-a55b"


class OpenRouter:
    """OpenRouter models (chat)."""

    META_LLAMA_LLAMA_3_3_70B_INSTRUCT: Final = "meta-llama/llama-3.3-70b-instruct"
    META_LLAMA_LLAMA_3_1_8B_INSTRUCT: Final = "meta-llama/llama-3.1-8b-instruct"
    META_LLAMA_LLAMA_3_1_70B_INSTRUCT: Final = "meta-llama/llama-3.1-70b-instruct"
    META_LLAMA_LLAMA_4_MAVERICK: Final = "meta-llama/llama-4-maverick"
    META_LLAMA_LLAMA_4_SCOUT: Final = "meta-llama/llama-4-scout"
    DEEPSEEK_DEEPSEEK_CHAT: Final = "deepseek/deepseek-chat"
    DEEPSEEK_DEEPSEEK_CHAT_V3_1: Final = "deepseek/deepseek-chat-v3.1"
    DEEPSEEK_DEEPSEEK_R1_0528: Final = "deepseek/deepseek-r1-0528"
    DEEPSEEK_DEEPSEEK_V3_2: Final = "deepseek/deepseek-v3.2"
    DEEPSEEK_DEEPSEEK_V4_FLASH: Final = "deepseek/deepseek-v4-flash"
    QWEN_QWEN3_235B_A22B_2507: Final = "qwen/qwen3-235b-a22b-2507"
    QWEN_QWEN3_32B: Final = "qwen/qwen3-32b"
    QWEN_QWEN3_CODER: Final = "qwen/qwen3-coder"
    QWEN_QWEN3_30B_A3B_INSTRUCT_2507: Final = "qwen/qwen3-30b-a3b-instruct-2507"
    MISTRALAI_MISTRAL_SMALL_3_2_24B_INSTRUCT: Final = "mistralai/mistral-small-3.2-24b-instruct"
    MISTRALAI_MISTRAL_NEMO: Final = "mistralai/mistral-nemo"
    GOOGLE_GEMMA_3_27B_IT: Final = "google/gemma-3-27b-it"
    OPENAI_GPT_OSS_120B: Final = "openai/gpt-oss-120b"
    OPENAI_GPT_OSS_20B: Final = "openai/gpt-oss-20b"
    MOONSHOTAI_KIMI_K2_0905: Final = "moonshotai/kimi-k2-0905"
    MICROSOFT_PHI_4: Final = "microsoft/phi-4"
    NOUSRESEARCH_HERMES_4_70B: Final = "nousresearch/hermes-4-70b"


class Voyage:
    """Voyage models (embedding)."""

    VOYAGE_4_LARGE: Final = "voyage-4-large"
    VOYAGE_4: Final = "voyage-4"
    VOYAGE_4_LITE: Final = "voyage-4-lite"
    VOYAGE_3_5: Final = "voyage-3.5"
    VOYAGE_3_5_LITE: Final = "voyage-3.5-lite"
    VOYAGE_3_LARGE: Final = "voyage-3-large"
    VOYAGE_3: Final = "voyage-3"
    VOYAGE_3_LITE: Final = "voyage-3-lite"
    VOYAGE_CODE_3: Final = "voyage-code-3"
    VOYAGE_FINANCE_2: Final = "voyage-finance-2"
    VOYAGE_LAW_2: Final = "voyage-law-2"
    VOYAGE_MULTILINGUAL_2: Final = "voyage-multilingual-2"


class Ollama:
    """Ollama models (chat and embedding) (local: price 0 by design)."""

    LLAMA3_1: Final = "llama3.1"
    LLAMA3_2: Final = "llama3.2"
    LLAMA3_2_VISION: Final = "llama3.2-vision"
    LLAMA3_3: Final = "llama3.3"
    QWEN2_5: Final = "qwen2.5"
    QWEN2_5_CODER: Final = "qwen2.5-coder"
    QWEN3: Final = "qwen3"
    MISTRAL: Final = "mistral"
    MISTRAL_NEMO: Final = "mistral-nemo"
    MIXTRAL: Final = "mixtral"
    GEMMA2: Final = "gemma2"
    GEMMA3: Final = "gemma3"
    PHI4: Final = "phi4"
    DEEPSEEK_R1: Final = "deepseek-r1"
    GPT_OSS: Final = "gpt-oss"
    NOMIC_EMBED_TEXT: Final = "nomic-embed-text"
    MXBAI_EMBED_LARGE: Final = "mxbai-embed-large"
    ALL_MINILM: Final = "all-minilm"
    BGE_M3: Final = "bge-m3"


class VLLM:
    """VLLM models (chat) (local: price 0 by design)."""

    META_LLAMA_LLAMA_3_1_8B_INSTRUCT: Final = "meta-llama/Llama-3.1-8B-Instruct"
    META_LLAMA_LLAMA_3_3_70B_INSTRUCT: Final = "meta-llama/Llama-3.3-70B-Instruct"
    QWEN_QWEN2_5_7B_INSTRUCT: Final = "Qwen/Qwen2.5-7B-Instruct"
    QWEN_QWEN3_8B: Final = "Qwen/Qwen3-8B"
    MISTRALAI_MISTRAL_7B_INSTRUCT_V0_3: Final = "mistralai/Mistral-7B-Instruct-v0.3"
    GOOGLE_GEMMA_3_27B_IT: Final = "google/gemma-3-27b-it"
    OPENAI_GPT_OSS_20B: Final = "openai/gpt-oss-20b"


class Local:
    """Local models (chat and embedding) (local: price 0 by design)."""

    LOCAL_EXTRACTIVE: Final = "local-extractive"
    SCRIPTED: Final = "scripted"
    ECHO: Final = "echo"
    ALL_MINILM_L6_V2: Final = "all-MiniLM-L6-v2"
    HASHING: Final = "hashing"


__all__ = ["Anthropic", "Cohere", "DeepSeek", "Gemini", "Groq", "Local", "Mistral", "Ollama", "OpenAI", "OpenRouter", "Together", "VLLM", "Voyage", "XAI"]
