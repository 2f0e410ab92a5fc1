"""``python -m kgcore``: see :mod:`kgcore.cli`."""

import sys

from kgcore.cli import main

if __name__ == "__main__":
    sys.exit(main())
