"""Analysis: Inspect eval logs -> tidy frame -> statistics, tables, figures and a report.

The sections come from the measure modules listed in `report.sections`.
"""
