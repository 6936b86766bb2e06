"""Homes for tests that run ``mcpmini tools`` / ``config resolve`` on a project: a fresh one
(no trust, no approval: a project's servers stay pending) and one whose user settings approve
every project server (``enableAllProjectMcpServers``, which Claude Code honours from the user's
own settings even in a workspace it was never told to trust). Nothing outside ``tmp_path``
is read or written: ``HOME`` and the managed settings folder both point inside it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

__all__ = ["approving_home", "fresh_home"]


def fresh_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A new empty ``HOME`` (and managed folder) under ``tmp_path``; returns the home."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    managed = tmp_path / "managed"
    managed.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MCPMINI_MANAGED_DIR", str(managed))
    return home


def approving_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """:func:`fresh_home` whose ``~/.claude/settings.json`` approves every project server."""
    home = fresh_home(tmp_path, monkeypatch)
    (home / ".claude" / "settings.json").write_text(
        json.dumps({"enableAllProjectMcpServers": True})
    )
    return home
