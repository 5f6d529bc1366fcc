"""Admin overrides: validate a decision against the gates and log it; read the log as
`Override`s. The file itself (`decisions/overrides.jsonl`) is `campaign.overrides`.

An override is an evidence-aware admin decision of one condition (never a vote).
It passes the same gates as an annotator's answer (vocabulary.gates), and a
rejected one is reported in command-line terms and writes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from audit_chain.campaign_io import load_packet_info
from campaign.overrides import append_override, overrides_path, read_override_lines
from campaign.project import Project, now_iso, open_project
from policies.adjudication import Override
from vocabulary.errors import InputError, InputErrors
from vocabulary.gates import ConditionAnswer, PageProblem, QuoteRule, check_condition, quote_problem


def load_overrides(project: Project) -> list[Override]:
    """The logged decisions in file order (`campaign.overrides` reads the lines)."""
    out = []
    for lineno, obj in read_override_lines(project):
        try:
            out.append(
                Override(
                    packet_id=str(obj["packet_id"]),
                    item_id=str(obj["item_id"]),
                    condition_key=str(obj["condition_key"]),
                    answer=str(obj["answer"]),
                    reason=str(obj["reason"]),
                    pages=tuple(obj.get("pages") or ()),
                    quotes=dict(obj.get("quotes") or {}),
                    line=lineno,
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(
                f"bad override line ({exc})",
                file=overrides_path(project),
                line=lineno,
                hint="fix or remove the line",
            ) from exc
    return out


def override_problems(
    answer: str,
    pages: Sequence[str],
    quotes: Sequence[str],
    pool: Mapping[str, str],
    rule: QuoteRule,
) -> list[str]:
    """What is wrong with an override, in command-line terms (the app's gates say it in the
    browser's): the same checks as vocabulary.gates.check_condition, worded for --page/--quote."""

    if answer == "no":
        out = []
        if pages:
            out.append("a 'no' takes no --page (drop the --page options, or use --answer yes)")
        if quotes:
            out.append("a 'no' takes no --quote (drop the --quote options, or use --answer yes)")
        return out
    if not pages:
        return ["a 'yes' needs at least one --page KEY, each with its --quote TEXT"]
    if len(pages) != len(quotes):
        return [
            f"give one --quote per --page, in the same order ({len(pages)} --page, "
            f"{len(quotes)} --quote)"
        ]
    out = []
    if len(set(pages)) != len(pages):
        out.append("a --page is given twice")
    for key, quote in zip(pages, quotes, strict=True):
        why = quote_problem(key, quote, pool, rule)
        if why is not None:
            out.append(
                _FLAG_PROBLEMS[why].format(key=key, rule=rule, pages=", ".join(sorted(pool)))
            )
    return out


_FLAG_PROBLEMS: dict[PageProblem, str] = {
    "pool": "--page {key} is not in this condition's candidate pool (its pages: {pages})",
    "empty": "the --quote for --page {key} is empty",
    "short": "the --quote for --page {key} is too short (at least {rule.min_words} words "
    "and {rule.min_chars} characters)",
    "off-page": "the --quote for --page {key} is not on that page (copy it verbatim from "
    "the page text)",
}


def record_override(
    root: Path,
    packet_name: str,
    item_id: str,
    condition_key: str,
    answer: str,
    reason: str,
    pages: Sequence[str],
    quotes: Sequence[str],
) -> dict[str, Any]:
    """Validate an evidence-aware decision against the packet and append it (fsync'ed)."""
    project = open_project(root)
    packet = load_packet_info(project, packet_name)
    item = packet.item(item_id)
    if item is None:
        raise InputError(f"packet {packet_name!r} has no item {item_id}", hint="check the item id")
    cond = item.condition(condition_key)
    if cond is None:
        keys = ", ".join(c.key for c in item.conditions)
        raise InputError(
            f"item {item_id} shows no condition {condition_key}", hint=f"shown: {keys}"
        )
    if not reason.strip():
        raise InputError("--reason must say why (it is logged with the decision)")
    cli = override_problems(answer, pages, quotes, cond.pool, packet.rule)
    if cli:
        raise InputErrors([InputError(f"{item_id} {condition_key}: {p}") for p in cli])
    ans = ConditionAnswer(answer, tuple(pages), dict(zip(pages, quotes, strict=True)))
    problems = check_condition(ans, cond.pool, packet.rule)
    if problems:  # the gates themselves (same rule as the app); reached only if the above misses
        raise InputErrors([InputError(f"{item_id} {condition_key}: {p}") for p in problems])
    record = {
        "ts": now_iso(),
        "packet_id": packet_name,
        "item_id": item_id,
        "condition_key": condition_key,
        "answer": answer,
        "reason": reason.strip(),
        "pages": list(pages),
        "quotes": dict(zip(pages, quotes, strict=True)),
    }
    path = append_override(project, record)
    return {**record, "file": str(path)}
