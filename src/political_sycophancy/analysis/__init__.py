"""Analysis: Inspect eval logs -> tidy frame -> statistics, tables, figures and a report."""
