"""Package-wide rules: the layout, the import order, and each package's public API pinned.

Imports only go downwards: base modules -> mcp -> permissions -> hooks -> agent -> skills ->
config -> oracle -> course -> cli. Every import of every module is read with ``ast`` (function-level
imports included), so a lazy import cannot hide an upward dependency either.
"""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import mcpmini

ROOT = Path(mcpmini.__file__).parent
LAYERS = ["mcp", "permissions", "hooks", "agent", "skills", "config", "oracle", "course", "cli"]
RANK = {name: i + 1 for i, name in enumerate(LAYERS)}  # base modules rank 0
RUNTIME_PACKAGES = [p for p in LAYERS if p not in ("course", "cli")]

PUBLIC = {
    "mcp": {
        "TASKS_EXTENSION",
        "TaskStatus",
        "TaskSupport",
        "TaskTable",
        "UnknownTask",
        "BlockView",
        "CallRecord",
        "Progress",
        "StructuredCheck",
        "StructuredVerdict",
        "call_meta",
        "check_structured",
        "inspect_call",
        "notification_line",
        "progress_bar",
        "progress_of",
        "record_call",
        "view_block",
        "ORDERS",
        "orders_server",
        "asgi_app",
        "serve_http",
        "CallContext",
        "ConformanceServer",
        "conformance_server",
        "current_call",
        "HttpEndpoint",
        "HttpLimits",
        "HttpReply",
        "HttpRequest",
        "HttpExchange",
        "HttpTransport",
        "in_call",
        "LOG_LEVELS",
        "NO_CALL",
        "McpAsgi",
        "add_server",
        "check_schema",
        "CITIES",
        "Client",
        "ClientConnection",
        "ClientMode",
        "ClientState",
        "Connection",
        "docstring_parts",
        "encode",
        "error_reply",
        "ErrorCode",
        "ErrorResponse",
        "GENERATIONS",
        "Generation",
        "is_modern",
        "JsonId",
        "KNOWN_VERSIONS",
        "LEGACY",
        "LineBuffer",
        "MAX_LINE",
        "memory_pair",
        "MemoryTransport",
        "Message",
        "META_PREFIX",
        "METHODS",
        "Method",
        "MethodSpec",
        "MODERN",
        "Notification",
        "OutcomeKind",
        "parse_line",
        "parse_object",
        "PendingTable",
        "Prompt",
        "Request",
        "Resource",
        "Response",
        "SAMPLES",
        "schema_from_function",
        "serve_stdio",
        "Server",
        "ServerConnection",
        "StdioTransport",
        "to_dict",
        "to_tool_result",
        "Tool",
        "ToolOutcome",
        "Trace",
        "Traced",
        "TraceEvent",
        "Transport",
        "Validator",
        "weather_server",
    },
    "mcp.auth": {
        "AuthError",
        "AuthErrorKind",
        "Challenge",
        "ClientInfo",
        "DpopKey",
        "FileStore",
        "Grant",
        "HeadlessAgent",
        "LoopbackAgent",
        "MemoryStore",
        "OAuth",
        "OAuthOptions",
        "Pkce",
        "Record",
        "ResourceMetadata",
        "ServerMetadata",
        "Token",
        "TokenStore",
        "UserAgent",
        "canonical_resource",
        "choose_method",
        "client_assertion",
        "oauth_for",
        "parse_challenges",
        "parse_registration",
        "parse_resource_metadata",
        "parse_server_metadata",
        "parse_token",
        "registration_body",
        "resource_allowed",
        "resource_metadata_urls",
        "select_scopes",
        "server_metadata_urls",
        "token_request",
        "tokens_dir",
        "union",
    },
    "permissions": {
        "ACCEPT_EDITS_COMMANDS",
        "DEFAULT_MODE_VALUES",
        "TOOLS",
        "ToolKind",
        "ToolSpec",
        "StartingMode",
        "starting_mode",
        "analyze",
        "Behavior",
        "BypassKind",
        "BypassWarning",
        "bypass_forms",
        "CommandAnalysis",
        "EDIT_TOOLS",
        "EXEC_WRAPPERS",
        "gate",
        "MODES",
        "ModeSpec",
        "GateResult",
        "GateStage",
        "GateStep",
        "HookDecision",
        "is_protected_path",
        "is_read_only_command",
        "parse_rule",
        "PermissionMode",
        "PermissionRules",
        "PreToolUseResult",
        "READ_ONLY_COMMANDS",
        "READ_ONLY_GIT",
        "READ_TOOLS",
        "Rule",
        "rule_matches",
        "RuleVerdict",
        "split_command",
        "strip_wrappers",
        "Subcommand",
    },
    "hooks": {
        "ARTICLE_EVENTS",
        "classify",
        "classify_matcher",
        "combine_decisions",
        "CommandHandler",
        "CONTEXT_STDOUT_EVENTS",
        "DECISION_RANK",
        "DEFAULT_TIMEOUT",
        "describe",
        "event_spec",
        "EventResult",
        "EVENTS",
        "EventSpec",
        "execute",
        "Execution",
        "ExitTwo",
        "FailureKind",
        "Decision",
        "DecisionField",
        "Decided",
        "decide",
        "has_hooks",
        "Hooks",
        "OnFailure",
        "RULES",
        "Handler",
        "handler_type",
        "HandlerRun",
        "HookMatcher",
        "HookOutcome",
        "HookSettings",
        "HttpHandler",
        "IF_EVENTS",
        "js_regex",
        "json_path",
        "load_settings",
        "match",
        "MatcherRule",
        "MatchResult",
        "MAX_REGEX_LENGTH",
        "McpToolHandler",
        "ModelHandler",
        "OUTPUT_CAP",
        "OUTPUT_SCHEMA",
        "PERMISSION_EVENTS",
        "RawSource",
        "read_source",
        "run_hooks",
        "SETTINGS_KINDS",
        "SETTINGS_SCHEMA",
        "SOURCE_KINDS",
        "STOP_BLOCK_CAP",
        "STRING_CAP",
        "Verdict",
        "as_handler",
        "CallbackHandler",
        "HandlerLike",
        "HandlerOptions",
        "HandlerType",
        "SETTINGS_TYPES",
    },
    "agent": {
        "agent_server",
        "runs_of",
        "AccessPolicy",
        "Layer",
        "LayerVerdict",
        "check_layers",
        "either_filter",
        "visible_tools",
        "interpreter_server",
        "last_results",
        "MAX_TOOL_NAME",
        "ExposedTool",
        "Merge",
        "NameProblem",
        "NameProblemKind",
        "NameStyle",
        "Registry",
        "Truncated",
        "exposed_name",
        "hide_fields",
        "inject",
        "name_problems",
        "split_name",
        "truncate_result",
        "AgentOptions",
        "AlwaysToolModel",
        "AnthropicModel",
        "break_even",
        "builtin_tools",
        "cache_hits",
        "ConstantModel",
        "Costs",
        "cut_to_tokens",
        "description_words",
        "defer_tools",
        "deferred_cost",
        "estimate_tokens",
        "json_tokens",
        "Limits",
        "listing_bound",
        "LoopEvent",
        "max_deferred_uses",
        "mcp_tool_name",
        "measure_tool_layer",
        "Model",
        "ModelRequest",
        "network_isolation_available",
        "SandboxWarning",
        "bubblewrap_available",
        "confine",
        "pairing_violations",
        "PairingError",
        "PairingViolation",
        "reattach_bound",
        "REATTACH_PER_SKILL",
        "REATTACH_TOTAL",
        "repair_reply",
        "Repaired",
        "RequestRecord",
        "Route",
        "route",
        "RouterModel",
        "run",
        "run_python",
        "RunResult",
        "SandboxOutcome",
        "SandboxResult",
        "ScriptedModel",
        "Step",
        "StopReason",
        "SwappedPathError",
        "Tool",
        "ToolError",
        "ToolLayerSize",
        "ToolResult",
        "uniform_costs",
        "upfront_cost",
        "words",
        "Workspace",
        "WorkspaceError",
    },
    "skills": {
        "build_listing",
        "CommandRun",
        "Invocation",
        "InvocationStatus",
        "invoke",
        "KNOWN_FIELDS",
        "Level",
        "lint_skills",
        "Listing",
        "ListingEntry",
        "load_skills",
        "MAX_DESC_CHARS",
        "OVERRIDES",
        "parse_skill",
        "PER_SKILL_TOKENS",
        "read_skill_dir",
        "read_skill_file",
        "reattach",
        "Reattached",
        "Reattachment",
        "ReattachStatus",
        "render",
        "run_shell",
        "scan_dir",
        "Skill",
        "skill_permits",
        "SKILL_PRECEDENCE",
        "SkillSet",
        "TOTAL_TOKENS",
    },
    "config": {
        "Approvals",
        "resolve_trusted",
        "expand_entry",
        "load_held_sources",
        "ProjectRecord",
        "read_record",
        "record_approval",
        "release",
        "SettingsScope",
        "TrustRecordError",
        "TrustState",
        "TrustVerdict",
        "verdicts",
        "DESCRIPTION_CAP",
        "Inventory",
        "ServerReport",
        "ServerStatus",
        "ToolReport",
        "load_sources",
        "take_inventory",
        "COMBINATION",
        "Combination",
        "concat_claude_md",
        "endpoint",
        "expand_vars",
        "FieldValue",
        "line_of_key",
        "load_claude_json",
        "load_marketplace",
        "load_mcp_json",
        "load_plugin",
        "looks_like_secret",
        "MANIFEST_SCHEMA",
        "Marketplace",
        "MARKETPLACE_SCHEMA",
        "MCP_PRECEDENCE",
        "McpConfig",
        "Mechanism",
        "merge_fields",
        "MergedEntry",
        "path_inside",
        "Plugin",
        "PRECEDENCE",
        "read_json",
        "RESERVED_NAMES",
        "resolve",
        "resolve_mcp_servers",
        "Resolved",
        "schema_problems",
        "SOURCE_FORMS",
        "validate_plugin",
    },
    "oracle": {
        "INSTALL_DIR",
        "PIN",
        "Call",
        "Case",
        "Cause",
        "ClaudeCodeMissing",
        "Command",
        "FakeApi",
        "Failure",
        "Judged",
        "Observed",
        "OracleFailure",
        "Pair",
        "Scope",
        "Script",
        "ScriptedCall",
        "Session",
        "Shown",
        "Tree",
        "Verdict",
        "agreement",
        "binary_version",
        "find_claude",
        "install_claude",
        "judge",
        "lay_out",
        "pair",
        "run_case",
        "run_command",
        "run_tree",
    },
    "course": {
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
    },
    "course.chapters": {
        "bridge_table",
        "cache_table",
        "cost_table",
        "measured_layer_lines",
        "measured_layer_table",
        "request_sizes",
        "tool_layer_lines",
        "description_cap_line",
        "MECHANISMS",
        "STEPS",
        "mechanism_counts",
        "mechanism_of",
        "step_name",
        "step_names",
        "timeline",
        "NO_SECTION",
        "SECTION_KEY",
        "WARMUP",
        "chapter_rows",
        "chapter_table",
        "section_of",
        "FieldKind",
        "FormField",
        "InspectorSession",
        "InspectorWidget",
        "form_arguments",
        "form_spec",
        "inspector",
        "record_text",
        "Backend",
        "LoadResult",
        "backends",
        "balancer",
        "missing",
        "nginx_conf",
        "post_calls",
        "wrk",
        "EXIT_CHOICES",
        "GATE_STATIONS",
        "MISSING",
        "OTHER_DECISIONS",
        "PERMISSION_CASES",
        "RULE_SETS",
        "Answer",
        "attack_rows",
        "through_claude_code",
        "large_result_rows",
        "mcp_tool_rows",
        "plugin_rows",
        "skill_listing_pair",
        "Fate",
        "GridCell",
        "HookSimulation",
        "IdEvent",
        "IdViolation",
        "MatcherExplanation",
        "Negotiation",
        "NegotiationGrid",
        "PermissionCase",
        "RandomToolModel",
        "Setting",
        "Trial",
        "VersionComparison",
        "VersionPicker",
        "case_rows",
        "check_prop_4_3",
        "compare_versions",
        "context_cost_curve",
        "context_cost_explorer",
        "context_cost_lines",
        "explain_matcher",
        "hook_gate_lab",
        "id_violations",
        "is_interval",
        "matcher_playground",
        "measured_layer_rows",
        "negotiate_handshake",
        "negotiate_per_request",
        "negotiation_grid",
        "negotiation_lines",
        "non_empty_subsets",
        "outstanding_is_injective",
        "plot_context_cost",
        "plot_gate_path",
        "plot_measured_layer",
        "plot_negotiation_grid",
        "plot_prop_4_5",
        "plot_reattach_curve",
        "plot_turns_curve",
        "prop_4_3_rows",
        "prop_4_5_trial",
        "reattach_curve",
        "reattach_explorer",
        "reattach_lines",
        "resolution_lines",
        "resolution_switch",
        "run_case",
        "set_pairs",
        "simulate_hook",
        "turns_curve",
        "version_picker",
        "PROP_4_5_GROUPS",
        "check_prop_4_5",
        "event_table",
        "guard_table",
        "note_4_4_table",
        "post_failure_table",
        "prop_4_5_constant",
        "prop_4_5_table",
        "simulation_table",
        "case_table",
        "case_summary",
        "comparison_table",
        "comparison_summary",
        "prop_4_3_table",
        "OPTION_ROLES",
        "events_table",
        "input_rows",
        "input_table",
        "options_table",
        "undescribed_options",
        "budget_table",
        "front_matter_table",
        "listing_lines",
        "listing_size_table",
        "pair_lines",
        "reattach_table",
        "check_prop_6_2",
        "combinations_line",
        "manifest_table",
        "precedence_table",
        "prop_6_2_rows",
        "prop_6_2_table",
        "resolution_report",
        "superset_table",
        "limit_table",
        "experiment",
        "findings",
        "findings_lines",
        "observation_table",
        "summary_display",
        "summary_rows",
        "summary_table",
    },
    "course.ccaf": {
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
    },
    "course.practice": {
        "P2_POLICY",
        "P2_TOOLS",
        "P3_LIMITS",
        "P4_CAP_TOKENS",
        "P4_CONTEXT_LIMIT",
        "P4_HOST_BUDGET",
        "P4_PAGE_LINES",
        "P4_RESULT_LINES",
        "P4_WARN_TOKENS",
        "PLACEMENTS",
        "PRACTICE_IDS",
        "SEED_LOCAL_MS",
        "SEED_REMOTE_MS",
        "STRATEGIES",
        "TITLES",
        "WORDS",
        "SimulatedLatency",
        "Strategy",
        "Workload",
        "build_practice",
        "context_series",
        "context_table",
        "fate_table",
        "gate_table",
        "grant_toggler",
        "inventory_summary",
        "inventory_table",
        "layer_lines",
        "layer_rows",
        "line",
        "loop_context",
        "nesting_table",
        "overhead_table",
        "plot_context_growth",
        "predict_run",
        "probe_table",
        "results_table",
        "show",
        "table_lines",
        "time_calls",
        "timing_table",
        "turn_table",
        "yes_no",
    },
    "course.classroom": {
        "COLUMNS",
        "COPIED",
        "PROBLEMS",
        "Assignment",
        "AssignmentError",
        "CollectError",
        "LatePolicy",
        "SubmissionError",
        "parse_assignments",
        "read_assignments",
        "read_names",
        "return_feedback",
        "answers_path",
        "page_name",
        "read_grades",
        "render_page",
        "write_feedback",
        "write_gradebook",
        "CollectStatus",
        "Collected",
        "RosterError",
        "collect",
        "collect_homes",
        "collect_zip",
        "is_learner_name",
        "parse_roster",
        "read_roster",
        "GradeRow",
        "RowStatus",
        "Submission",
        "find_submissions",
        "grade_class",
        "grade_notebook",
        "identify_exercise",
        "read_csv",
        "write_csv",
    },
    "cli": {
        "main",
    },
}


