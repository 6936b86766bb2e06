"""Settings for the whole test run (tests, notebooks, exercises, solutions)."""

import os

# Notebooks run under nbval call check(); keep them out of the learner's real progress file.
# Kernels inherit this environment.
os.environ["MCPMINI_PROGRESS"] = "off"

# Hypothesis' per-example deadline (200 ms) is a timed assertion: on a loaded machine a correct
# test fails as "Flaky". Speed is measured in bench/; pytest-timeout bounds every test.
try:
    from hypothesis import settings
except ImportError:  # the notebooks' environment may lack the dev extra
    pass
else:
    settings.register_profile("mcpmini", deadline=None)
    settings.load_profile("mcpmini")
