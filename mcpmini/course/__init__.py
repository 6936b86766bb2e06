"""The teaching layer, one package per track, mirroring ``notebooks/``.

The shared pieces sit at the top: :mod:`.language` (the learner's language and the
:class:`~.language.Text` pair every learner-facing text is), :mod:`.grading` (the checker
framework), :mod:`.progress` (the learner's progress file), :mod:`.report` (what every widget
shows and how a headless run reads it), :mod:`.plots` (the axes every figure draws on), and
:mod:`.edition` (the English edition built from gettext catalogues), :mod:`.glossary` (one
Japanese and one English term per concept) and :mod:`.catalogue` (every exercise by id). The
tracks are packages: :mod:`.chapters` (§0–§9 and exercises 9.1–9.4), :mod:`.ccaf` (the
CCA-F bank, exam and measurements), :mod:`.practice` (P.1–P.4 and the hosting lab) and
:mod:`.classroom` (class grading).

Rules of this package: the runtime never imports it; a track imports the shared modules and
the runtime, never another track; only the catalogue gathers the tracks' exercises and only
the classroom sits above it. ``matplotlib``, ``pandas`` and ``ipywidgets`` are imported
inside the functions that draw or build widgets, so importing a track stays cheap.
"""

from __future__ import annotations

from .catalogue import (
    ALL_IDS,
    CCAF_IDS,
    EXERCISE_IDS,
    PRACTICE_IDS,
    TITLES,
    get_exercise,
    practice,
)
from .glossary import (
    GLOSSARY,
    GlossaryEntry,
    GlossaryError,
    UnknownTerm,
    glossary_entries,
    load_glossary,
    term,
)
from .grading import (
    Choice,
    Exercise,
    Kind,
    Part,
    PartResult,
    Report,
    Status,
)
from .language import (
    LANG_ENV,
    Lang,
    LanguageError,
    Text,
    Words,
    current,
    say,
    use,
)
from .plots import (
    figure,
)
from .progress import (
    PROGRESS_ENV,
    Graded,
    load_progress,
    progress_path,
    quiz_summary,
    record_progress,
    record_quiz,
    summary,
)
from .report import (
    LIVE_LABEL,
    STATIC_LABEL,
    live_html,
    report_text,
    static_report,
)

__all__ = [
    "ALL_IDS",
    "CCAF_IDS",
    "EXERCISE_IDS",
    "GLOSSARY",
    "LANG_ENV",
    "LIVE_LABEL",
    "PRACTICE_IDS",
    "PROGRESS_ENV",
    "STATIC_LABEL",
    "TITLES",
    "Choice",
    "Exercise",
    "GlossaryEntry",
    "GlossaryError",
    "Graded",
    "Kind",
    "Lang",
    "LanguageError",
    "Part",
    "PartResult",
    "Report",
    "Status",
    "Text",
    "UnknownTerm",
    "Words",
    "current",
    "figure",
    "get_exercise",
    "glossary_entries",
    "live_html",
    "load_glossary",
    "load_progress",
    "practice",
    "progress_path",
    "quiz_summary",
    "record_progress",
    "record_quiz",
    "report_text",
    "say",
    "static_report",
    "summary",
    "term",
    "use",
]
