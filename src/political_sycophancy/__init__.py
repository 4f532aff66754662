"""political-sycophancy: audit the political bias of language models across the people who might be asking."""

from .conditions import Condition, resolve_conditions
from .errors import InputError
from .items import Item, load_instrument, load_items, select_pool
from .tasks import audit, audit_grid, audit_tasks

__all__ = [
    "Condition",
    "InputError",
    "Item",
    "audit",
    "audit_grid",
    "audit_tasks",
    "load_instrument",
    "load_items",
    "resolve_conditions",
    "select_pool",
]
__version__ = "0.1.0"
