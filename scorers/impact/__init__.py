"""Qrel-revision impact for classic (BEIR/TREC) benchmarks, pure statistics.

`ordering` (system rankings: Kendall's tau, tau-AP, Spearman's rho, rank movement),
`paired` (randomization and t-tests over queries for many system pairs at once, Holm,
discriminative power), `bootstrap` (the paired bootstrap interval of each run's change),
`judged` (Judged@k), `influence` (what each changed label does alone) and `report` (the
typed report the service assembles from them). Inputs are plain arrays of per-query
values; nothing here reads a file.
"""
