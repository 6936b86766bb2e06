"""§4 of the article: hooks.

The event catalogue (:mod:`.events`), matchers (:mod:`.matchers`), settings sources
(:mod:`.sources`), handlers (:mod:`.handlers`), outcomes (:mod:`.outcomes`) and the runner that
runs every matching hook of one event and combines their results (:mod:`.runner`), and
:func:`decide` (:mod:`.gate`): the hooks of one call, then the permission gate.
"""

from __future__ import annotations

from .events import (
    ARTICLE_EVENTS,
    CONTEXT_STDOUT_EVENTS,
    DEFAULT_TIMEOUT,
    EVENTS,
    IF_EVENTS,
    PERMISSION_EVENTS,
    DecisionField,
    EventSpec,
    ExitTwo,
    event_spec,
)
from .gate import Decided, decide, has_hooks
from .handlers import (
    OUTPUT_CAP,
    CommandHandler,
    Execution,
    Handler,
    HttpHandler,
    McpToolHandler,
    ModelHandler,
    describe,
    execute,
    handler_type,
)
from .matchers import (
    MAX_REGEX_LENGTH,
    MatcherRule,
    MatchResult,
    classify_matcher,
    js_regex,
    match,
)
from .outcomes import (
    DECISION_RANK,
    OUTPUT_SCHEMA,
    RULES,
    STRING_CAP,
    Decision,
    FailureKind,
    HookOutcome,
    OnFailure,
    Verdict,
    classify,
    combine_decisions,
)
from .runner import (
    STOP_BLOCK_CAP,
    EventResult,
    HandlerRun,
    HookMatcher,
    Hooks,
    HookSettings,
    load_settings,
    run_hooks,
)
from .sources import (
    SETTINGS_KINDS,
    SETTINGS_SCHEMA,
    SOURCE_KINDS,
    RawSource,
    json_path,
    read_source,
)

__all__ = [
    "ARTICLE_EVENTS",
    "CONTEXT_STDOUT_EVENTS",
    "DECISION_RANK",
    "DEFAULT_TIMEOUT",
    "EVENTS",
    "IF_EVENTS",
    "MAX_REGEX_LENGTH",
    "OUTPUT_CAP",
    "OUTPUT_SCHEMA",
    "PERMISSION_EVENTS",
    "RULES",
    "SETTINGS_KINDS",
    "SETTINGS_SCHEMA",
    "SOURCE_KINDS",
    "STOP_BLOCK_CAP",
    "STRING_CAP",
    "CommandHandler",
    "Decided",
    "Decision",
    "DecisionField",
    "EventResult",
    "EventSpec",
    "Execution",
    "ExitTwo",
    "FailureKind",
    "Handler",
    "HandlerRun",
    "HookMatcher",
    "HookOutcome",
    "HookSettings",
    "Hooks",
    "HttpHandler",
    "MatchResult",
    "MatcherRule",
    "McpToolHandler",
    "ModelHandler",
    "OnFailure",
    "RawSource",
    "Verdict",
    "classify",
    "classify_matcher",
    "combine_decisions",
    "decide",
    "describe",
    "event_spec",
    "execute",
    "handler_type",
    "has_hooks",
    "js_regex",
    "json_path",
    "load_settings",
    "match",
    "read_source",
    "run_hooks",
]
