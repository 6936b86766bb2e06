"""The CCA-F track (``notebooks/ccaf/``): the question bank, the exam, and the
measurements of each Domain 2 task statement.

:mod:`.bank` loads and checks the bank (bilingual items in ``data/items/``, six scenarios, keys
computed by the runtime through :mod:`.facts`); :mod:`.sitting` draws full exam sittings and
practice sets; :mod:`.scoring` grades them on the 100–1,000 scale with feedback that teaches;
:mod:`.session` is the exam being taken, driven by both ``mcpmini quiz take`` and the
:mod:`.exam` widget; :mod:`.exercises` is exercise C.1 (the chapter's hands-on part: two
weather tools whose descriptions must route) and the closing checklist; :mod:`.routing`
(2.1, 2.3), :mod:`.retries` (2.2) and :mod:`.builtin` (2.5) are the runnable demos.
"""

from __future__ import annotations

from .bank import (
    BANK_DIR,
    KEY_FACTS,
    LONGEST_KEY_LIMIT,
    SHORT_OPTION,
    Bank,
    BankFigures,
    Domain,
    Kind,
    Lang,
    Option,
    QuizItem,
    Scenario,
    TaskStatement,
    Text,
    bank_problems,
    figures,
    load_bank,
)
from .builtin import (
    TOOL_TASKS,
    grade_tool_choices,
    make_sample_repo,
)
from .exam import (
    ExamWidget,
    exam_mode,
)
from .exercises import (
    CCAF_IDS,
    CHECKLIST,
    ChecklistItem,
    ask,
    build_ccaf,
    checklist_gaps,
    checklist_lines,
    listed_tools,
    practice_ccaf,
    quiz_tasks,
)
from .retries import (
    ErrorCategory,
    Policy,
    RetryStats,
    error_result,
    policy_for,
    simulate_retries,
)
from .routing import (
    DISTRACTORS,
    REQUESTS,
    TOOLSETS,
    RoutingResult,
    expected_tool,
    plot_routing,
    plot_selection,
    routing_accuracy,
    selection_accuracy,
)
from .scoring import (
    MAX_SCORE,
    MIN_SCORE,
    PASS_SCORE,
    ItemResult,
    QuizReport,
    TaskScore,
    grade,
    parse_answers,
    scaled_score,
)
from .session import (
    AnswersLocked,
    EntryError,
    EntryProblem,
    ExamSession,
    clock_text,
)
from .sitting import (
    DEFAULT_FORMAT,
    EXAM_ITEMS,
    EXAM_MINUTES,
    EXAM_SCENARIOS,
    Format,
    Sitting,
    draw,
    draw_sitting,
)

__all__ = [
    "BANK_DIR",
    "CCAF_IDS",
    "CHECKLIST",
    "DEFAULT_FORMAT",
    "DISTRACTORS",
    "EXAM_ITEMS",
    "EXAM_MINUTES",
    "EXAM_SCENARIOS",
    "KEY_FACTS",
    "LONGEST_KEY_LIMIT",
    "MAX_SCORE",
    "MIN_SCORE",
    "PASS_SCORE",
    "REQUESTS",
    "SHORT_OPTION",
    "TOOLSETS",
    "TOOL_TASKS",
    "AnswersLocked",
    "Bank",
    "BankFigures",
    "ChecklistItem",
    "Domain",
    "EntryError",
    "EntryProblem",
    "ErrorCategory",
    "ExamSession",
    "ExamWidget",
    "Format",
    "ItemResult",
    "Kind",
    "Lang",
    "Option",
    "Policy",
    "QuizItem",
    "QuizReport",
    "RetryStats",
    "RoutingResult",
    "Scenario",
    "Sitting",
    "TaskScore",
    "TaskStatement",
    "Text",
    "ask",
    "bank_problems",
    "build_ccaf",
    "checklist_gaps",
    "checklist_lines",
    "clock_text",
    "draw",
    "draw_sitting",
    "error_result",
    "exam_mode",
    "expected_tool",
    "figures",
    "grade",
    "grade_tool_choices",
    "listed_tools",
    "load_bank",
    "make_sample_repo",
    "parse_answers",
    "plot_routing",
    "plot_selection",
    "policy_for",
    "practice_ccaf",
    "quiz_tasks",
    "routing_accuracy",
    "scaled_score",
    "selection_accuracy",
    "simulate_retries",
]
