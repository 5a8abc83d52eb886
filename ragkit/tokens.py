"""Token estimates where no tokenizer is at hand: the one place they are written.

- ``estimate_tokens``: about four characters per token, the usual rule of thumb for English. The
  agent's memory and budgets, and the offline ``local`` provider's usage and ``max_tokens`` cut,
  count with it.
- ``message_tokens``: one message's estimate: its text and tool calls, ``IMAGE_TOKENS_ESTIMATE``
  per image, plus a fixed overhead for the role and separators.
- ``upper_bound_tokens``: a conservative estimate for staying under a remote API's limits (the
  embedders' batches): one token per 3 ASCII characters, one per non-ASCII character (CJK scripts
  are about one token per character), never fewer than the words.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable

from ragkit.messages import Message

#: the rule of thumb of ``estimate_tokens``
CHARS_PER_TOKEN = 4
#: a message's tokens beyond its text (role, separators)
MESSAGE_OVERHEAD = 4
#: what one image is counted as in estimates (the vendors bill about 85 to 1,600 input tokens an image)
IMAGE_TOKENS_ESTIMATE = 1600


def estimate_tokens(text: str) -> int:
    """About four characters per token, the usual rule of thumb for English."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def message_text(message: Message) -> str:
    """What a message's token estimate counts: its content and its tool calls' names and arguments."""
    return message.content + "".join(c.name + json.dumps(c.arguments, default=str) for c in message.tool_calls)


def message_tokens(message: Message, count: Callable[[str], int] = estimate_tokens) -> int:
    """One message's estimate: ``count`` of its text, its images, plus ``MESSAGE_OVERHEAD``."""
    return count(message_text(message)) + IMAGE_TOKENS_ESTIMATE * len(message.images) + MESSAGE_OVERHEAD


def upper_bound_tokens(text: str) -> int:
    """A conservative token estimate for models whose tokenizer is not at hand (see the module)."""
    if not text:
        return 0
    ascii_chars = len(text.encode("ascii", "ignore"))
    estimate = math.ceil(ascii_chars / 3) + (len(text) - ascii_chars)
    return max(1, estimate, len(text.split()))


__all__ = ["CHARS_PER_TOKEN", "IMAGE_TOKENS_ESTIMATE", "MESSAGE_OVERHEAD", "estimate_tokens", "message_text", "message_tokens",
           "upper_bound_tokens"]