def _modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.append((".".join(("mcpmini", *parts)), path))
    return out


def _rank(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] != "mcpmini":
        return None
    if len(parts) == 1:
        return 0
    return RANK.get(parts[1], 0)


def _imports(module: str, path: Path) -> list[tuple[int, str]]:
    """Every mcpmini module that ``path`` imports, with the line, relative imports resolved."""
    is_pkg = path.name == "__init__.py"
    package = module if is_pkg else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target))
    return [(line, t) for line, t in found if t.split(".")[0] == "mcpmini"]


def test_every_module_declares_all_and_every_exported_name_exists():
    for name, _ in _modules():
        if name.endswith("__main__"):
            continue
        module = importlib.import_module(name)
        exported = getattr(module, "__all__", None)
        assert exported is not None, f"{name} has no __all__"
        missing = [n for n in exported if not hasattr(module, n)]
        assert missing == [], f"{name}.__all__ names missing objects: {missing}"


@pytest.mark.parametrize("package", sorted(PUBLIC))
def test_each_package_pins_its_public_api_exactly(package):
    module = importlib.import_module(f"mcpmini.{package}")
    assert sorted(module.__all__) == sorted(PUBLIC[package])
    assert len(set(module.__all__)) == len(module.__all__)


def test_imports_only_go_downwards_and_the_runtime_never_imports_the_course():
    upward = []
    for name, path in _modules():
        if name in ("mcpmini", "mcpmini.__main__"):
            continue  # the lazy top level and ``python -m`` sit above every layer
        here = _rank(name)
        for line, target in _imports(name, path):
            there = _rank(target)
            if there is not None and there > here:
                upward.append(f"{path.relative_to(ROOT.parent)}:{line} imports {target}")
    assert upward == []


