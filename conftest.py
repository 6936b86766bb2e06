"""Settings for the whole test run (tests, notebooks, exercises, solutions)."""

import os

# Notebooks run under nbval call check(); keep them out of the learner's real progress file.
# Kernels inherit this environment.
os.environ["MCPMINI_PROGRESS"] = "off"
