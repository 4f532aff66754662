"""Inspect tasks of political-sycophancy."""

from .audit import CONDITION_TASKS, audit, audit_tasks

__all__ = ["CONDITION_TASKS", "audit", "audit_tasks"]
