"""The main chapters' track (``notebooks/00_…`` to ``12_…``, ``exercises/9_*``): what the
notebooks of §0–§9 run.

:mod:`.negotiation` and :mod:`.ids` are the executable models of Proposition 3.4 and of
the id rules (exercise 9.2); :mod:`.versions` shows both negotiation models on a pair of
version sets and over every pair (notebook 03); :mod:`.costs` holds Propositions 3.8, 5.2
and 7.1 (notebooks 06, 09, 11); :mod:`.precedence` the whole-entry and field-merge readings
(notebook 10); :mod:`.hooklab` and :mod:`.hooks` the hook simulations, the gate lab and
their figures (notebooks 07, 08); :mod:`.attacks` the permission attack and bypass table
(notebook 07); :mod:`.claude_code` runs the notebooks' examples through the real Claude Code
(or shows the result recorded from it); :mod:`.exercises` and :mod:`.extensions` exercises
9.1–9.4; :mod:`.scaleout`
real backends behind nginx and wrk runs (notebook 02b); :mod:`.inspector` the notebook's MCP
inspector (notebook 05, practice 01).
"""

from __future__ import annotations

from .attacks import (
    PERMISSION_CASES,
    PermissionCase,
    case_rows,
    run_case,
)
from .claude_code import (
    Answer,
    attack_rows,
    large_result_rows,
    mcp_tool_rows,
    plugin_rows,
    skill_listing_pair,
    through_claude_code,
)
from .costs import (
    context_cost_curve,
    context_cost_explorer,
    context_cost_lines,
    description_cap_line,
    measured_layer_rows,
    plot_context_cost,
    plot_measured_layer,
    plot_reattach_curve,
    plot_turns_curve,
    reattach_curve,
    reattach_explorer,
    reattach_lines,
    turns_curve,
)
from .extensions import (
    Fate,
    Setting,
)
from .hooklab import (
    EXIT_CHOICES,
    MISSING,
    OTHER_DECISIONS,
    RULE_SETS,
    HookSimulation,
    MatcherExplanation,
    RandomToolModel,
    Trial,
    check_prop_4_3,
    explain_matcher,
    prop_4_3_rows,
    prop_4_5_trial,
    simulate_hook,
)
from .hooks import (
    GATE_STATIONS,
    hook_gate_lab,
    matcher_playground,
    plot_gate_path,
    plot_prop_4_5,
)
from .ids import (
    IdEvent,
    IdViolation,
    id_violations,
    outstanding_is_injective,
)
from .inspector import (
    FieldKind,
    FormField,
    InspectorSession,
    InspectorWidget,
    form_arguments,
    form_spec,
    inspector,
    record_text,
)
from .loop import (
    MECHANISMS,
    STEPS,
    mechanism_counts,
    mechanism_of,
    step_name,
    step_names,
    timeline,
)
from .negotiation import (
    Negotiation,
    is_interval,
    negotiate_handshake,
    negotiate_per_request,
    non_empty_subsets,
    set_pairs,
)
from .precedence import (
    resolution_lines,
    resolution_switch,
)
from .scaleout import (
    Backend,
    LoadResult,
    backends,
    balancer,
    missing,
    nginx_conf,
    post_calls,
    wrk,
)
from .start import (
    NO_SECTION,
    SECTION_KEY,
    WARMUP,
    chapter_rows,
    chapter_table,
    section_of,
)
from .versions import (
    GridCell,
    NegotiationGrid,
    VersionComparison,
    VersionPicker,
    compare_versions,
    negotiation_grid,
    negotiation_lines,
    plot_negotiation_grid,
    version_picker,
)

__all__ = [
    "EXIT_CHOICES",
    "GATE_STATIONS",
    "MECHANISMS",
    "MISSING",
    "NO_SECTION",
    "OTHER_DECISIONS",
    "PERMISSION_CASES",
    "RULE_SETS",
    "SECTION_KEY",
    "STEPS",
    "WARMUP",
    "Answer",
    "Backend",
    "Fate",
    "FieldKind",
    "FormField",
    "GridCell",
    "HookSimulation",
    "IdEvent",
    "IdViolation",
    "InspectorSession",
    "InspectorWidget",
    "LoadResult",
    "MatcherExplanation",
    "Negotiation",
    "NegotiationGrid",
    "PermissionCase",
    "RandomToolModel",
    "Setting",
    "Trial",
    "VersionComparison",
    "VersionPicker",
    "attack_rows",
    "backends",
    "balancer",
    "case_rows",
    "chapter_rows",
    "chapter_table",
    "check_prop_4_3",
    "compare_versions",
    "context_cost_curve",
    "context_cost_explorer",
    "context_cost_lines",
    "description_cap_line",
    "explain_matcher",
    "form_arguments",
    "form_spec",
    "hook_gate_lab",
    "id_violations",
    "inspector",
    "is_interval",
    "large_result_rows",
    "matcher_playground",
    "mcp_tool_rows",
    "measured_layer_rows",
    "mechanism_counts",
    "mechanism_of",
    "missing",
    "negotiate_handshake",
    "negotiate_per_request",
    "negotiation_grid",
    "negotiation_lines",
    "nginx_conf",
    "non_empty_subsets",
    "outstanding_is_injective",
    "plot_context_cost",
    "plot_gate_path",
    "plot_measured_layer",
    "plot_negotiation_grid",
    "plot_prop_4_5",
    "plot_reattach_curve",
    "plot_turns_curve",
    "plugin_rows",
    "post_calls",
    "prop_4_3_rows",
    "prop_4_5_trial",
    "reattach_curve",
    "reattach_explorer",
    "reattach_lines",
    "record_text",
    "resolution_lines",
    "resolution_switch",
    "run_case",
    "section_of",
    "set_pairs",
    "simulate_hook",
    "skill_listing_pair",
    "step_name",
    "step_names",
    "through_claude_code",
    "timeline",
    "turns_curve",
    "version_picker",
    "wrk",
]
