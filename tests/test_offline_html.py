"""The offline HTML packet: build, leak check, and the real file in headless Chromium over file://."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from packet_builder.leaks import check_text
from services.offline import build_offline_html
from services.offline.build import blinded_copy
from tests.browser_fixture import ARGS, CHROMIUM
from vocabulary.errors import InputError
from vocabulary.gates import ConditionAnswer, QuoteRule, check_item

ANNOTATOR = "alice"
RULE_TEXT = (
    "Answer yes only when the displayed page text itself establishes the requirement. "
    "Related or suggestive text is not enough; do not use outside knowledge."
)
PAGE_A = (
    "Methods. The randomized trial enrolled 412 adult patients across nine sites in 2019.\n"
    "Participants received the \ufb01xed dose for twelve weeks."
)
PAGE_B = "Results were reported in the \u201cprimary outcome\u201d table; see the appendix for evi-\ndence."
PAGE_C = "An unrelated page about <b>budget</b> planning and </script> staff rotas."
PAGE_D = "Adverse events included nausea \u2014 reported by 31 patients \u2014 and headache."
PAGE_E = "The study was funded by a public grant and approved by the ethics board."


def make_packet() -> dict[str, Any]:
    """A small packet written by hand per docs/formats.md (no packet builder involved)."""

    def pages(item: str, cond: str, texts: list[str]) -> list[dict[str, str]]:
        return [
            {"page_key": f"{item}-{cond}-{chr(65 + i)}", "text": t} for i, t in enumerate(texts)
        ]

    def cond(item: str, key: str, name: str, texts: list[str]) -> dict[str, Any]:
        return {
            "condition_key": key,
            "name": name,
            "requirement": f"The document states the {name.lower()}.",
            "counts": [f"An explicit statement of the {name.lower()}."],
            "does_not_count": ["A citation of another study.", "Inference from the title."],
            "note": "Judge only the displayed text.",
            "pages": pages(item, key, texts),
        }

    return {
        "format": "evaudit-packet",
        "version": 1,
        "packet_id": "pilot",
        "kind": "initial",
        "rule": RULE_TEXT,
        "quote_rule": {"min_words": 3, "min_chars": 12},
        "items": [
            {
                "item_id": "J001",
                "information_need": "Randomized trials in adults that report enrolment and dose.",
                "conditions": [
                    cond("J001", "C1", "Enrolment size", [PAGE_A, PAGE_B, PAGE_C]),
                    cond("J001", "C2", "Primary outcome", [PAGE_B, PAGE_C]),
                ],
            },
            {
                "item_id": "J002",
                "information_need": "Trials reporting adverse events and their funding source.",
                "conditions": [
                    cond("J002", "C1", "Adverse events", [PAGE_D, PAGE_C]),
                    cond("J002", "C2", "Funding", [PAGE_E, PAGE_A]),
                ],
            },
            {
                "item_id": "J003",
                "information_need": "Studies that describe the ethics approval.",
                "conditions": [cond("J003", "C1", "Ethics approval", [PAGE_E, PAGE_D])],
            },
        ],
    }


def make_key(packet_sha256: str) -> dict[str, Any]:
    """An admin key per docs/formats.md, with distinctive values to search the HTML for."""
    items = {}
    for n, item in enumerate(("J001", "J002", "J003")):
        items[item] = {
            "query_id": f"qsecret-{n}-7731",
            "doc_id": f"docsecret-{n}-4410",
            "file": f"hidden_report_{n}.pdf",
            "n": 2,
            "grade": 1,
            "label": "subset",
            "release": "rel-secret-2",
            "source": "crosspage",
            "status": None,
            "conditions": {
                "C1": {
                    "condition_id": f"condsecret-{n}-a",
                    "construction_pages": [3, 7],
                    "pages": {
                        f"{item}-C1-A": {
                            "page": 7,
                            "routes": {"bm25": 1, "dense": 2},
                            "fused_rank": 1,
                        }
                    },
                }
            },
        }
    return {
        "format": "evaudit-admin-key",
        "version": 1,
        "packet_id": "pilot",
        "packet_sha256": packet_sha256,
        "kind": "initial",
        "params": {"seed": 7, "salt": "saltsecret9f0e2b7c", "strata": ["release", "source"]},
        "sampling": {
            "candidates": {"qsecret-0-7731\tdocsecret-0-4410": "hashsecret1a2b3c4d"},
            "allocation": [],
            "selection_sha256": "selsecret5e6f7a8b",
        },
        "items": items,
    }


def packet_bytes(packet: dict[str, Any]) -> bytes:
    return (json.dumps(packet, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    packet = make_packet()
    data = packet_bytes(packet)
    sha = hashlib.sha256(data).hexdigest()
    root = tmp_path_factory.mktemp("offline")
    (root / "pilot.json").write_bytes(data)
    html = build_offline_html(packet, sha, ANNOTATOR)
    path = root / "pilot-alice.html"
    path.write_text(html, encoding="utf-8")
    return {"packet": packet, "sha": sha, "html": html, "path": path, "root": root}


# ---- build and leak check (no browser) ------------------------------------


def embedded_data(html: str) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" id="evaudit-data">(.*?)</script>', html, re.S)
    assert m
    return dict(json.loads(m.group(1)))


def test_html_embeds_the_packet_exactly(built: dict[str, Any]) -> None:
    data = embedded_data(built["html"])
    assert data == {"packet": built["packet"], "packet_sha256": built["sha"], "annotator": "alice"}
    # '</script>' in a page cannot end the data block early.
    assert built["html"].count("</script>") == 5


def test_html_is_self_contained(built: dict[str, Any]) -> None:
    html = built["html"]
    assert not re.search(r"""\b(?:src|href)\s*=\s*["']?(?!#)""", html, re.I)
    assert not re.search(r"https?://|//[a-z0-9.-]+\.[a-z]{2,}/", html, re.I)
    assert "@import" not in html and "url(" not in html
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', html)
    assert csp and "default-src 'none'" in csp.group(1) and "connect-src 'none'" in csp.group(1)
    assert "unsafe-inline" not in csp.group(1)


