"""The public names of the hook and permission modules are pinned (other code imports them)."""

from __future__ import annotations

import importlib

import pytest

PINNED = {
    "mcpmini.hooks": {"HookMatcher", "HookSettings", "HandlerRun", "EventResult", "HookOutcome",
                      "load_settings", "run_hooks", "STOP_BLOCK_CAP"},
    "mcpmini.permissions": {"PermissionMode", "PermissionRules", "RuleVerdict", "GateStep",
                            "GateResult", "gate", "is_protected_path", "Rule", "parse_rule",
                            "rule_matches"},
    "mcpmini.handlers": {"CommandHandler", "HttpHandler", "McpToolHandler", "ModelHandler",
                         "Handler", "Execution", "OUTPUT_CAP", "execute", "handler_type",
                         "describe"},
}


@pytest.mark.parametrize("module", sorted(PINNED))
def test_all_is_pinned_and_every_name_resolves(module):
    mod = importlib.import_module(module)
    assert set(mod.__all__) == PINNED[module]
    for name in mod.__all__:
        assert getattr(mod, name) is not None


@pytest.mark.parametrize("module", ["mcpmini.matchers", "mcpmini.events", "mcpmini.outcomes",
                                    "mcpmini.sources", "mcpmini.rules",
                                    "mcpmini.course.hooklab"])
def test_every_exported_name_exists(module):
    mod = importlib.import_module(module)
    assert all(hasattr(mod, name) for name in mod.__all__)
