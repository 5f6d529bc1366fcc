"""evidence-audit: find and repair wrong qrels with evidence.

This package holds the thin `evaudit` command line and the few pieces every
area shares (the user-facing error type, JSON/progress output helpers).
The library lives in `packet_builder`, `audit_app`, `scorers` and `policies`.
"""

__version__ = "0.1.0"
