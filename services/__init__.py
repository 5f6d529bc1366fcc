"""Services: one module per use case of the audit chain.

Each use case is one function that takes a `campaign.project.Project` and plain options
and returns a typed report (a dataclass with `to_json()`, `rows()` and `table()`). The CLI
prints `to_json()` or `table()`; the admin page shows `rows()`. Neither computes a figure.
"""
