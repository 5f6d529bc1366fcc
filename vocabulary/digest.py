"""The SHA-256 of a file, the one hash every manifest, check and fetch of the project names
(corpus manifests, downloads, reproduction manifests, finalize's inputs)."""

from __future__ import annotations

import hashlib
from pathlib import Path


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of the file's bytes, read in blocks (a corpus PDF need not fit in memory)."""
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()
