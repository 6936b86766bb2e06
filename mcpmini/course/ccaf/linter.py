"""The bank linter: can a test-wise candidate beat the bank without knowing the subject?

Rules of this module: per language, :func:`lint` puts every surface-cue rule's key rate
beside chance (:func:`~.cues.cue_table`, single-answer and multiple-response items apart)
and sits the test-wise guesser (:func:`~.guesser.held_out`: fitted on half the items, scored
on the other half with the project's scaled scoring, both halves, several seeds). The
targets: every rule within :data:`~.cues.CUE_MARGIN` points of chance, and the guesser's mean
held-out scaled score within :data:`~.guesser.GUESS_MARGIN` of the chance score.
:meth:`LintReport.lines` is the table; :attr:`LintReport.misses` what fails.

``python -m mcpmini.course.ccaf.linter`` prints the table of the bank (or of the folder
given) and exits 1 when a target is missed; ``tests/test_ccaf_cues.py`` runs it in
``make test``.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from ..language import Lang
from .bank import Bank
from .cues import CUE_MARGIN, CueRow, cue_table
from .guesser import GUESS_MARGIN, GuessRun, held_out
from .loader import load_bank

__all__ = ["LintReport", "lint", "main"]

#: The seeds of the guesser's halves.
SEEDS = range(5)


@dataclass(frozen=True)
class LintReport:
    """The cue table and the guesser's held-out sittings of one language."""

    lang: Lang
    rows: tuple[CueRow, ...]
    runs: tuple[GuessRun, ...]

    @property
    def guessed(self) -> float:
        """The guesser's mean held-out scaled score."""
        return statistics.mean(r.scaled for r in self.runs)

    @property
    def chance(self) -> float:
        """The mean chance score of the same held-out halves."""
        return statistics.mean(r.chance for r in self.runs)

    @property
    def misses(self) -> list[str]:
        """One line per missed target (empty: the language passes)."""
        out = [
            f"{r.lang} {r.kind}: {r.cue} {r.rule} key rate {r.key_rate:.1f} % "
            f"against chance {r.chance:.1f} %"
            for r in self.rows
            if not r.ok
        ]
        if abs(self.guessed - self.chance) > GUESS_MARGIN:
            out.append(
                f"{self.lang.value}: the guesser's held-out score {self.guessed:.0f} against "
                f"chance {self.chance:.0f} (at most {GUESS_MARGIN:.0f} apart)"
            )
        return out

    def lines(self) -> list[str]:
        """The table: a row per rule (key rate, chance, gap, verdict), then the guesser."""
        out = [
            f"{'lang':<4} {'items':<9} {'cue':<9} {'rule':<7} {'key %':>6} {'chance':>6} {'gap':>6}"
        ]
        for r in self.rows:
            mark = "" if r.ok else f"  MISS (±{CUE_MARGIN:.0f})"
            out.append(
                f"{r.lang:<4} {r.kind + ' ' + str(r.items):<9} {r.cue:<9} {r.rule:<7} "
                f"{r.key_rate:6.1f} {r.chance:6.1f} {r.gap:+6.1f}{mark}"
            )
        scores = " ".join(str(r.scaled) for r in self.runs)
        verdict = "" if abs(self.guessed - self.chance) <= GUESS_MARGIN else "  MISS"
        out.append(
            f"{self.lang.value} guesser held out (seeds {SEEDS.start}-{SEEDS.stop - 1}, both "
            f"halves): {scores}; mean {self.guessed:.0f}, chance {self.chance:.0f}, "
            f"gap {self.guessed - self.chance:+.0f} (±{GUESS_MARGIN:.0f}){verdict}"
        )
        return out


def lint(bank: Bank, langs: Sequence[Lang] = (Lang.JA, Lang.EN)) -> list[LintReport]:
    """The cue table and the guesser for every language of ``langs``."""
    items = list(bank.items)
    return [
        LintReport(lang, tuple(cue_table(items, lang)), tuple(held_out(items, lang, SEEDS)))
        for lang in langs
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table of the bank in ``argv[0]`` (default: the course's); 1 on a miss."""
    args = list(sys.argv[1:] if argv is None else argv)
    reports = lint(load_bank(args[0] if args else None))
    for report in reports:
        print("\n".join(report.lines()))
        print()
    missed = [m for report in reports for m in report.misses]
    print(f"{len(missed)} targets missed" if missed else "every target met")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
