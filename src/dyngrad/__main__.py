"""``python -m dyngrad ...`` runs the command line (see dyngrad.cli)."""

import sys

from .cli import main

if __name__ == "__main__":  # importing the module (the docs build inspects it) runs nothing
    sys.exit(main())
