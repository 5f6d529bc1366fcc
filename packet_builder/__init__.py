"""Ingest the corpus, load the benchmark, sample, route, pool, blind and export packets."""
