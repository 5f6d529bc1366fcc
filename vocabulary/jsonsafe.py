"""JSON-safe values for reports: what every `--json` output and `to_json()` may rely on."""

from __future__ import annotations

import math
from typing import Any


def json_safe(value: Any) -> Any:
    """Make numpy scalars, NaN and tuples JSON-safe (NaN and infinities become null)."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if hasattr(value, "item") and callable(value.item) and not isinstance(value, str | bytes):
        try:
            value = value.item()
        except (ValueError, TypeError):
            return value
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    return value
