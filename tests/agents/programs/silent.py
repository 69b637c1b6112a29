"""A program for the stdio bridge that reads everything and never answers."""

from __future__ import annotations

import sys

for _line in sys.stdin:
    pass
