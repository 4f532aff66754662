"""`python -m political_sycophancy.cli`."""

import sys

from . import main

sys.exit(main())
