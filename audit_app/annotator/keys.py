"""Keyboard shortcuts.

Previous/Next/Save use Streamlit's native button shortcuts (Alt+P, Alt+N,
Alt+S). Streamlit has no shortcut for radio answers, so a small script listens
on the document and clicks the "yes"/"no" option of the condition the
annotator last touched (or the first unanswered one). Keys typed into a text
field are left alone.
"""

from __future__ import annotations

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
