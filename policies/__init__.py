"""Decision logic: the repair policy, final decisions, qrel revision (gates and grades: vocabulary).

Pure functions over typed records, arrays and DataFrames: no file, database or UI access.
"""