def test_no_admin_key_value_in_the_html(built: dict[str, Any]) -> None:
    html = built["html"]
    key = make_key(built["sha"])
    assert check_text(html, key).leaks == []
    low = html.lower()
    secrets = ["saltsecret9f0e2b7c", "hashsecret1a2b3c4d", "selsecret5e6f7a8b", "rel-secret-2"]
    for item in key["items"].values():
        secrets += [item["query_id"], item["doc_id"], item["file"], "hidden_report"]
        secrets += [c["condition_id"] for c in item["conditions"].values()]
    for value in secrets:
        assert value.lower() not in low, value
    # No admin-key field name anywhere in the embedded data.
    admin_fields = {
        "query_id",
        "doc_id",
        "grade",
        "label",
        "routes",
        "fused_rank",
        "construction_pages",
        "status",
        "release",
        "source",
        "condition_id",
        "page",
    }

    def keys(obj: Any) -> Iterator[str]:
        if isinstance(obj, dict):
            for k, v in obj.items():
                yield k
                yield from keys(v)
        elif isinstance(obj, list):
            for v in obj:
                yield from keys(v)

    assert not admin_fields & set(keys(embedded_data(html)))


def test_extra_fields_never_reach_the_file(built: dict[str, Any]) -> None:
    packet = make_packet()
    packet["items"][0]["query_id"] = "qsecret-0-7731"
    packet["items"][0]["conditions"][0]["pages"][0]["page"] = 7
    packet["items"][0]["conditions"][0]["grade"] = 2
    packet["admin"] = make_key(built["sha"])
    html = build_offline_html(packet, built["sha"], ANNOTATOR)
    assert "qsecret" not in html and "saltsecret" not in html
    assert embedded_data(html)["packet"] == make_packet()
    assert blinded_copy(packet) == make_packet()


def test_the_card_is_the_apps_card(built: dict[str, Any]) -> None:
    """The packet inlines the very files the Streamlit component mounts: one judging UI."""
    from audit_app.annotator import component
    from services.offline import build

    html = built["html"]
    shared = [component.STATIC / name for name in component.SCRIPTS]
    assert list(build.SCRIPTS[: len(shared)]) == shared
    for path in shared:
        assert f"<script>{path.read_text(encoding='utf-8')}</script>" in html, path.name
    style = re.search(r"<style>(.*?)</style>", html, re.S)
    assert style and style.group(1).startswith(component.card_css())
    # The CSP pins exactly these five inline blocks (four scripts, one style), by hash.
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', html)
    assert csp
    scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
    hashes = re.findall(r"'sha256-([A-Za-z0-9+/=]+)'", csp.group(1))
    assert len(scripts) == 4 and hashes == [
        build._csp_hash(x)[8:-1] for x in [*scripts, style.group(1)]
    ]


def test_build_is_deterministic(built: dict[str, Any]) -> None:
    assert build_offline_html(make_packet(), built["sha"], ANNOTATOR) == built["html"]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda p: p.update(format="other"), "not an evaudit packet"),
        (lambda p: p.update(items=[]), "the packet has no items"),
        (lambda p: p["items"][1].update(item_id="J001"), "duplicate item_id J001"),
        (lambda p: p["items"][0]["conditions"][0].update(pages=[]), "has no candidate pages"),
        (lambda p: p["items"][0]["conditions"][0]["pages"][0].update(text=5), "must be text"),
        (lambda p: p["items"][0]["conditions"][0].update(counts="x"), "list of texts"),
    ],
)
def test_bad_packets_are_refused(built: dict[str, Any], mutate: Any, message: str) -> None:
    packet = make_packet()
    mutate(packet)
    with pytest.raises(InputError, match=message):
        build_offline_html(packet, built["sha"], ANNOTATOR)


