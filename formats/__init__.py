"""File formats: one reader (and writer) per kind of file a benchmark or campaign hands over:
qrels (TREC, JSON lines, BEIR TSV), runs, queries and topics, guidelines, BEIR and MinerU
corpora, ROP declarations and records, orbit tables and corpus manifests."""
