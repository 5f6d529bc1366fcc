"""Decision logic: evidence gates, derived grades, the repair policy, final decisions, qrel revision.

Pure functions over typed records, arrays and DataFrames: no file, database or UI access.
"""
