"""`evaudit admin password|metrics-token`: the project's admin credentials
(`campaign.init` writes them into project.json)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from campaign.init import new_metrics_token, set_admin_password
from campaign.project import PASSWORD_ENV, Project, as_project

__all__ = ["PASSWORD_ENV", "MetricsTokenReport", "change_admin_password", "metrics_token"]


def change_admin_password(directory: Project | Path, password: str) -> None:
    """Store a new admin password (checked for strength); open admin sessions end at their
    next page run."""
    set_admin_password(as_project(directory), password)


@dataclass(frozen=True)
class MetricsTokenReport:
    token: str

    def to_json(self) -> dict[str, str]:
        return {"metrics_token": self.token}

    def table(self) -> str:
        return f"metrics token (shown once): {self.token}"


def metrics_token(directory: Project | Path) -> MetricsTokenReport:
    """A new token for /_stcore/metrics (the old one stops working); shown only now."""
    return MetricsTokenReport(new_metrics_token(as_project(directory)))
