"""Offline annotator packet: one self-contained HTML file."""
