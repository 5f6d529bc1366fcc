"""The declaration envelope and its equality checks ("Does the Selected Object Reach the Reader?", App. A).

The paper's evaluator checks "the envelope, every SHA-256 hash, interface and component
equality, mode and policy revision" between the declaration envelope (the top-level
wrapper) and the instruction sheet it wraps. Here the envelope is the optional top-level
``envelope`` object of a declaration:

    "envelope": {"interface": {"name", "version"}, "component": "...", "mode": "hard",
                 "policy_revision": "r1"}

and the instruction sheet names its component in ``output.component`` (the component
whose returned ids are read). Each of the four must equal its instruction-sheet value
(``interface``, ``output.component``, ``mode``, ``policy.revision``); any difference makes
the declaration invalid (DECLARATION_INVALID, RUN_INVALID). A declaration without an
envelope keeps working: its envelope checks are reported as not applicable, never as
passed (`envelope_report`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CHECKS = ("interface", "component", "mode", "policy_revision")
NOT_APPLICABLE = "not_applicable"


def _sheet_value(raw: dict[str, Any], check: str) -> Any:
    if check == "interface":
        return raw.get("interface")
    if check == "component":
        out = raw.get("output")
        return out.get("component") if isinstance(out, dict) else None
    if check == "mode":
        return raw.get("mode")
    pol = raw.get("policy")
    return pol.get("revision") if isinstance(pol, dict) else None


_SHEET_FIELD = {
    "interface": "interface",
    "component": "output.component",
    "mode": "mode",
    "policy_revision": "policy.revision",
}


@dataclass(frozen=True)
class EnvelopeCheck:
    check: str
    status: str  # "equal" | "differs" | "not_applicable"
    envelope: Any
    sheet: Any

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class EnvelopeReport:
    present: bool
    checks: list[EnvelopeCheck]

    @property
    def status(self) -> str:
        if not self.present:
            return NOT_APPLICABLE
        return "valid" if all(c.status == "equal" for c in self.checks) else "invalid"

    def to_json(self) -> dict[str, Any]:
        return {
            "envelope": self.status,
            "present": self.present,
            "checks": [c.to_json() for c in self.checks],
        }


def envelope_report(raw: Any) -> EnvelopeReport:
    """Every envelope check of a (possibly invalid) parsed declaration."""
    env = raw.get("envelope") if isinstance(raw, dict) else None
    if not isinstance(env, dict):
        return EnvelopeReport(False, [EnvelopeCheck(c, NOT_APPLICABLE, None, None) for c in CHECKS])
    sheet = raw if isinstance(raw, dict) else {}
    checks = []
    for c in CHECKS:
        mine, theirs = env.get(c), _sheet_value(sheet, c)
        checks.append(EnvelopeCheck(c, "equal" if mine == theirs else "differs", mine, theirs))
    return EnvelopeReport(True, checks)


def envelope_problems(raw: Any, name: str) -> list[str]:
    """One problem per envelope value that differs from the instruction sheet's (none without
    an envelope). The schema has already checked the envelope's shape."""
    return [
        f"{name}: envelope.{c.check}: {c.envelope!r} differs from the instruction sheet's "
        f"{_SHEET_FIELD[c.check]} {c.sheet!r} (the envelope and the sheet it wraps must agree)"
        for c in envelope_report(raw).checks
        if c.status == "differs"
    ]
