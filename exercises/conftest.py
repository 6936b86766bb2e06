"""Notebooks here run under nbval; keep their check() calls out of the real progress file."""

import os

os.environ["MCPMINI_PROGRESS"] = "off"
