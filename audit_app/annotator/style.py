"""The Streamlit page around the judging card: less chrome, so one item fits one screen.

At 1400x900 and 1280x720 the first screen must show the nav bar, the information
need, the current condition's requirement, its yes/no and the current page's text
and quote box (tests/test_app_keys.py measures it). The element that only carries
the card's code takes no space. Streamlit's default top padding and
header take a fifth of that height; this sheet gives it back.
"""

from __future__ import annotations

PAGE_CSS = """
<style>
[data-testid="stMainBlockContainer"], .block-container {padding-top: .6rem !important;
  padding-bottom: 1rem !important; max-width: 100% !important;}
[data-testid="stHeader"] {height: 0 !important; min-height: 0 !important; background: transparent;}
[data-testid="stToolbar"] {top: .1rem;}
.st-key-ann_card_code {display: none !important;}
</style>
"""
