"""The per-record witness binding hash (issue 7; "Does the Selected Object Reach the Reader?", "Decode a bound witness")."""

from __future__ import annotations

import hashlib

WITNESS_PROFILE = "rop-witness-v1"


def binding_hash(
    *,
    declaration_id: str,
    population_sha256: str,
    record_id: str,
    witness: str,
    decoded_selection: str,
    inverse_map_sha256: str,
) -> str:
    """SHA-256 (lowercase hex) of the seven binding fields joined by ``\\n`` (no final newline).

    The declaration's own hash is left out so that records and declaration do
    not hash each other.
    """
    text = "\n".join(
        (
            WITNESS_PROFILE,
            declaration_id,
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