# Inside the course: the shared modules (which may import each other), then the tracks (which
# never import each other), then the catalogue of every track's exercises, then class grading.
COURSE_SHARED = ["language", "policy", "glossary", "grading", "progress", "report", "plots"]
COURSE_TRACKS = ["chapters", "ccaf", "practice"]
COURSE_RANK = {
    **dict.fromkeys(COURSE_SHARED, 0),
    **dict.fromkeys(COURSE_TRACKS, 1),
    "catalogue": 2,
    "classroom": 3,
    "edition": 3,
}


def _course_part(module: str) -> str | None:
    """The course part (``grading``, ``chapters``…) a module belongs to, or None outside."""
    parts = module.split(".")
    if parts[:2] != ["mcpmini", "course"] or len(parts) < 3:
        return None
    return parts[2]


def test_the_course_packages_mirror_the_tracks_and_every_course_module_has_a_place():
    course = ROOT / "course"
    found = sorted(p.stem for p in course.glob("*.py") if p.stem != "__init__")
    found += sorted(p.name for p in course.iterdir() if (p / "__init__.py").exists())
    assert sorted(found) == sorted(COURSE_RANK)


def _course_violations(name: str, path: Path) -> list[str]:
    """The imports of course module ``name`` that go up, sideways between tracks, or to the
    ``mcpmini.course`` package itself (whose ``__init__`` gathers every track)."""
    here = _course_part(name)
    wrong = []
    for line, target in _imports(name, path) if here is not None else []:
        there = _course_part(target)
        if target == "mcpmini.course":
            wrong.append(f"{path.name}:{line} imports {target}")
        elif there is None or there == here:
            continue
        elif COURSE_RANK[there] > COURSE_RANK[here] or {here, there} <= set(COURSE_TRACKS):
            wrong.append(f"{path.name}:{line} imports {target}")
    return wrong


