"""`ingest --mineru`: MinerU content lists (and middle.json) written by hand in MinerU's
real layout (<out>/<name>/<method>/<name>_content_list.json with text, title, table,
equation and image blocks, 0-based page_idx, pages with no block left out)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb

from tests.conftest import cli_json, make_pdf, run_cli

TABLE = (
    '<html><body><table><tr><td rowspan="2">Site</td><td>Flow</td></tr>'
    "<tr><td>Pine Ck &amp; Redhill</td></tr></table></body></html>"
)
BLOCKS: list[dict[str, Any]] = [
    {"type": "text", "text": "Flow duration curves ", "text_level": 1, "page_idx": 0},
    {"type": "text", "text": "Received 1 October 2003. ", "page_idx": 0},
    {
        "type": "image",
        "img_path": "images/a8ec.jpg",
        "img_caption": ["Fig. 1. Annual flow duration curves. "],
        "img_footnote": [],
        "page_idx": 1,
    },
    {"type": "text", "text": "1. Introduction ", "text_level": 2, "page_idx": 1},
    {
        "type": "equation",
        "img_path": "images/181e.jpg",
        "text": "$$\nQ _ { \\% } = f ( P )\n$$",
        "text_format": "latex",
        "page_idx": 1,
    },
    {"type": "image", "img_path": "images/no-caption.jpg", "img_caption": [], "page_idx": 3},
    {
        "type": "table",
        "img_path": "images/e3cb.jpg",
        "table_caption": ["Table 2 Significance "],
        "table_footnote": ["na denotes too few data points. "],
        "table_body": TABLE,
        "page_idx": 3,
    },
]
PAGES = [
    "Flow duration curves\nReceived 1 October 2003.",
    "Fig. 1. Annual flow duration curves.\n1. Introduction\n$$\nQ _ { \\% } = f ( P )\n$$",
    "",  # no block names page_idx 2
    # an image without caption gives no text; the table keeps caption, cells, footnote
    "Table 2 Significance\nSite | Flow\nPine Ck & Redhill\nna denotes too few data points.",
    "",  # the PDF's last page: no block
]


def _middle(pages: list[str]) -> dict[str, Any]:
    info = []
    for i, text in enumerate(pages):
        spans = [{"type": "text", "content": text, "bbox": [0, 0, 1, 1], "score": 1.0}]
        blocks = (
            [{"type": "text", "bbox": [0, 0, 1, 1], "lines": [{"spans": spans}]}] if text else []
        )
        info.append({"page_idx": i, "page_size": [612.0, 792.0], "para_blocks": blocks,
                     "discarded_blocks": [{"type": "footer", "lines": []}]})  # fmt: skip
    return {"pdf_info": info, "_backend": "pipeline", "_version_name": "2.1.0"}


def make_output(root: Path) -> Path:
    """docA: content list + origin PDF of 5 pages; docB: middle.json only (3 pages, the
    second empty); docC: content list + middle.json (expected pages from middle.json)."""
    a = root / "docA" / "auto"
    a.mkdir(parents=True)
    (a / "docA_content_list.json").write_text(json.dumps(BLOCKS, indent=4))
    make_pdf(a / "docA_origin.pdf", ["x"] * 5)
    b = root / "docB" / "vlm"
    b.mkdir(parents=True)
    (b / "docB_middle.json").write_text(json.dumps(_middle(["first page", "", "third page"])))
    c = root / "docC" / "auto"
    c.mkdir(parents=True)
    (c / "docC_content_list.json").write_text(
        json.dumps([{"type": "text", "text": "only page one", "page_idx": 0}])
    )
    (c / "docC_middle.json").write_text(json.dumps(_middle(["only page one", ""])))
    return root


def _rows(project: Path, sql: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(project / "audit.duckdb"), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_pages_in_reading_order(project: Path, tmp_path: Path) -> None:
    out = make_output(tmp_path / "mineru")
    rep = cli_json("ingest", project, "--mineru", out, "--source", "arxiv")
    assert rep["documents"] == 3 and rep["pages"] == 5 + 3 + 2
    texts = _rows(project, "SELECT page, text FROM pages WHERE doc_id = 'docA' ORDER BY page")
    assert [t for _p, t in texts] == PAGES
    assert _rows(project, "SELECT text FROM pages WHERE doc_id = 'docB' ORDER BY page") == [
        ("first page",),
        ("",),
        ("third page",),
    ]
    ext = _rows(project, "SELECT * FROM extraction ORDER BY doc_id")
    assert ext == [
        ("docA", "arxiv", 5, 3, "mineru origin.pdf"),
        ("docB", "arxiv", 3, 2, "mineru middle.json"),
        ("docC", "arxiv", 2, 1, "mineru middle.json"),
    ]
    assert rep["extraction"]["arxiv"]["pages_expected"] == 10
    assert rep["extraction"]["arxiv"]["pages_extracted"] == 6


def test_bad_page_idx_is_one_error_nothing_written(project: Path, tmp_path: Path) -> None:
    out = make_output(tmp_path / "mineru")
    path = out / "docA" / "auto" / "docA_content_list.json"
    bad = [*BLOCKS[:3], {**BLOCKS[3], "page_idx": "1"}, *BLOCKS[4:]]
    path.write_text(json.dumps(bad, indent=4))
    err = run_cli("ingest", project, "--mineru", out, expect=2).stderr
    starts = [i + 1 for i, ln in enumerate(json.dumps(bad, indent=4).splitlines()) if ln == "    {"]
    assert f"docA_content_list.json:{starts[3]}: block 4: 'page_idx'" in err
    assert len(err.strip().splitlines()) == 1
    path.write_text(json.dumps([*BLOCKS, {"type": "text", "text": "x", "page_idx": 7}]))
    err = run_cli("ingest", project, "--mineru", out, expect=2).stderr
    assert "names page_idx 7 but the PDF has 5 pages" in err
    assert _rows(project, "SELECT count(*) FROM documents") == [(0,)]
