"""Whole designs that combine measures, above the measures and below the command line.

Whole designs that combine measures (the first seed's paper design: the audit under six
asker conditions with its perception and expected-answer probes), above the measures and
below the command line.
"""
