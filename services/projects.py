"""The project a service works on: an open `Project` (the admin page) or its folder (the CLI).

The CLI does not open the store itself (#27): it passes the folder it was given and the
service opens it here, first, so a folder that is not a project is the same one-line
error before any other check, as when the command opened it.
"""

from __future__ import annotations

from pathlib import Path

from campaign.project import Project, open_project

ProjectRef = Project | str | Path


def project_at(where: ProjectRef) -> Project:
    """`where` itself when it is an open project, else the project in that folder."""
    return where if isinstance(where, Project) else open_project(where)
