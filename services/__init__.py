"""Services: one module per use case (the audit chain, packet build, score, rop, orbit).

Each use case is one function that takes a `campaign.project.Project` or the project's
folder (`services.projects.project_at` opens it; or plain paths, where the command reads
files) and plain options and returns a typed report (a dataclass
with `to_json()` and `table()`, most with `rows()`). The CLI prints `to_json()` or
`table()`; the admin page shows `rows()`. Neither computes a figure.
"""
