"""Inspect tasks of political-sycophancy."""

from .task import CONDITION_TASKS, audit, audit_tasks

__all__ = ["CONDITION_TASKS", "audit", "audit_tasks"]
