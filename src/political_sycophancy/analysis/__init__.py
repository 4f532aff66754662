"""Analysis: Inspect eval logs -> tidy frame -> statistics, tables, figures and a report."""

# Modules that register report sections.
from . import audit_sections  # noqa: F401,E402
from . import bias  # noqa: F401,E402
from . import sway  # noqa: F401,E402
from . import probes  # noqa: F401,E402
