"""The judging screen's fixed parts: style sheet, HTML snippets, keyboard shortcuts.

Previous/Next/Save use Streamlit's native button shortcuts (Alt+P, Alt+N,
Alt+S). Streamlit has no shortcut for radio answers, so a small script listens
on the document and clicks the "yes"/"no" option of the condition the
annotator last touched (or the first unanswered one). Keys typed into a text
field are left alone.
"""

from __future__ import annotations

import html
from functools import lru_cache
from typing import Any

# Page texts sit in fixed-height boxes with `contain: strict` and `content-visibility: auto`:
# a change elsewhere on the screen never re-lays them out, and off-screen pages are not
# laid out or painted at all (an item can show 9 pages of ~3,000 characters per condition).
PAGE_CSS = """
<style>
.ev-page {height: 16rem; overflow-y: auto; border: 1px solid #ddd; padding: .5rem;
  font-family: Georgia, serif; font-size: .92rem; background: #fcfcfa; white-space: normal;
  box-sizing: border-box; contain: strict; content-visibility: auto;
  contain-intrinsic-size: auto 16rem}
.ev-page mark {background: #ffe066; padding: 0}
.ev-rubric {border-left: 4px solid #4c78a8; padding: .25rem .75rem; margin-bottom: .5rem}
.ev-rubric ul {margin: 0 0 .25rem 1rem}
</style>
"""

SHORTCUT_HELP: tuple[tuple[str, str], ...] = (
    ("Y", "answer yes (condition last touched, else the first unanswered)"),
    ("N", "answer no"),
    ("Alt+N", "next item"),
    ("Alt+P", "previous item"),
    ("Alt+S", "save now"),
)

_SCRIPT = """
<script>
(function () {
  const doc = document;
  if (doc.__evauditKeys) {
    doc.removeEventListener("keydown", doc.__evauditKeys, true);
    doc.removeEventListener("focusin", doc.__evauditFocus, true);
  }
  const condOf = (el) => el && el.closest ? el.closest("[class*='st-key-cond-']") : null;
  const focus = (e) => { const c = condOf(e.target); if (c) doc.__evauditCond = c; };
  const typing = (t) => {
    if (!t || !t.tagName) return false;
    const tag = t.tagName.toLowerCase();
    if (tag === "textarea" || t.isContentEditable) return true;
    return tag === "input" && !["radio", "checkbox", "button"].includes(t.type);
  };
  const target = () => {
    const last = doc.__evauditCond;
    if (last && last.isConnected && last.querySelector("[role='radiogroup']")) return last;
    for (const c of doc.querySelectorAll("[class*='st-key-cond-']")) {
      if (!c.querySelector("[role='radiogroup'] input:checked")) return c;
    }
    return null;
  };
  const keys = (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    const k = (e.key || "").toLowerCase();
    if (k !== "y" && k !== "n") return;
    const cond = target();
    if (!cond) return;
    const want = k === "y" ? "yes" : "no";
    for (const label of cond.querySelectorAll("[role='radiogroup'] label")) {
      if (label.innerText.trim() === want) {
        label.click();
        doc.__evauditCond = cond;
        e.preventDefault();
        return;
      }
    }
  };
  doc.__evauditKeys = keys;
  doc.__evauditFocus = focus;
  doc.addEventListener("keydown", keys, true);
  doc.addEventListener("focusin", focus, true);
})();
</script>
"""


def shortcut_script() -> str:
    return _SCRIPT


@lru_cache(maxsize=256)
def need_html(need: str, rule: str) -> str:
    return (
        f'<div class="ev-rubric"><b>Information need.</b> {_esc(need)}</div>'
        f'<div class="ev-rubric"><b>Rule.</b> {_esc(rule)}</div>'
    )


def rubric_html(cond: dict[str, Any]) -> str:  # small; rebuilt only on navigation
    def bullets(values: Any) -> str:
        return "".join(f"<li>{_esc(str(v))}</li>" for v in values or [])

    parts = [f"<div class='ev-rubric'><b>Requirement.</b> {_esc(str(cond.get('requirement')))}"]
    if cond.get("counts"):
        parts.append(f"<br><b>Counts:</b><ul>{bullets(cond['counts'])}</ul>")
    if cond.get("does_not_count"):
        parts.append(f"<b>Does not count:</b><ul>{bullets(cond['does_not_count'])}</ul>")
    if cond.get("note"):
        parts.append(f"<b>Note.</b> {_esc(str(cond['note']))}")
    return "".join(parts) + "</div>"


def _esc(text: str) -> str:
    return html.escape(text)


def md(text: str) -> str:
    """Escape Markdown control characters in packet text shown with st.markdown."""
    return "".join("\\" + ch if ch in "\\`*_{}[]()#+-.!|<>$~" else ch for ch in text)
