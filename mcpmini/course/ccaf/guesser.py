"""The test-wise guesser: a candidate who knows nothing of the subject and reads only cues.

Rules of this module: the guesser is a conditional logit — one weight per feature, an
option's score the weighted sum of its features, the chance of each option the softmax of
the scores inside its item — fitted by Newton's method with a small ridge penalty (numpy;
the model is twenty-odd numbers, so no solver library is needed). Its features are the
surface cues of :mod:`.cues`, read relative to the option's siblings: the cue minus the
item's mean, scaled by the bank's spread, and whether the option is highest, second, lowest
or second lowest on it; plus its position. For a multiple-response item each key counts as
one choice.

:func:`held_out` fits the weights on one half of the items (drawn with a seed) and sits the
other half as an exam: on each item it chooses the ``pick`` options it scores highest, and
the project's own scaled scoring (:func:`~.scoring.scaled_score`) grades the result. Both
halves are scored, for several seeds. The chance score is the expected scaled score of blind
guessing over the same items. A bank that leaks nothing keeps the held-out score within
:data:`GUESS_MARGIN` of chance.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from math import comb

import numpy as np

from ..language import Lang
from .bank import QuizItem
from .cues import CUES, _context, _idf, option_cues
from .scoring import MAX_SCORE, MIN_SCORE, scaled_score

__all__ = ["GUESS_MARGIN", "GuessRun", "chance_score", "features", "fit", "held_out"]

#: How far the guesser's mean held-out scaled score may rise above (or fall below) chance.
GUESS_MARGIN = 60.0
_RIDGE = 1.0
_POSITIONS = 6


def features(items: Sequence[QuizItem], lang: Lang) -> list[np.ndarray]:
    """One matrix per item: a row per option, a column per feature (see the module text)."""
    idf = _idf(_context(items, lang), lang)
    raw = [
        np.array([[read(c) for read in CUES.values()] for c in option_cues(it, lang, idf)])
        for it in items
    ]
    centred = [m - m.mean(axis=0) for m in raw]
    spread = np.concatenate(centred).std(axis=0)
    spread[spread == 0] = 1.0
    out = []
    for m, c in zip(raw, centred, strict=True):
        n = len(m)
        cols = [c / spread]
        for j in range(m.shape[1]):
            order = np.argsort(-m[:, j], kind="stable")
            values = m[:, j]
            top = values == values.max()
            bottom = values == values.min()
            second = np.zeros(n)
            second_low = np.zeros(n)
            second[order[1]] = 1.0 if values[order[1]] < values.max() else 0.0
            second_low[order[-2]] = 1.0 if values[order[-2]] > values.min() else 0.0
            cols.append(np.stack([top, bottom, second, second_low], axis=1).astype(float))
        position = np.zeros((n, _POSITIONS))
        position[np.arange(n), np.arange(n)] = 1.0
        cols.append(position)
        out.append(np.concatenate(cols, axis=1))
    return out


def _keys(item: QuizItem) -> np.ndarray:
    return np.array([o.id in item.correct for o in item.options], dtype=float)


def fit(xs: Sequence[np.ndarray], keys: Sequence[np.ndarray], steps: int = 25) -> np.ndarray:
    """The weights of the conditional logit over ``xs`` (one matrix per item) and ``keys``
    (1 for a key), by Newton's method with a ridge penalty."""
    w = np.zeros(xs[0].shape[1])
    for _ in range(steps):
        grad = -_RIDGE * w
        hess = -_RIDGE * np.eye(len(w))
        for x, y in zip(xs, keys, strict=True):
            s = x @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            k = y.sum()
            grad += x.T @ (y - k * p)
            hess -= k * (x.T @ (np.diag(p) - np.outer(p, p)) @ x)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-6:
            break
    return w


def chance_score(items: Sequence[QuizItem]) -> float:
    """The expected scaled score of guessing blind on ``items`` (one of the
    ``C(options, pick)`` sets, each as likely)."""
    p = sum(1 / comb(len(it.options), it.pick) for it in items) / len(items)
    return MIN_SCORE + (MAX_SCORE - MIN_SCORE) * p


@dataclass(frozen=True)
class GuessRun:
    """One held-out sitting of the guesser: the seed, which half it sat, and the result."""

    seed: int
    half: int
    items: int
    correct: int
    scaled: int
    chance: float


def held_out(
    items: Sequence[QuizItem], lang: Lang, seeds: Sequence[int] = range(5)
) -> list[GuessRun]:
    """For each seed, fit on one half of ``items`` and sit the other, then the other way round.

    Returns one :class:`GuessRun` per seed and half."""
    xs = features(items, lang)
    ys = [_keys(it) for it in items]
    runs = []
    for seed in seeds:
        order = list(range(len(items)))
        random.Random(f"guesser {seed}").shuffle(order)
        halves = [order[: len(order) // 2], order[len(order) // 2 :]]
        for h in (0, 1):
            train, test = halves[h], halves[1 - h]
            w = fit([xs[i] for i in train], [ys[i] for i in train])
            right = 0
            for i in test:
                scores = xs[i] @ w
                chosen = set(np.argsort(-scores, kind="stable")[: items[i].pick])
                right += chosen == set(np.flatnonzero(ys[i]))
            scaled = scaled_score(right, len(test))
            chance = chance_score([items[i] for i in test])
            runs.append(GuessRun(seed, h, len(test), right, scaled, chance))
    return runs
