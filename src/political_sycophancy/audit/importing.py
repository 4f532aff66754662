"""The first seed's persona file imported as audit logs under the persona conditions P_ORD, P_STU, P_RET.

The first seed's persona file (`results_neutral_persona.csv`: persona_code, letter,
raw_response) as audit logs under the persona conditions P_ORD, P_STU, P_RET
(`logs.probe_importer` reads it). The file names models by `model_label` only; it becomes
the log's model name, so the persona table finds the N cells of a Phase 2 grid rebuilt from
`phase2_alignment_by_condition.csv`; its `persona_code` is the condition.
"""

from __future__ import annotations

from types import MappingProxyType

from ..shared.import_scoring import AUDIT, FileKind

FILE_KINDS = (
    FileKind(
        ("persona_code",),
        AUDIT,
        "neutral personas (audit under P_ORD, P_STU, P_RET)",
        MappingProxyType({"model_label": "model_id", "persona_code": "condition"}),
    ),
)
