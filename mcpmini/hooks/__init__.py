"""§4 of the article: hooks.

The event catalogue (:mod:`.events`), matchers (:mod:`.matchers`), settings sources
(:mod:`.sources`), handlers (:mod:`.handlers`), outcomes (:mod:`.outcomes`) and the runner that
runs every matching hook of one event and combines their results (:mod:`.runner`).
"""

from __future__ import annotations

from .events import (
    ARTICLE_EVENTS,
    CONTEXT_STDOUT_EVENTS,
    DEFAULT_TIMEOUT,
    event_spec,
    EVENTS,
    EventSpec,
    ExitTwo,
    IF_EVENTS,
    PERMISSION_EVENTS,
)
from .matchers import (
    classify_matcher,
    js_regex,
    match,
    MatcherRule,
    MatchResult,
    MAX_REGEX_LENGTH,
)
from .sources import (
    json_path,
    RawSource,
    read_source,
    SETTINGS_KINDS,
    SETTINGS_SCHEMA,
    SOURCE_KINDS,
)
from .handlers import (
    CommandHandler,
    describe,
    execute,
    Execution,
    Handler,
    handler_type,
    HttpHandler,
    McpToolHandler,
    ModelHandler,
    OUTPUT_CAP,
)
from .outcomes import (
    classify,
    combine_decisions,
    DECISION_RANK,
    FailureKind,
    HookOutcome,
    OUTPUT_SCHEMA,
    STRING_CAP,
    Verdict,
)
from .runner import (
    EventResult,
    HandlerRun,
    HookMatcher,
    HookSettings,
    load_settings,
    run_hooks,
    STOP_BLOCK_CAP,
)

__all__ = [
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
]
