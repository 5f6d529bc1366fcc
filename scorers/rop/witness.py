"""The per-record witness binding hash (issue 7; "Does the Selected Object Reach the Reader?", "Decode a bound witness")."""

from __future__ import annotations

import hashlib
import json
from typing import Any

WITNESS_PROFILE = "rop-witness-v1"
# With a declaration envelope the binding also covers the exact manifest (the paper's
# "declaration ID and exact manifest hash"): the envelope's canonical JSON.
WITNESS_PROFILE_V2 = "rop-witness-v2"


def manifest_sha256(envelope: Any) -> str:
    """SHA-256 of the envelope's canonical JSON (sorted keys, no spaces, UTF-8).

    The envelope names interface, component, mode and policy revision and holds no file
    hash, so records can bind it without records and declaration hashing each other."""
    text = json.dumps(envelope, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def binding_hash(
    *,
    declaration_id: str,
    population_sha256: str,
    record_id: str,
    witness: str,
    decoded_selection: str,
    inverse_map_sha256: str,
    manifest_sha256: str | None = None,
) -> str:
    """SHA-256 (lowercase hex) of the binding fields joined by ``\\n`` (no final newline).

    v1 (no envelope): profile, declaration id, population hash, record id, witness,
    decoded selection, inverse-map hash. v2 (the declaration has an envelope): the
    manifest hash follows the declaration id. The declaration's own hash is left out so
    that records and declaration do not hash each other.
    """
    head = (
        (WITNESS_PROFILE, declaration_id)
        if manifest_sha256 is None
        else (WITNESS_PROFILE_V2, declaration_id, manifest_sha256)
    )
    text = "\n".join(
        (
            *head,
            population_sha256,
            record_id,
            witness,
            decoded_selection,
            inverse_map_sha256,
        )
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def population_sha256(ids: list[str], *, presorted: bool = False) -> str:
    """SHA-256 of the sorted ids joined by ``\\n`` with a final ``\\n`` (`presorted`: the
    caller has checked that `ids` are in order, so they are not sorted again)."""
    text = "\n".join(ids if presorted else sorted(ids)) + "\n" if ids else ""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
