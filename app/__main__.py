"""``python -m app``: the ``hexhaven`` command."""

import sys

from app.cli import main

sys.exit(main())
