"""Inspect tasks of political-sycophancy."""

from .audit import audit, audit_grid, audit_tasks

__all__ = ["audit", "audit_grid", "audit_tasks"]
