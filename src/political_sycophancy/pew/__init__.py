"""Pew instruments: ATP items with partisan benchmarks built from Pew's `.sav` files
(`sav`), and the first seed's items imported from its replication package (`replication`)."""

from .replication import canonical_item_id, import_replication

__all__ = ["canonical_item_id", "import_replication"]