@pytest.mark.parametrize(
    ("sha", "annotator", "message"),
    [("abc", "alice", "not a SHA-256"), ("a" * 64, "", "empty"), ("a" * 64, " bob", "spaces")],
)
def test_bad_hash_or_annotator_refused(sha: str, annotator: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        build_offline_html(make_packet(), sha, annotator)


# ---- the file in a real browser --------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Debian's chromium is not installed at {CHROMIUM}")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


class Offline:
    """A browser context with the network blocked, and a record of every request."""

    def __init__(self, browser: Any, downloads: Path) -> None:
        self.context = browser.new_context(accept_downloads=True)
        self.blocked: list[str] = []
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.downloads = downloads
        self.context.route("**/*", self._route)

    def _route(self, route: Any) -> None:
        url = route.request.url
        if url.startswith(("file://", "blob:", "data:")):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()

    def open(self, path: Path) -> Any:
        page = self.context.new_page()
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", self._console)
        page.on("dialog", self._dialog)
        page.goto(path.as_uri())
        page.wait_for_selector("html[data-ready='1']")
        return page

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def assert_offline(self) -> None:
        assert self.dialogs == []
        assert self.blocked == []
        assert [u for u in self.requests if not u.startswith(("file://", "blob:", "data:"))] == []
        assert self.errors == []

    def close(self) -> None:
        self.context.close()


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as _expect

    return _expect(locator)


# The judging card's own selectors (services/card/card.js).


def condition(page: Any, ckey: str) -> None:
    """Make `ckey` the card's current condition (a click on its tab; nothing is saved)."""
    tab = page.locator(f".jc-tab[data-cond='{ckey}']")
    if tab.get_attribute("aria-selected") != "true":
        tab.click()
    expect(page.locator(f".jc-tab.is-current[data-cond='{ckey}']")).to_have_count(1)


def cond_of(key: str) -> str:
    return key.split("-")[1]


def messages(page: Any, ckey: str) -> list[str]:
    condition(page, ckey)
    return [t.strip() for t in page.locator("ul.jc-msgs li").all_inner_texts()]


def badge(page: Any, ckey: str) -> str:
    return str(page.locator(f".jc-tab[data-cond='{ckey}'] .jc-badge").inner_text())


def answer(page: Any, ckey: str, value: str) -> None:
    condition(page, ckey)
    page.locator(f".jc-ans[data-value='{value}']").click()


def answered(page: Any, ckey: str) -> str | None:
    condition(page, ckey)
    on = page.locator(".jc-ans[aria-checked='true']")
    return str(on.get_attribute("data-value")) if on.count() else None


def show_page(page: Any, key: str) -> None:
    """Make `key` the condition's shown page (a click on its page tab; nothing is saved)."""
    condition(page, cond_of(key))
    if page.locator(f".jc-page.is-current[data-page='{key}']").count() == 0:
        page.locator(f".jc-ptab[data-page='{key}']").click()
    expect(page.locator(f".jc-page.is-current[data-page='{key}']")).to_have_count(1)


def sel(page: Any, key: str) -> Any:
    show_page(page, key)
    return page.locator(f".jc-sel[data-page='{key}']")


def quote_box(page: Any, key: str) -> Any:
    show_page(page, key)
    return page.locator(f".jc-quote[data-page='{key}']")


def type_quote(page: Any, key: str, text: str) -> None:
    """Type a quote and keep it with Enter, as the card's shortcut list says."""
    box = quote_box(page, key)
    box.fill(text)
    box.press("Enter")


def select_page(page: Any, key: str, quote: str | None = None) -> None:
    sel(page, key).check()
    if quote is not None:
        type_quote(page, key, quote)


def item_id(page: Any) -> str:
    text = page.locator(".jc-need h2").inner_text()
    m = re.search(r"J\d+", text)
    assert m
    return m.group(0)


def progress(page: Any) -> str:
    return str(page.locator(".jc-progress-text").inner_text())


def status(page: Any) -> str:
    return str(page.locator(".jc-status").inner_text())


def storage_key(sha: str) -> str:
    return f"evaudit-offline:pilot:{sha}:{ANNOTATOR}"


def stored(page: Any, sha: str) -> dict[str, Any]:
    """The draft document in localStorage ({} when there is none)."""
    raw = page.evaluate("k => window.localStorage.getItem(k)", storage_key(sha))
    return dict(json.loads(raw)) if raw else {}


def reload(page: Any) -> None:
    """Reload and wait for the new document's ready flag (never the old document's)."""
    page.evaluate("() => { window.__beforeReload = true; }")
    page.reload()
    page.wait_for_function(
        "() => !window.__beforeReload && document.documentElement.dataset.ready === '1'"
    )


def screen_state(page: Any) -> dict[str, Any]:
    """What the card shows for the current item, condition by condition (tabs save nothing)."""
    keys = page.locator(".jc-tab").evaluate_all("ts => ts.map(t => t.dataset.cond)")
    current = page.locator(".jc-tab.is-current").get_attribute("data-cond")
    conds: dict[str, Any] = {}
    for ckey in keys:
        value = answered(page, ckey)
        pages = page.locator(".jc-sel").evaluate_all(
            "bs => bs.filter(b => b.checked).map(b => b.dataset.page)"
        )
        quotes = dict(
            page.locator(".jc-quote").evaluate_all(
                "qs => qs.filter(q => q.value !== '').map(q => [q.dataset.page, q.value])"
            )
        )
        conds[ckey] = {"answer": value, "pages": pages, "quotes": quotes}
    if current:
        condition(page, current)
    return {
        "conditions": conds,
        "unclear": page.locator(".jc-unclear").is_checked(),
        "comment": page.locator(".jc-comment").input_value(),
    }


def download_export(page: Any, dest: Path) -> dict[str, Any]:
    with page.expect_download() as info:
        page.locator("#btn-export").click()
    info.value.save_as(dest)
    return dict(json.loads(dest.read_text(encoding="utf-8")))


def python_verdict(packet: dict[str, Any], item_id: str, body: dict[str, Any]) -> dict[str, Any]:
    item = next(i for i in packet["items"] if i["item_id"] == item_id)
    pools = {
        c["condition_key"]: {p["page_key"]: p["text"] for p in c["pages"]}
        for c in item["conditions"]
    }
    answers = {k: ConditionAnswer.from_json(v) for k, v in body["conditions"].items()}
    return check_item(answers, pools, QuoteRule(**packet["quote_rule"]))


@pytest.mark.browser
def test_offline_end_to_end(browser: Any, built: dict[str, Any], tmp_path: Path) -> None:
    packet = built["packet"]
    net = Offline(browser, tmp_path)
    page = net.open(built["path"])

    # The card: need, rule, rubric, the current condition's pages, shortcuts, progress.
    assert item_id(page) == "J001"
    card = page.locator(".jc").text_content()
    for text in (
        packet["items"][0]["information_need"],
        RULE_TEXT,
        "Enrolment size",
        "The document states the enrolment size.",
        "An explicit statement of the enrolment size.",
        "A citation of another study.",
        "Judge only the displayed text.",
        "412 adult patients",
        "primary outcome",
        "</script> staff rotas",
        "Alt+N / Alt+P",
        "Esc",
    ):
        assert text in card, text
    assert page.locator("[data-role=rule]").text_content() == RULE_TEXT
    assert progress(page) == "0 / 3 items complete"
    assert page.locator(".jc-tab").count() == 2
    assert [badge(page, c) for c in ("C1", "C2")] == ["open", "open"]
    # Page text is shown as text, never as markup.
    assert page.locator(".jc-text *").count() == 0
    assert page.locator(".jc-text[data-page='J001-C1-C']").text_content() == PAGE_C

    # C1: yes with a valid quote (different case, straight quotes, ligature unfolded).
    answer(page, "C1", "yes")
    assert messages(page, "C1") == ["A 'yes' needs at least one selected page."]
    select_page(page, "J001-C1-A")
    assert messages(page, "C1") == ["Page J001-C1-A: add a verbatim quote from this page."]
    type_quote(page, "J001-C1-A", "trial")
    assert messages(page, "C1") == [
        "Page J001-C1-A: the quote is too short (at least 3 words and 12 characters)."
    ]
    type_quote(page, "J001-C1-A", "ENROLLED 412 ADULT PATIENTS")
    assert messages(page, "C1") == []
    mark = page.locator(".jc-page[data-page='J001-C1-A'] .jc-text mark")
    assert mark.inner_text() == "enrolled 412 adult patients"
    assert page.locator(".jc-page[data-page='J001-C1-A'] .jc-found").inner_text() == (
        "Quote matched on page A (highlighted)."
    )
    assert badge(page, "C1") == "passes (yes)"

    # C2: yes with a quote that is not on the page.
    answer(page, "C2", "yes")
    select_page(page, "J001-C2-A", "the secondary outcome table")
    assert messages(page, "C2") == [
        "Page J001-C2-A: the quote is not on this page (check it verbatim)."
    ]
    assert badge(page, "C2") == "needs attention"
    assert progress(page) == "0 / 3 items complete"
    assert status(page).startswith("Saved in this browser at ")

    # Next by keyboard (Alt+N), then J002: a 'no' with a page selected is refused.
    page.locator("#top").click()
    page.keyboard.press("Alt+n")
    assert item_id(page) == "J002"
    answer(page, "C1", "no")
    select_page(page, "J002-C1-A")
    assert messages(page, "C1") == ["A 'no' carries no selected page: clear the page selection."]
    page.locator(".jc-clear").click()
    assert messages(page, "C1") == [] and badge(page, "C1") == "open"
    assert answered(page, "C1") is None  # Clear empties the whole condition
    page.keyboard.press("n")  # N answers the current condition (C1)
    assert answered(page, "C1") == "no" and badge(page, "C1") == "passes (no)"
    # Y answers the condition whose tab was clicked last (C2).
    page.locator(".jc-tab[data-cond='C2']").click()
    page.keyboard.press("y")
    assert answered(page, "C2") == "yes"
    select_page(page, "J002-C2-A", "funded by a public grant")
    assert messages(page, "C2") == []
    assert progress(page) == "1 / 3 items complete"
    page.locator(".jc-unclear").check()
    page.locator(".jc-comment").fill("Does 'funding source' include in-kind support?")
    page.locator(".jc-comment").press("Escape")  # leaving the box keeps the comment

    # Previous is live on an incomplete item, clamped at the start.
    page.locator(".jc-prev").click()
    assert item_id(page) == "J001"
    page.locator(".jc-prev").click()
    assert item_id(page) == "J001"

    # Reload: every draft is back; the app resumes at the first incomplete item (J001).
    assert sorted(stored(page, built["sha"])["items"]) == ["J001", "J002"]
    reload(page)
    notice = page.locator("#notice").inner_text()
    assert "Resumed 2 item draft(s)" in notice, (notice, net.errors, stored(page, built["sha"]))
    assert item_id(page) == "J001"
    assert quote_box(page, "J001-C1-A").input_value() == "ENROLLED 412 ADULT PATIENTS"
    assert answered(page, "C2") == "yes"
    assert messages(page, "C2") == [
        "Page J001-C2-A: the quote is not on this page (check it verbatim)."
    ]
    assert progress(page) == "1 / 3 items complete"
    assert page.locator(".jc-goto option").all_inner_texts() == ["… J001", "✓ J002", "· J003"]
    page.locator(".jc-next").click()
    assert page.locator(".jc-unclear").is_checked()
    assert "in-kind" in page.locator(".jc-comment").input_value()

    # Export: the file is the docs/formats.md response export; every verdict matches the gates.
    first = download_export(page, tmp_path / "first.json")
    assert "not on that page" in page.locator("#export-status").inner_text()
    assert first["format"] == "evaudit-responses" and first["version"] == 1
    assert (first["packet_id"], first["packet_sha256"], first["annotator"]) == (
        "pilot",
        built["sha"],
        ANNOTATOR,
    )
    assert sorted(first["items"]) == ["J001", "J002"]
    for iid, item in first["items"].items():
        verdict = python_verdict(packet, iid, item)
        assert item["complete"] == all(not m for m in verdict.values()), iid
    assert python_verdict(packet, "J001", first["items"]["J001"])["C2"] == [
        "Page J001-C2-A: the quote is not on this page (check it verbatim)."
    ]
    assert first["items"]["J002"]["unclear"] is True

    # Typing a quote selects its page; unticking the page drops its quote.
    page.locator(".jc-goto").select_option("2")
    type_quote(page, "J003-C1-B", "nothing like this on the page")
    assert sel(page, "J003-C1-B").is_checked()
    answer(page, "C1", "yes")
    assert messages(page, "C1") == [
        "Page J003-C1-B: the quote is not on this page (check it verbatim)."
    ]
    sel(page, "J003-C1-B").uncheck()
    assert messages(page, "C1") == ["A 'yes' needs at least one selected page."]
    assert quote_box(page, "J003-C1-B").input_value() == ""
    assert stored(page, built["sha"])["items"]["J003"]["conditions"]["C1"]["quotes"] == {}

    # Fix the bad quote, answer J003, export again: everything complete.
    page.locator(".jc-goto").select_option("0")
    type_quote(page, "J001-C2-A", "the \u201cPRIMARY OUTCOME\u201d table")
    assert messages(page, "C2") == []
    page.keyboard.press("Alt+s")
    assert status(page).startswith("Saved in this browser at ")
    page.locator(".jc-goto").select_option("2")
    assert item_id(page) == "J003"
    select_page(page, "J003-C1-A", "approved by the ethics board")
    # A quote across a hyphenated line break in page B of J001-C1 is also accepted.
    page.locator(".jc-goto").select_option("0")
    select_page(page, "J001-C1-B", "see the appendix for evidence")
    assert messages(page, "C1") == []
    assert progress(page) == "3 / 3 items complete"
    final = download_export(page, tmp_path / "final.json")
    assert all(item["complete"] for item in final["items"].values())
    assert sorted(final["items"]) == ["J001", "J002", "J003"]
    for iid, item in final["items"].items():
        assert all(not m for m in python_verdict(packet, iid, item).values()), iid
    assert final["items"]["J001"]["conditions"]["C1"] == {
        "answer": "yes",
        "pages": ["J001-C1-A", "J001-C1-B"],
        "quotes": {
            "J001-C1-A": "ENROLLED 412 ADULT PATIENTS",
            "J001-C1-B": "see the appendix for evidence",
        },
    }
    assert final["items"]["J002"]["conditions"]["C1"] == {"answer": "no", "pages": [], "quotes": {}}
    assert final["items"]["J003"]["conditions"]["C1"]["quotes"] == {
        "J003-C1-A": "approved by the ethics board"
    }
    net.assert_offline()
    net.close()
    check_import_into_project(built, tmp_path / "first.json", tmp_path / "final.json", final)

    # Another machine (fresh browser storage): import the export and find every answer.
    other = Offline(browser, tmp_path)
    page2 = other.open(built["path"])
    assert progress(page2) == "0 / 3 items complete"
    page2.locator("#import-file").set_input_files(str(tmp_path / "final.json"))
    expect(page2.locator("#import-status")).to_contain_text("Imported 3 item(s)")
    assert progress(page2) == "3 / 3 items complete"
    again = download_export(page2, tmp_path / "again.json")
    assert again["items"] == final["items"]
    for iid in ("J001", "J002", "J003"):
        page2.locator(".jc-goto").select_option(str(int(iid[1:]) - 1))
        body = final["items"][iid]
        assert screen_state(page2) == {k: body[k] for k in ("conditions", "unclear", "comment")}
    other.assert_offline()
    other.close()


def check_import_into_project(
    built: dict[str, Any], with_bad_quote: Path, final_path: Path, final: dict[str, Any]
) -> None:
    """`evaudit responses import` refuses the draft export and takes the final one unchanged."""
    from audit_app.session import ItemState, load_packet, record
    from campaign import journal
    from campaign.init import init_project
    from services.annotators import add_annotator
    from services.responses import import_responses

    project, _ = init_project(built["root"] / f"project-{final_path.stem}", admin_password="pw")
    project.packet_path("pilot").write_bytes((built["root"] / "pilot.json").read_bytes())
    add_annotator(project, ANNOTATOR, ["pilot"])
    with pytest.raises(InputError) as err:
        import_responses(project, with_bad_quote)
    assert "item J001: condition C2: page J001-C2-A: the quote is not on this page" in str(
        err.value
    )
    result = import_responses(project, final_path)
    assert (result["imported"], result["complete"], result["total"]) == (3, 3, 3)
    lines = journal.read_journal(journal.journal_path(project.journal_dir("pilot"), ANNOTATOR))
    latest = journal.latest_by_item(lines.lines)
    packet = load_packet(project.packet_path("pilot"))
    for iid, body in final["items"].items():
        line = latest[iid]
        assert line["packet_sha256"] == built["sha"] and line["annotator"] == ANNOTATOR
        assert {k: line[k] for k in body} == body, iid
        # The same answers given in the app produce the same record.
        app_line = record(packet, ANNOTATOR, iid, ItemState.from_line(body))
        assert {k: app_line[k] for k in body} == body, iid


@pytest.mark.browser
def test_import_refuses_files_of_other_annotators_or_packets(
    browser: Any, built: dict[str, Any], tmp_path: Path
) -> None:
    net = Offline(browser, tmp_path)
    page = net.open(built["path"])
    base = {
        "format": "evaudit-responses",
        "version": 1,
        "packet_id": "pilot",
        "packet_sha256": built["sha"],
        "annotator": ANNOTATOR,
        "exported": "x",
        "items": {
            "J001": {
                "conditions": {"C1": {"answer": "no", "pages": [], "quotes": {}}},
                "unclear": False,
                "comment": "",
                "complete": False,
            }
        },
    }
    cases = [
        ({"annotator": "bob"}, "belongs to annotator bob"),
        ({"packet_sha256": "0" * 64}, "different version of this packet"),
        ({"packet_id": "other"}, "for packet other"),
        ({"format": "nope"}, "Not a responses file"),
    ]
    for i, (change, message) in enumerate(cases):
        path = tmp_path / f"bad{i}.json"
        path.write_text(json.dumps({**base, **change}), encoding="utf-8")
        page.locator("#import-file").set_input_files(str(path))
        expect(page.locator("#import-status")).to_contain_text(message)
    assert answered(page, "C1") is None and stored(page, built["sha"]) == {}
    net.assert_offline()
    net.close()


@pytest.mark.browser
def test_the_page_cannot_reach_the_network(
    browser: Any, built: dict[str, Any], tmp_path: Path
) -> None:
    net = Offline(browser, tmp_path)
    page = net.open(built["path"])
    outcome = page.evaluate(
        """async () => {
            try { await fetch("http://127.0.0.1:9/x"); return "fetched"; }
            catch (e) { return "refused"; }
        }"""
    )
    assert outcome == "refused"
    failed: list[tuple[str, str]] = []
    page.on("requestfailed", lambda r: failed.append((r.url, r.failure or "")))
    with page.expect_event("requestfailed"):
        page.evaluate("() => { const i = new Image(); i.src = 'http://127.0.0.1:9/p.png'; }")
    # The Content-Security-Policy stops both before anything reaches the network layer.
    assert net.blocked == []
    assert failed == [("http://127.0.0.1:9/p.png", "csp")]
    net.context.close()


# ---- untrusted text, keys, going back --------------------------------------

HOSTILE = (
    '<img src=x onerror="alert(1)"> <script>alert(2)</script> <b>bold tag</b> '
    "[click me](javascript:alert(3)) [site](http://evil.example/x) **strong** _em_ "
    "$x^2 + y$ :red[danger] :blue-background[blue] &amp; &lt;i&gt; <iframe srcdoc=z></iframe>"
)
HOSTILE_QUOTE = (
    "<b>bold tag</b> [click me](javascript:alert(3)) [site](http://evil.example/x) "
    "**strong** _em_ $x^2 + y$ :red[danger]"
)


def hostile_packet() -> dict[str, Any]:
    packet = make_packet()
    packet["rule"] = f"Rule {HOSTILE}"
    item = packet["items"][0]
    item["information_need"] = f"Need {HOSTILE}"
    c1 = item["conditions"][0]
    c1["name"] = f"Name {HOSTILE}"
    c1["requirement"] = f"Requirement {HOSTILE}"
    c1["counts"] = [f"Counts {HOSTILE}"]
    c1["does_not_count"] = [f"Not {HOSTILE}", "A citation of another study."]
    c1["note"] = f"Note {HOSTILE}"
    c1["pages"][0]["text"] = f"Page text {HOSTILE}\nThe trial enrolled 412 adult patients."
    return packet


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    packet = hostile_packet()
    sha = hashlib.sha256(packet_bytes(packet)).hexdigest()
    path = tmp_path_factory.mktemp("hostile") / "hostile.html"
    path.write_text(build_offline_html(packet, sha, ANNOTATOR), encoding="utf-8")
    return {"packet": packet, "sha": sha, "path": path}


# Elements that text could become if it were ever parsed as HTML or Markdown.
MADE_FROM_TEXT = "#item a, #item img, #item script, #item iframe, #item strong, #item em, #item i"


@pytest.mark.browser
def test_hostile_text_shows_literally(
    browser: Any, hostile: dict[str, Any], tmp_path: Path
) -> None:
    packet = hostile["packet"]
    item = packet["items"][0]
    c1 = item["conditions"][0]
    page_text = c1["pages"][0]["text"]
    net = Offline(browser, tmp_path)
    page = net.open(hostile["path"])
    page.locator(".jc-rule summary").click()
    for summary in (".jc-more summary", ".jc-shared summary"):  # as the item has them
        if page.locator(summary).count():
            page.locator(summary).click()

    def literal() -> None:
        assert page.locator("[data-role=need]").text_content() == item["information_need"]
        assert page.locator("[data-role=rule]").text_content() == packet["rule"]
        assert page.locator("[data-role=requirement]").text_content() == c1["requirement"]
        assert f"C1 · {c1['name']}" in page.locator(".jc-cond h3").text_content()
        bullets = page.locator(".jc-more li, .jc-shared li").all_text_contents()
        assert f"Counts {HOSTILE}" in bullets and f"Not {HOSTILE}" in bullets
        assert page.locator(".jc-cond [data-role=note]").text_content() == f"Note {HOSTILE}"
        text = page.locator(".jc-text[data-page='J001-C1-A']")
        assert text.text_content() == page_text
        assert page.locator(MADE_FROM_TEXT).count() == 0
        assert page.locator(".jc-text *:not(mark), .jc-text mark *").count() == 0
        # The visible text is the raw text, characters and all.
        assert HOSTILE in page.locator(".jc-text[data-page='J001-C1-A']").inner_text()
        assert HOSTILE in page.locator("[data-role=need]").inner_text()

    literal()
    # The matched-quote highlight: one <mark> over exactly the matched characters, in place.
    answer(page, "C1", "yes")
    type_quote(page, "J001-C1-A", HOSTILE_QUOTE)
    assert messages(page, "C1") == []
    marks = page.locator(".jc-text[data-page='J001-C1-A'] mark")
    assert marks.count() == 1 and marks.text_content() == HOSTILE_QUOTE
    before = page.locator(".jc-text[data-page='J001-C1-A']").evaluate(
        "t => t.firstChild.nodeType === 3 ? t.firstChild.data : null"
    )
    assert before == page_text[: page_text.index(HOSTILE_QUOTE)]
    literal()

    # An imported file is untrusted too: its comment and its refusal messages show literally.
    base = {
        "format": "evaudit-responses",
        "version": 1,
        "packet_id": "pilot",
        "packet_sha256": hostile["sha"],
        "annotator": ANNOTATOR,
        "exported": "x",
        "items": {
            "J002": {
                "conditions": {"C1": {"answer": "no", "pages": [], "quotes": {}}},
                "unclear": True,
                "comment": f"Comment {HOSTILE}",
                "complete": False,
            }
        },
    }
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**base, "annotator": HOSTILE}), encoding="utf-8")
    page.locator("#import-file").set_input_files(str(bad))
    expect(page.locator("#import-status")).to_contain_text("belongs to annotator")
    assert page.locator("#import-status").text_content() == (
        f"This file belongs to annotator {HOSTILE}, not {ANNOTATOR}."
    )
    good = tmp_path / "good.json"
    good.write_text(json.dumps(base), encoding="utf-8")
    page.locator("#import-file").set_input_files(str(good))
    expect(page.locator("#import-status")).to_contain_text("Imported 1 item(s)")
    page.locator(".jc-goto").select_option("1")
    assert page.locator(".jc-comment").input_value() == f"Comment {HOSTILE}"
    assert (
        page.locator(f"{MADE_FROM_TEXT}, #side *:is(a, img, iframe, strong, em, i, b)").count() == 0
    )
    assert page.locator("#top strong").all_text_contents() == ["pilot", ANNOTATOR]
    assert page.locator("script").count() == 5  # the packet's own blocks, nothing added
    net.assert_offline()  # no dialog, no request, no error
    net.close()


