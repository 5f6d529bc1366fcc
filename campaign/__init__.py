"""The campaign repository: the one owner of a project's files (project layout, store,
packets registry, admin keys, response journals, overrides). Packages above it read and
write campaign files only through these modules (docs/architecture.md)."""
