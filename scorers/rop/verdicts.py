"""Record verdicts and run statuses in the fixed orders of "Does the Selected Object Reach the Reader?", Tables 11 and 12."""

from __future__ import annotations

# Table 11: the first condition that applies assigns the record's final verdict.
RECORD_VERDICTS: tuple[str, ...] = (
    "DECLARATION_INVALID",
    "NOT_APPLICABLE",
    "SELECTOR_ERROR",
    "RESOLUTION_ERROR",
    "UNVERIFIABLE",
    "PASS",
    "FAIL",
)
DECLARATION_INVALID, NOT_APPLICABLE, SELECTOR_ERROR, RESOLUTION_ERROR = range(4)
UNVERIFIABLE, PASS, FAIL = range(4, 7)

# The histogram adds one bucket for expected records that were never observed.
MISSING = "MISSING"
HISTOGRAM_KEYS: tuple[str, ...] = (*RECORD_VERDICTS, MISSING)

# Table 12: the first condition that applies assigns the run status.
RUN_STATUSES: tuple[str, ...] = (
    "RUN_INVALID",
    "NOT_APPLICABLE",
    "RUN_FAIL",
    "RUN_UNVERIFIABLE",
    "RUN_PASS",
)

# Exit codes of `evaudit rop evaluate` (issue 7).
EXIT_CODES: dict[str, int] = {
    "RUN_PASS": 0,
    "NOT_APPLICABLE": 0,
    "RUN_FAIL": 1,
    "RUN_UNVERIFIABLE": 2,
    "RUN_INVALID": 3,
}

HARD_MODE = "hard"
