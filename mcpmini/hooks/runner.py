"""Hooks: settings from every source, matching, parallel runs, one combined result.

:func:`load_settings` reads real Claude Code settings (user, project, local, managed),
plugin ``hooks/hooks.json`` or ``plugin.json``, skill and subagent front matter. Each source
is checked with ``jsonschema``; a wrong type raises ``ConfigError`` naming the file and the
JSON path (``hooks.PreToolUse[0].hooks[1].timeout``). Hooks add up across sources; the
``permissions`` blocks are pooled into one :class:`~mcpmini.permissions.PermissionRules`.

:func:`run_hooks` takes those settings (or a plain ``{event: [HookMatcher, …]}`` mapping of
SDK-style groups), finds the groups whose matcher fires for the event's match value, drops
identical handlers defined in several *settings files* (plugin and skill copies stay),
runs every remaining handler in parallel threads, classifies each run
(:mod:`mcpmini.hooks.outcomes`) and folds them into an :class:`EventResult`.

Rules of this module:

* Settings are normalised once, where they are built: :func:`load_settings` turns every
  settings entry into a handler dataclass (through :meth:`RawSource.handler`) and a
  :class:`HookMatcher` wraps callables and reads ``on_failure`` when it is constructed.
  :func:`run_hooks` only reads typed values.
* A handler's options are resolved in one place, :func:`_plan`: the handler's own value,
  else its group's (:meth:`HandlerOptions.inherit`), else the run's ``timeout``, else the
  event's default (:meth:`EventSpec.default_timeout`); ``onFailure`` else ``continue``.
* Every run is an immutable :class:`HandlerRun`: planned first (matched, skipped), then
  completed by its execution; the parallel phase only returns values.
* Background (``async``) runs execute but never count towards the combined result.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..permissions import (
    PermissionRules,
    StartingMode,
    parse_rule,
    rule_matches,
    split_command,
    starting_mode,
)
from .events import EventSpec, event_spec, in_subagent
from .handlers import Execution, Handler, HandlerLike, as_handler, describe, execute
from .matchers import MatcherRule, match
from .options import HandlerOptions, HandlerType, OnFailure
from .outcomes import Decision, FailureKind, HookOutcome, Verdict, classify, combine_decisions
from .sources import KEY_BY_KEY_KINDS, SETTINGS_KINDS, InvalidSettings, RawSource, read_source

if TYPE_CHECKING:
    from ..mcp import Client

__all__ = [
    "STOP_BLOCK_CAP",
    "EventResult",
    "HandlerRun",
    "HookMatcher",
    "HookSettings",
    "Hooks",
    "load_settings",
    "run_hooks",
]

STOP_BLOCK_CAP = 8  # Stop / SubagentStop blocks in a row before the turn ends anyway


@dataclass(init=False)
class HookMatcher:
    """One matcher group: ``matcher`` text and the ``hooks`` (handlers) it guards.

    Mirrors the Agent SDK's ``HookMatcher``; ``hooks`` may be given as handler dataclasses
    or plain callables ``(input_data, tool_use_id, context) -> dict`` (sync or async), which
    are wrapped in :class:`~mcpmini.hooks.CallbackHandler` here, so ``hooks`` always holds
    handlers. ``timeout`` and ``on_failure`` apply to every handler that sets none.
    ``source`` / ``kind`` / ``path`` say where the group was defined (``kind`` "sdk" for
    groups built in code); ``plugin_root`` feeds ``CLAUDE_PLUGIN_ROOT``. Raises
    ``ValueError`` for an unknown ``on_failure`` or a timeout that is not positive, and
    ``TypeError`` for a hook that is neither a handler nor callable.
    """

    matcher: str | None
    hooks: list[Handler]
    timeout: float | None
    on_failure: OnFailure | None
    source: str
    kind: str
    path: str
    plugin_root: str | None

    def __init__(
        self,
        matcher: str | None = None,
        hooks: Iterable[HandlerLike] = (),
        timeout: float | None = None,
        on_failure: OnFailure | str | None = None,
        source: str = "sdk",
        kind: str = "sdk",
        path: str = "",
        plugin_root: str | None = None,
    ) -> None:
        checked = HandlerOptions(
            timeout=timeout, on_failure=OnFailure(on_failure) if on_failure else None
        )
        self.matcher = matcher
        self.hooks = [as_handler(h) for h in hooks]
        self.timeout = checked.timeout
        self.on_failure = checked.on_failure
        self.source = source
        self.kind = kind
        self.path = path
        self.plugin_root = plugin_root


@dataclass
class HookSettings:
    """Merged hooks of several sources, pooled permission rules, and load-time warnings."""

    hooks: dict[str, list[HookMatcher]] = field(default_factory=dict)
    permissions: PermissionRules = field(default_factory=PermissionRules)
    default_mode: str | None = None
    default_scope: str | None = None
    disable_bypass: bool = False
    additional_dirs: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    disabled: bool = False
    fired_once: set[tuple[Any, ...]] = field(default_factory=set, repr=False)

    def groups(self, event: str) -> list[HookMatcher]:
        """The matcher groups registered for ``event`` (empty when none)."""
        return list(self.hooks.get(event, []))

    def starting_mode(self, requested: str | None = None) -> StartingMode:
        """The mode a session with these settings starts in (``requested``: the command
        line's ``--permission-mode``), as :func:`mcpmini.permissions.starting_mode` says."""
        default = (
            (self.default_scope or "project", self.default_mode) if self.default_mode else None
        )
        return starting_mode(requested, default, disable_bypass=self.disable_bypass)


# What run_hooks, decide and AgentOptions.hooks take: loaded settings, SDK-style groups in
# code, or raw settings groups ({"matcher": ..., "hooks": [{"type": ...}]}) to validate.
Hooks = (
    HookSettings | Mapping[str, Iterable[HookMatcher]] | Mapping[str, Iterable[Mapping[str, Any]]]
)

_PRECEDENCE = {"managed": 4, "flag": 3, "local": 2, "project": 1, "user": 0}


@dataclass
class _Flags:
    """The rank of the source that last set each merged flag (higher ranks win)."""

    disable: tuple[int, bool] = (-1, False)
    mode_rank: int = -1
    managed_only: bool = False


def _rules_root(raw: RawSource) -> str | None:
    """The folder a settings file's ``/path`` rules are anchored at: ``~/.claude`` for the
    user's file, the project folder for ``.claude/settings(.local).json``, the file's own
    folder for a ``--settings`` file; ``None`` (the cwd) for managed settings and the rest
    (observed in 2.1.332: a managed ``Read(/src/**)`` covers ``<cwd>/src``)."""
    if raw.kind not in ("user", "project", "local", "flag") or not raw.name.endswith(".json"):
        return None
    folder = os.path.dirname(os.path.abspath(raw.name))
    return folder if raw.kind in ("user", "flag") else os.path.dirname(folder)


def load_settings(
    sources: Iterable[str | os.PathLike[str] | tuple[str, Any]],
    *,
    strict: bool = True,
    home: str | os.PathLike[str] | None = None,
    trusted: bool = True,
) -> HookSettings:
    """Read and merge hook sources; return the :class:`HookSettings`.

    ``sources`` holds paths (kind inferred from the file name) or ``(label, dict)`` /
    ``(label, path)`` pairs with label ``user``, ``project``, ``local``, ``managed``,
    ``flag`` (the ``--settings`` file), ``plugin[:name]``, ``skill[:name]`` or
    ``subagent[:name]``. ``strict`` turns an unknown event name into an error instead of a
    warning. ``trusted=False`` (a workspace whose trust dialog was never accepted) drops the
    project file's ``permissions.allow`` rules, as Claude Code 2.1.332 does (a local file's
    stay); each file's ``/path`` rules are anchored at its root. A settings file (user,
    project, local, flag, managed) holding a value of the wrong type is skipped whole with a
    warning naming the file and the JSON path, as Claude Code 2.1.332 ignores it (its rules
    and hooks too). Raises ``ConfigError`` (file and JSON path) for unreadable files, invalid
    JSON / YAML and values of the wrong type in any other source (a dict given in code too).
    """
    raws: list[RawSource] = []
    skipped: list[str] = []
    for source in sources:
        try:
            raws.append(read_source(source, home=home))
        except InvalidSettings as exc:
            if exc.kind not in SETTINGS_KINDS or not _is_file(source):
                raise
            skipped.append(f"{exc}; the whole file is ignored, as Claude Code ignores it")
    result = HookSettings(sources=[r.name for r in raws], warnings=skipped)
    flags = _Flags()
    for raw in raws:
        result.warnings.extend(raw.notes)
        _read_flags(raw, result, flags, trusted)
        _read_hooks(raw, result, strict)
    _restrict(result, flags)
    return result


def _is_file(source: Any) -> bool:
    """A source read from a file (a path, or a ``(label, path)`` pair), not a dict in code."""
    inner = source[1] if isinstance(source, tuple) and len(source) == 2 else source
    return isinstance(inner, str | os.PathLike)


def _read_flags(raw: RawSource, result: HookSettings, flags: _Flags, trusted: bool) -> None:
    """``disableAllHooks``, ``allowManagedHooksOnly`` and the ``permissions`` block of one
    source, merged into ``result`` / ``flags``."""
    data = raw.data
    rank = _PRECEDENCE.get(raw.kind)
    if "disableAllHooks" in data and rank is not None and rank >= flags.disable[0]:
        flags.disable = (rank, bool(data["disableAllHooks"]))
    if data.get("allowManagedHooksOnly"):
        if raw.kind == "managed":
            flags.managed_only = True
        else:
            result.warnings.append(
                f"{raw.name}: allowManagedHooksOnly works only in managed settings; ignored"
            )
    perms = data.get("permissions")
    if isinstance(perms, Mapping):
        result.permissions = result.permissions.merged(
            PermissionRules.from_settings(
                perms,
                source=raw.name,
                root=_rules_root(raw),
                trusted=trusted or raw.kind != "project",
            )
        )
        mode = perms.get("defaultMode")
        if mode and rank is not None and rank >= flags.mode_rank:
            flags.mode_rank = rank
            result.default_mode = mode
            result.default_scope = raw.kind
        refuse = perms.get("disableBypassPermissionsMode")
        if refuse == "disable" or (raw.kind in KEY_BY_KEY_KINDS and refuse):
            result.disable_bypass = True
        for folder in perms.get("additionalDirectories") or ():
            if folder not in result.additional_dirs:
                result.additional_dirs.append(folder)


def _read_hooks(raw: RawSource, result: HookSettings, strict: bool) -> None:
    """Every matcher group of one source, appended to ``result.hooks`` (with warnings)."""
    for event, groups in (raw.data.get("hooks") or {}).items():
        target = in_subagent(event) if raw.kind == "subagent" else event
        try:
            spec = event_spec(target)
        except ConfigError as exc:
            if strict:
                raise ConfigError(exc.message, raw.name, f"hooks.{event}") from None
            result.warnings.append(f"{raw.name} at hooks.{event}: {exc.message}; skipped")
            continue
        for gi, group in enumerate(groups):
            where = f"hooks.{event}[{gi}]"
            if spec.matcher_field is None and group.get("matcher") not in (None, "", "*"):
                result.warnings.append(
                    f"{raw.name} at {where}.matcher: {target} has no "
                    "matcher; it is ignored and the group always fires"
                )
            handlers = [raw.handler(h) for h in group["hooks"]]
            for hi, handler in enumerate(handlers):
                at = f"{raw.name} at {where}.hooks[{hi}]"
                result.warnings.extend(_handler_warnings(handler, spec, at))
            result.hooks.setdefault(target, []).append(
                HookMatcher(
                    group.get("matcher"),
                    handlers,
                    source=raw.name,
                    kind=raw.kind,
                    path=where,
                    plugin_root=raw.plugin_root,
                )
            )


def _handler_warnings(handler: Handler, spec: EventSpec, at: str) -> list[str]:
    """What a settings handler asks for that its event ``spec`` will not do."""
    out = []
    if handler.type not in spec.handler_types:
        out.append(f"{at}: {spec.name} does not accept {handler.type} handlers")
    if handler.options.on_failure is OnFailure.BLOCK and not spec.honours_block(OnFailure.BLOCK):
        out.append(
            f'{at}.onFailure: {spec.name} ignores onFailure "block" (a failure there never blocks)'
        )
    if handler.options.if_ and not spec.if_evaluated:
        out.append(f"{at}.if: {spec.name} does not evaluate 'if'; this handler never runs")
    return out


def _restrict(result: HookSettings, flags: _Flags) -> None:
    """Apply ``disableAllHooks`` / ``allowManagedHooksOnly`` to the merged groups."""
    disable_rank, disable = flags.disable
    if disable and disable_rank == _PRECEDENCE["managed"]:
        result.disabled = True
        result.hooks = {}
        result.warnings.append("disableAllHooks in managed settings: no hook runs")
    elif disable or flags.managed_only:
        # disableAllHooks outside managed settings, or allowManagedHooksOnly: managed stay.
        result.hooks = {e: [g for g in gs if g.kind == "managed"] for e, gs in result.hooks.items()}
        result.warnings.append(
            "disableAllHooks is on: only managed hooks remain"
            if disable
            else "allowManagedHooksOnly: only managed hooks remain"
        )


@dataclass(frozen=True)
class HandlerRun:
    """One handler of the event: whether its group matched, and what its run produced.

    ``rule`` is the matcher rule that decided; ``skipped`` says why a matched handler did
    not run (``if`` rule, duplicate); ``outcome`` is ``None`` for handlers that did not run.
    """

    source: str
    matcher: str | None
    matched: bool
    rule: MatcherRule
    why: str
    handler: str
    handler_type: HandlerType
    outcome: HookOutcome | None = None
    failure: FailureKind | None = None
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    truncated: bool = False
    duration: float = 0.0
    decision: Decision | None = None
    reason: str | None = None
    skipped: str | None = None
    finished: float = 0.0
    verdict: Verdict | None = None
    background: bool = False  # async handler: runs, but decides nothing

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (the workbench's ``handlers`` entries)."""
        return {
            "source": self.source,
            "matcher": self.matcher,
            "matched": self.matched,
            "rule": self.rule.value,
            "why": self.why,
            "handler": self.handler,
            "type": self.handler_type,
            "outcome": self.outcome.value if self.outcome else None,
            "failure": self.failure.value if self.failure else None,
            "exit_code": self.exit_code,
            "decision": self.decision.value if self.decision else None,
            "reason": self.reason,
            "skipped": self.skipped,
            "duration": round(self.duration, 4),
        }

    def with_execution(self, ex: Execution, verdict: Verdict) -> HandlerRun:
        """This run completed by execution ``ex`` and its ``verdict`` (a new value)."""
        return replace(
            self,
            outcome=verdict.outcome,
            failure=verdict.failure,
            exit_code=ex.exit_code,
            stdout=ex.stdout,
            stderr=ex.stderr,
            truncated=ex.truncated,
            duration=ex.duration,
            decision=verdict.decision,
            reason=verdict.reason,
            finished=ex.finished,
            verdict=verdict,
        )


@dataclass(frozen=True)
class EventResult:
    """Everything one event's hooks decided.

    ``blocked``: some run stopped the event's action (a blocking error, JSON
    ``decision:"block"`` or ``permissionDecision:"deny"`` where the event can block).
    ``decision``: permission decisions combined deny > defer > ask > allow, a blocking error
    counting as deny. ``reason``: why it blocked or decided; on events that cannot block
    (PostToolUse…) the exit-2 stderr or JSON ``reason`` meant for Claude. ``stop``: a hook
    asked to stop Claude (``continue: false``).
    """

    event: str
    runs: tuple[HandlerRun, ...]
    blocked: bool
    decision: Decision | None
    reason: str | None
    additional_context: tuple[str, ...]
    updated_input: dict[str, Any] | None
    stop: bool = False
    stop_reason: str | None = None
    duration: float = 0.0
    system_messages: tuple[str, ...] = ()

    @property
    def ran(self) -> tuple[HandlerRun, ...]:
        """The runs that actually executed a handler."""
        return tuple(r for r in self.runs if r.outcome is not None)


@dataclass(frozen=True)
class _Input:
    """What every handler of one firing sees: the input, its bytes, the environment."""

    spec: EventSpec
    data: Mapping[str, Any]
    body: bytes
    unserializable: str | None
    value: str
    env: Mapping[str, str]
    root: str


@dataclass(frozen=True)
class _Job:
    """One planned execution: the handler, its resolved options, its plugin root."""

    index: int
    handler: Handler
    options: HandlerOptions
    plugin_root: str | None


def _prepare(
    spec: EventSpec,
    payload: Mapping[str, Any],
    tool_use_id: str | None,
    project_dir: str | os.PathLike[str] | None,
    environ: Mapping[str, str] | None,
) -> _Input:
    root = os.fspath(project_dir) if project_dir is not None else os.getcwd()
    base_env = os.environ if environ is None else environ
    env = {k: v for k, v in base_env.items() if not k.startswith("OTEL_")}
    env["CLAUDE_PROJECT_DIR"] = root
    data: dict[str, Any] = {
        "session_id": "mcpmini",
        "transcript_path": "",
        "cwd": root,
        "hook_event_name": spec.name,
    }
    if tool_use_id is not None and spec.tool_use_id:
        data["tool_use_id"] = tool_use_id
    data.update(payload)
    value = data.get(spec.matcher_field, "") if spec.matcher_field else ""
    if spec.match_basename and isinstance(value, str):
        value = value.replace("\\", "/").rsplit("/", 1)[-1]
    try:
        body, unserializable = json.dumps(data, ensure_ascii=False).encode("utf-8"), None
    except (TypeError, ValueError) as exc:
        body, unserializable = b"", f"hook input cannot be serialized: {exc}"
    return _Input(
        spec, data, body, unserializable, value if isinstance(value, str) else str(value), env, root
    )


def _groups(hooks: Hooks, event: str) -> tuple[list[HookMatcher], set[tuple[Any, ...]]]:
    """The event's matcher groups and the session's ``once`` memory."""
    if not isinstance(hooks, HookSettings) and any(
        isinstance(g, Mapping) for gs in hooks.values() for g in gs
    ):
        # Raw settings groups ({"matcher": ..., "hooks": [{"type": ...}]}): validate them.
        hooks = load_settings([("project", {"hooks": hooks})], strict=False)
    if isinstance(hooks, HookSettings):
        return hooks.groups(event), hooks.fired_once
    return [g for g in hooks.get(event, []) if isinstance(g, HookMatcher)], set()


def _plan(
    groups: Iterable[HookMatcher], inp: _Input, fired_once: set[tuple[Any, ...]]
) -> tuple[list[HandlerRun], list[_Job]]:
    """A run for every handler of every group (matched or not) and the jobs to execute."""
    spec = inp.spec
    runs: list[HandlerRun] = []
    jobs: list[_Job] = []
    seen: dict[tuple[Any, ...], str] = {}
    for group in groups:
        result = match(group.matcher if spec.matcher_field else None, inp.value, narrow=spec.narrow)
        for handler in group.hooks:
            run = HandlerRun(
                group.source,
                group.matcher,
                result.matched,
                result.rule,
                result.explain(),
                describe(handler),
                handler.type,
                background=handler.options.async_,
            )
            problem = (
                f"matching failed: {result.error}"
                if result.error
                else inp.unserializable
                if result.matched
                else None
            )
            if problem:
                runs.append(_unmatchable(run, problem, spec))
                continue
            skip = (
                _skip_reason(handler, group, inp.data, seen, fired_once, spec)
                if result.matched
                else None
            )
            runs.append(replace(run, skipped=skip))
            if result.matched and skip is None:
                options = handler.options.inherit(group.timeout, group.on_failure)
                jobs.append(_Job(len(runs) - 1, handler, options, group.plugin_root))
    return runs, jobs


def _unmatchable(run: HandlerRun, problem: str, spec: EventSpec) -> HandlerRun:
    """A handler whose matcher could not be evaluated, or whose input cannot be sent."""
    blocks = spec.match_error_blocks  # reference §0.1: PreToolUse, PermissionRequest block
    outcome = HookOutcome.BLOCKING_ERROR if blocks else HookOutcome.NON_BLOCKING_ERROR
    decision = Decision.DENY if blocks else None
    verdict = Verdict(
        outcome,
        FailureKind.NOT_STARTED,
        decision=decision,
        blocks=blocks,
        reason=problem,
        problem=problem,
        rule="unmatchable",
    )
    return replace(
        run,
        outcome=outcome,
        failure=FailureKind.NOT_STARTED,
        decision=decision,
        reason=problem,
        verdict=verdict,
    )


def _execute(
    job: _Job,
    inp: _Input,
    tool_use_id: str | None,
    timeout: float | None,
    mcp_clients: Mapping[str, Client] | None,
) -> tuple[int, Execution, Verdict]:
    handler, spec = job.handler, inp.spec
    limit = job.options.timeout or timeout or spec.default_timeout(handler.type)
    env = dict(inp.env)
    if job.plugin_root:
        env["CLAUDE_PLUGIN_ROOT"] = job.plugin_root
    ex = execute(
        handler,
        inp.data,
        tool_use_id=tool_use_id,
        env=env,
        cwd=inp.root,
        timeout=limit,
        mcp_clients=mcp_clients,
        body=inp.body,
    )
    on_failure = job.options.on_failure or OnFailure.CONTINUE
    callback = handler.type is HandlerType.CALLBACK
    return job.index, ex, classify(ex, spec, on_failure=on_failure, callback=callback)


def run_hooks(
    hooks: Hooks,
    event: str,
    payload: Mapping[str, Any],
    *,
    tool_use_id: str | None = None,
    project_dir: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
    timeout: float | None = None,
    mcp_clients: Mapping[str, Client] | None = None,
) -> EventResult:
    """Run every handler of ``event`` whose matcher fires on ``payload``; return the result.

    ``hooks`` may also map events to raw settings groups (dicts), validated as settings on
    every call (build them once with :func:`load_settings` to validate once).
    ``payload`` holds the event's own input fields (``tool_name``, ``tool_input``, …);
    common fields (``session_id``, ``cwd``, ``hook_event_name``…) are filled in when
    absent. ``environ`` (default: this process's environment) is what hook processes see,
    plus ``CLAUDE_PROJECT_DIR`` = ``project_dir`` (default: the current directory).
    ``timeout`` replaces the event's default for handlers that set none. ``mcp_clients``
    maps server names to connected clients for ``mcp_tool`` handlers.
    Raises ``ConfigError`` for an unknown event.
    """
    spec = event_spec(event)
    started = time.perf_counter()
    groups, fired_once = _groups(hooks, event)
    inp = _prepare(spec, payload, tool_use_id, project_dir, environ)
    runs, jobs = _plan(groups, inp, fired_once)
    if jobs:
        # One handler runs in this thread; several run in parallel threads.
        def work(job: _Job) -> tuple[int, Execution, Verdict]:
            return _execute(job, inp, tool_use_id, timeout, mcp_clients)

        if len(jobs) == 1:
            done = [work(jobs[0])]
        else:
            with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
                done = list(pool.map(work, jobs))
        for index, ex, verdict in done:
            runs[index] = runs[index].with_execution(ex, verdict)
    return _combine(event, tuple(runs), time.perf_counter() - started)


def _skip_reason(
    handler: Handler,
    group: HookMatcher,
    data: Mapping[str, Any],
    seen: dict[tuple[Any, ...], str],
    fired_once: set[tuple[Any, ...]],
    spec: EventSpec,
) -> str | None:
    options = handler.options
    if options.if_:
        if not spec.if_evaluated:
            return f"'if' is not evaluated on {spec.name}; such a handler never runs"
        tool_input = data.get("tool_input") or {}
        command = tool_input.get("command") if isinstance(tool_input, Mapping) else None
        unparseable = isinstance(command, str) and split_command(command) is None
        if not unparseable and not rule_matches(  # an unparseable command fails open: run
            parse_rule(options.if_),
            str(data.get("tool_name", "")),
            tool_input,
            cwd=str(data.get("cwd") or ""),
        ):
            return f"'if' rule {options.if_} does not match"
    identity = handler.identity()
    if identity is None:  # a callback: never deduplicated, never 'once'
        return None
    if options.once:
        key = (group.source, group.path, identity)
        if key in fired_once:
            return "once: already ran in this session"
        fired_once.add(key)
    if options.async_:
        return None
    if group.kind in SETTINGS_KINDS:
        if identity in seen:
            return f"duplicate of the same handler in {seen[identity]}; runs once"
        seen[identity] = group.source
    return None


def _combine(event: str, runs: tuple[HandlerRun, ...], duration: float) -> EventResult:
    counted = [r for r in runs if r.verdict is not None and not r.background]
    verdicts = [r.verdict for r in counted if r.verdict is not None]
    blocked = any(v.blocks for v in verdicts)
    decision = combine_decisions(v.decision for v in verdicts)
    reason = None
    for v in verdicts:
        # a non-blocking error's problem is for the transcript, never a reason Claude is given
        # (observed in Claude Code 2.1.332: a PostToolUse exit 1 sends the model nothing)
        quiet = v.outcome is HookOutcome.NON_BLOCKING_ERROR
        if (blocked and v.blocks) or (
            not blocked and not quiet and v.decision == decision and v.reason
        ):
            reason = v.reason
            break
    if reason is None:  # events that cannot block still pass exit-2 stderr / a block reason on
        reason = next(
            (
                v.reason
                for v in verdicts
                if v.reason
                and (
                    v.outcome is HookOutcome.BLOCKING_ERROR
                    or (v.output or {}).get("decision") == "block"
                )
            ),
            None,
        )
    updated = [r for r in counted if r.verdict and r.verdict.updated_input is not None]
    last = max(updated, key=lambda r: r.finished) if updated else None  # last finisher wins
    stops = [v for v in verdicts if v.stop]
    return EventResult(
        event=event,
        runs=runs,
        blocked=blocked,
        decision=decision,
        reason=reason,
        additional_context=tuple(c for v in verdicts for c in v.context),
        updated_input=last.verdict.updated_input if last and last.verdict else None,
        stop=bool(stops),
        stop_reason=next((v.stop_reason for v in stops if v.stop_reason), None),
        duration=duration,
        system_messages=tuple(
            v.output["systemMessage"]
            for v in verdicts
            if v.output and isinstance(v.output.get("systemMessage"), str)
        ),
    )
