"""The shared vocabulary: errors, text normalization, answer gates, progress callbacks.

The leaf layer: every package may import it, and it imports none of them
(docs/architecture.md).
"""
