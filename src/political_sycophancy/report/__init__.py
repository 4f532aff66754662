"""Analysis: Inspect eval logs -> tidy frame -> statistics, tables, figures and a report."""

# Modules that register report sections.
from ..audit import analysis as audit_sections  # noqa: F401,E402
from ..open_ended import analysis as bias  # noqa: F401,E402
from ..probes import analysis as probes  # noqa: F401,E402
from ..sway import analysis as sway  # noqa: F401,E402