@pytest.mark.browser
def test_shortcuts_with_focus_anywhere(browser: Any, built: dict[str, Any], tmp_path: Path) -> None:
    """Y/N/J/K/Space/Q/Esc with focus in each kind of element; no shortcut types into a box."""
    net = Offline(browser, tmp_path)
    page = net.open(built["path"])
    sha = built["sha"]
    blank = {"answer": None, "pages": [], "quotes": {}}

    def c1() -> dict[str, Any]:
        items = stored(page, sha).get("items", {})
        return dict(items.get("J001", {}).get("conditions", {}).get("C1", blank))

    def quotes() -> dict[str, str]:
        boxes = page.locator(".jc-quote").evaluate_all(
            "qs => qs.map(q => [q.dataset.page, q.value])"
        )
        return {k: v for k, v in boxes if v}

    def current() -> str | None:
        box = page.locator(".jc-page.is-current")
        return str(box.get_attribute("data-page")) if box.count() else None

    def focused() -> str:
        return str(page.evaluate("() => document.activeElement.className"))

    def press(*keys: str) -> None:
        for key in keys:
            page.keyboard.press(key)

    A, B, C = "J001-C1-A", "J001-C1-B", "J001-C1-C"
    assert item_id(page) == "J001" and badge(page, "C1") == "open"

    # A checkbox: Space selects *its* page; Y / N answer; J / K move; Q opens the quote box.
    sel(page, B).focus()
    press(" ")
    assert c1() == {"answer": None, "pages": [B], "quotes": {}}
    assert page.locator(f".jc-sel[data-page='{B}']").is_checked()
    press(" ")
    assert c1()["pages"] == []
    press("y")
    assert c1()["answer"] == "yes"
    press("n")
    assert c1()["answer"] == "no"
    press("j")
    assert current() == C
    press("k")
    assert current() == B
    press("q")
    assert focused() == "jc-quote" and quotes() == {}  # no "q" in the box
    press("Escape")
    assert focused() != "jc-quote" and quotes() == {} and c1()["quotes"] == {}

    # A quote box: every letter is typing (nothing else happens); Esc leaves and keeps it.
    quote_box(page, B).click()
    press("y", "n", "j", "k", " ", "q")
    assert quote_box(page, B).input_value() == "ynjk q"
    assert c1() == {"answer": "no", "pages": [], "quotes": {}}
    assert current() == B and item_id(page) == "J001"
    press("Escape")
    assert focused() != "jc-quote"
    assert c1() == {"answer": "no", "pages": [B], "quotes": {B: "ynjk q"}}  # a quote selects
    press("y", "j", "k")
    assert c1()["answer"] == "yes" and quotes() == {B: "ynjk q"}
    press(" ")  # unticking the page drops its quote
    assert c1() == {"answer": "yes", "pages": [], "quotes": {}} and quotes() == {}
    press("q")
    page.keyboard.type('the "primary outcome" table')
    press("Enter")  # Enter keeps the quote and leaves the box
    assert focused() != "jc-quote"
    press("y", "n", "y", "q", "Escape")
    good = {"answer": "yes", "pages": [B], "quotes": {B: 'the "primary outcome" table'}}
    assert c1() == good and quotes() == good["quotes"]
    assert badge(page, "C1") == "passes (yes)"

    # A button: letters are shortcuts there too (the button is not pressed); Space presses it.
    for button in (".jc-next", ".jc-clear", ".jc-ans[data-value='no']", ".jc-prev"):
        page.locator(button).focus()
        press("y")
        assert c1() == good and item_id(page) == "J001", button
    page.locator(".jc-next").focus()
    press("j")
    assert current() == C
    page.locator(".jc-next").focus()
    press("q")
    assert page.evaluate("() => document.activeElement.dataset.page") == C
    assert quotes() == good["quotes"]
    press("Escape", "k")
    assert current() == B and item_id(page) == "J001" and c1() == good
    page.locator(".jc-clear").focus()
    press(" ")  # the focused control's own Space: Clear empties the condition
    assert c1() == blank and quotes() == {}

    # The go-to select: the keys do not change the item.
    page.locator(".jc-goto").focus()
    press("n")
    assert c1()["answer"] == "no"
    page.locator(".jc-goto").focus()
    press("k")
    assert current() == A
    press("j")
    assert current() == B and c1()["answer"] == "no"
    page.locator(".jc-goto").focus()
    press("q")
    assert focused() == "jc-quote" and quotes() == {}
    press("Escape")
    assert item_id(page) == "J001" and page.locator(".jc-goto").input_value() == "0"
    assert c1() == {"answer": "no", "pages": [], "quotes": {}}

    # The comment box: letters type; Esc leaves it and keeps the comment.
    page.locator(".jc-comment").click()
    press("y", " ", "n", "j", "k", "q")
    assert page.locator(".jc-comment").input_value() == "y njkq"
    press("Escape")
    assert focused() != "jc-comment"
    assert stored(page, sha)["items"]["J001"]["comment"] == "y njkq"
    assert c1() == {"answer": "no", "pages": [], "quotes": {}}

    # Alt+N / Alt+P from inside a quote box: the typed quote is kept, nothing is typed.
    press("y")
    sel(page, A).focus()
    press("q")
    page.keyboard.type("enrolled 412 adult patients")
    press("Alt+n")
    assert item_id(page) == "J002"
    press("Alt+p")
    assert item_id(page) == "J001"
    assert c1() == {"answer": "yes", "pages": [A], "quotes": {A: "enrolled 412 adult patients"}}
    assert screen_state(page) == {
        k: stored(page, sha)["items"]["J001"][k] for k in ("conditions", "unclear", "comment")
    }
    net.assert_offline()
    net.close()


