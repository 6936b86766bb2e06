"""What every figure of the course shares: the axes to draw on, with the Japanese font where
the learner reads Japanese.

Each track's figures follow one pattern: a function that computes the data (pure, tested in
``tests/``) and a ``plot_*`` function that draws it on a given or new axes (:func:`figure`)
and returns the figure. ``matplotlib`` is imported inside the drawers only, at a small dpi
so that executed notebooks stay small.
"""

from __future__ import annotations

from typing import Any

from .language import Lang, current

__all__ = ["figure"]


def figure(ax: Any, size: tuple[float, float], dpi: int) -> tuple[Any, Any]:
    """``(figure, axes)``: the given axes and their figure, or a new figure of ``size``.

    In the Japanese edition, importing ``matplotlib_fontja`` registers its bundled IPAex
    Gothic font and makes it the default family, so the Japanese titles and labels render the
    same on every machine; the English edition keeps matplotlib's own font.
    """
    import matplotlib.pyplot as plt

    if current() is Lang.JA:
        import matplotlib_fontja  # noqa: F401  (registers the Japanese font on import)

    if ax is None:
        return plt.subplots(figsize=size, dpi=dpi)
    return ax.figure, ax
