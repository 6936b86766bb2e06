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
    Bank,
    Domain,
    Kind,
    Lang,
    Option,
    QuizItem,
    Scenario,
    TaskStatement,
    Text,
)
from .builtin import (
    TOOL_TASKS,
    grade_tool_choices,
    make_sample_repo,
    tool_choice_lines,
)
from .checklist import CHECKLIST, ChecklistItem, checklist_gaps, checklist_lines, quiz_tasks
from .cues import CUE_MARGIN, CueRow, cue_table
from .exam import (
    ExamWidget,
    exam_mode,
)
from .exercises import CCAF_IDS, build_ccaf, practice_ccaf
from .facts import KEY_FACTS
from .figures import BankFigures, figures
from .guesser import GUESS_MARGIN, GuessRun, held_out
from .integrity import SHORT_OPTION, bank_problems
from .linter import LintReport, lint
from .loader import load_bank
from .overview import (
    cell_table,
    column,
    domain_table,
    exam_terms,
    measurement_lines,
    report_excerpt,
    scenario_lines,
    servers_folder,
    task_table,
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
    BankVersionError,
    EntryError,
    EntryProblem,
    ExamSession,
    TimeUp,
    clock_text,
)
from .sitting import (
    DEFAULT_FORMAT,
    EXAM_ITEMS,
    EXAM_MINUTES,
    EXAM_SCENARIOS,
    Format,
    Shortfall,
    Sitting,
    draw,
    draw_sitting,
)
from .weather import ask, listed_tools

__all__ = [
    "BANK_DIR",
    "CCAF_IDS",
    "CHECKLIST",
    "CUE_MARGIN",
    "DEFAULT_FORMAT",
    "DISTRACTORS",
    "EXAM_ITEMS",
    "EXAM_MINUTES",
    "EXAM_SCENARIOS",
    "GUESS_MARGIN",
    "KEY_FACTS",
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
    "BankVersionError",
    "ChecklistItem",
    "CueRow",
    "Domain",
    "EntryError",
    "EntryProblem",
    "ErrorCategory",
    "ExamSession",
    "ExamWidget",
    "Format",
    "GuessRun",
    "ItemResult",
    "Kind",
    "Lang",
    "LintReport",
    "Option",
    "Policy",
    "QuizItem",
    "QuizReport",
    "RetryStats",
    "RoutingResult",
    "Scenario",
    "Shortfall",
    "Sitting",
    "TaskScore",
    "TaskStatement",
    "Text",
    "TimeUp",
    "ask",
    "bank_problems",
    "build_ccaf",
    "cell_table",
    "checklist_gaps",
    "checklist_lines",
    "clock_text",
    "column",
    "cue_table",
    "domain_table",
    "draw",
    "draw_sitting",
    "error_result",
    "exam_mode",
    "exam_terms",
    "expected_tool",
    "figures",
    "grade",
    "grade_tool_choices",
    "held_out",
    "lint",
    "listed_tools",
    "load_bank",
    "make_sample_repo",
    "measurement_lines",
    "parse_answers",
    "plot_routing",
    "plot_selection",
    "policy_for",
    "practice_ccaf",
    "quiz_tasks",
    "report_excerpt",
    "routing_accuracy",
    "scaled_score",
    "scenario_lines",
    "selection_accuracy",
    "servers_folder",
    "simulate_retries",
    "task_table",
    "tool_choice_lines",
]