def test_inside_the_course_imports_go_from_the_tracks_down_to_the_shared_modules_only():
    assert [v for name, path in _modules() for v in _course_violations(name, path)] == []


def test_the_course_layer_check_sees_a_track_importing_another_or_the_catalogue(tmp_path):
    bad = tmp_path / "x.py"
    bad.write_text("from ..practice import loop_context\nfrom .. import catalogue\n")
    assert len(_course_violations("mcpmini.course.ccaf.x", bad)) == 2
    good = tmp_path / "y.py"
    good.write_text(
        "from ..grading import Part\nfrom .bank import draw\nfrom ...mcp import LEGACY\n"
    )
    assert _course_violations("mcpmini.course.ccaf.y", good) == []


def _import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that reach each other through imports (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_no_modules_import_each_other_even_for_type_checking_only():
    # A package's __init__ gathers its modules, so the edge from a module to its own package
    # (``from . import x``) is not counted; every other import is, TYPE_CHECKING ones too.
    modules = dict(_modules())
    graph = {
        name: {
            t
            for _, t in _imports(name, path)
            if t in modules and t != name and t != name.rpartition(".")[0]
        }
        for name, path in modules.items()
    }
    assert _import_cycles(graph) == []
    assert _import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_import_order_check_sees_function_level_and_relative_imports(tmp_path):
    bad = tmp_path / "x.py"
    bad.write_text("def f():\n    from ..course import widgets\n")
    assert _imports("mcpmini.mcp.x", bad) == [(2, "mcpmini.course")]
    assert _rank("mcpmini.course") > _rank("mcpmini.mcp.x")


def test_loading_the_runtime_pulls_in_no_course_layer_or_heavy_library():
    code = (
        "import json, sys\n"
        + "".join(f"import mcpmini.{p}\n" for p in RUNTIME_PACKAGES)
        + "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('matplotlib', 'pandas', 'ipywidgets') or m.startswith('mcpmini.course'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []


def test_lazy_top_level_names_resolve():
    assert mcpmini.Server.__name__ == "Server" and mcpmini.Client.__name__ == "Client"
    assert callable(mcpmini.serve_stdio) and callable(mcpmini.memory_pair)
    with pytest.raises(AttributeError):
        mcpmini.no_such_name  # noqa: B018


def test_package_list_matches_the_folders():
    found = sorted(m.name for m in pkgutil.iter_modules(mcpmini.__path__) if m.ispkg)
    assert found == sorted(LAYERS)
