"""Which provider and model may be shown images, decided before any request leaves.

The model registry (``ragkit/models.yaml``) says per model whether its API takes image input
(``vision``). A request whose messages carry images (:class:`ragkit.messages.Image`) to a model
the registry says cannot see them is refused with :class:`VisionError` naming the model and the
fix, before any call; a model the registry does not know is let through (a self-hosted model may
well see), and its cost is unpriced anyway. A provider class may state ``vision = False`` itself.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from ragkit.messages import Message, count_images
from ragkit.providers.params import ParamError

log = logging.getLogger(__name__)


class VisionError(ParamError):
    """Images sent to a provider or model that cannot take them (a 400 on the server)."""

    def __init__(self, message: str) -> None:
        super().__init__("images", message)


def sees_images(provider: Any) -> bool | None:
    """True/False when the provider class or the registry says whether ``provider.model`` takes
    images; None when nothing says."""
    stated = getattr(provider, "vision", None)
    if stated is not None:
        return bool(stated)
    from ragkit import pricing

    info = pricing.model_info(str(getattr(provider, "model", "") or ""), getattr(provider, "name", None))
    return None if info is None else info.vision


def require_vision(provider: Any, messages: Sequence[Message]) -> int:
    """The number of images in ``messages``; ``VisionError`` when there are some and ``provider``
    cannot take them."""
    images = count_images(messages)
    if not images or sees_images(provider) is not False:
        return images
    name, model = getattr(provider, "name", "?"), getattr(provider, "model", "?")
    raise VisionError(
        f"the '{name}' provider's model {model!r} does not take images (the model registry says vision: false), "
        f"and the request carries {images}; use a vision model (for example --provider openai --model gpt-4o-mini, "
        "--provider anthropic, or --provider gemini), or send the text alone")


__all__ = ["VisionError", "require_vision", "sees_images"]