@pytest.mark.browser
def test_going_back_shows_the_saved_draft(
    browser: Any, built: dict[str, Any], tmp_path: Path
) -> None:
    """Every way back to an item shows exactly its draft (and the export); moving writes nothing."""
    net = Offline(browser, tmp_path)
    page = net.open(built["path"])
    sha = built["sha"]
    fields = ("conditions", "unclear", "comment")

    # J001: C1 yes with two pages and quotes, C2 no.  J002: C1 no, C2 a page without a quote,
    # unclear with a comment.  J003 untouched.
    answer(page, "C1", "yes")
    select_page(page, "J001-C1-A", "enrolled 412 adult patients")
    select_page(page, "J001-C1-B", "see the appendix for evidence")
    answer(page, "C2", "no")
    page.locator(".jc-next").click()
    assert item_id(page) == "J002"
    answer(page, "C1", "no")
    select_page(page, "J002-C2-B")
    page.locator(".jc-unclear").check()
    page.locator(".jc-comment").fill("Is in-kind support funding?")
    page.locator(".jc-comment").press("Escape")
    export = download_export(page, tmp_path / "export.json")
    assert sorted(export["items"]) == ["J001", "J002"]
    raw = page.evaluate("k => window.localStorage.getItem(k)", storage_key(sha))

    blank = {"conditions": {}, "unclear": False, "comment": ""}

    def shows(iid: str) -> None:
        assert item_id(page) == iid
        draft = stored(page, sha)["items"].get(iid)
        screen = screen_state(page)
        if draft is None:
            pools = next(i for i in built["packet"]["items"] if i["item_id"] == iid)
            blank["conditions"] = {
                c["condition_key"]: {"answer": None, "pages": [], "quotes": {}}
                for c in pools["conditions"]
            }
            assert screen == blank and iid not in export["items"]
        else:
            assert screen == {k: draft[k] for k in fields}, iid
            assert screen == {k: export["items"][iid][k] for k in fields}, iid
        # Moving (and reading every tab) wrote nothing.
        assert page.evaluate("k => window.localStorage.getItem(k)", storage_key(sha)) == raw

    shows("J002")
    assert screen_state(page)["conditions"]["C2"] == {
        "answer": None,
        "pages": ["J002-C2-B"],
        "quotes": {},
    }
    page.locator(".jc-prev").click()
    shows("J001")
    page.locator(".jc-next").click()
    shows("J002")
    page.locator(".jc-next").click()
    shows("J003")
    page.locator(".jc-goto").select_option("0")
    shows("J001")
    page.locator(".jc-goto").select_option("1")
    shows("J002")
    page.locator("#top").click()
    page.keyboard.press("Alt+p")
    shows("J001")
    page.keyboard.press("Alt+n")
    shows("J002")
    page.locator("#btn-first-incomplete").click()
    shows("J002")  # J001 is complete, J002 is not
    reload(page)
    shows("J002")
    page.locator(".jc-prev").click()
    shows("J001")
    # One click after all that changes exactly what was clicked.
    before = stored(page, sha)["items"]["J001"]
    answer(page, "C2", "yes")
    after = stored(page, sha)["items"]["J001"]
    before["conditions"]["C2"]["answer"] = "yes"
    assert after == before
    net.assert_offline()
    net.close()


@pytest.mark.browser
def test_closing_the_page_keeps_the_box_being_typed(
    browser: Any, built: dict[str, Any], tmp_path: Path
) -> None:
    net = Offline(browser, tmp_path)
    page = net.open(built["path"])
    quote_box(page, "J001-C1-A").click()
    page.keyboard.type("enrolled 412 adult patients")
    assert stored(page, built["sha"]) == {}  # not left yet: not part of the answer yet
    page.close(run_before_unload=True)
    page = net.open(built["path"])
    assert stored(page, built["sha"])["items"]["J001"]["conditions"]["C1"] == {
        "answer": None,
        "pages": ["J001-C1-A"],
        "quotes": {"J001-C1-A": "enrolled 412 adult patients"},
    }
    assert quote_box(page, "J001-C1-A").input_value() == "enrolled 412 adult patients"
    net.assert_offline()
    net.close()
