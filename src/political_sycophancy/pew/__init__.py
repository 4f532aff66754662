"""Pew instruments: ATP items with partisan benchmarks, and the first seed's items.

ATP items are built from Pew's `.sav` files (`sav`); the first seed's items are imported
from its replication package (`replication`).
"""

from .replication import canonical_item_id, import_replication

__all__ = ["canonical_item_id", "import_replication"]
