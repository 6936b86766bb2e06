"""The teaching layer: checkers, exercises, widgets, plots, progress and class grading.

Notebooks import what they show from its modules (``mcpmini.course.widgets``, ``.plots``,
``.exercises``...); the runtime never imports this package.
"""

__all__: list[str] = []
