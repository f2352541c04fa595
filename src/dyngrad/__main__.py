"""``python -m dyngrad ...`` runs the command line (see dyngrad.cli)."""

import sys

from .cli import main

sys.exit(main())
