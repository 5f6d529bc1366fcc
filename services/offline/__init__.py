"""Offline annotator packet: one self-contained HTML file (docs/offline_packet.md)."""

from services.offline.build import build_offline_html

__all__ = ["build_offline_html"]
