"""Notebook 10: plugins and the precedence of configuration sources.

:func:`resolution_lines` shows the definition that wins under each reading (Proposition
6.2, Example 6.3) and :func:`resolution_switch` toggles between them; :func:`prop_6_2_rows`
runs random assignments of definitions to sources through
:func:`mcpmini.config.resolve_mcp_servers` (in the given and a shuffled order of sources) and
:func:`mcpmini.config.merge_fields`, and :func:`check_prop_6_2` checks the proposition on
them; :func:`precedence_table` shows the runtime's table of how each mechanism combines;
:func:`manifest_rows` runs ``claude plugin validate``'s verdict (mcpmini's, checked against the
binary) on folders without a ``plugin.json``. Every word is a
:class:`~mcpmini.course.language.Text` of :data:`WORDS`.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..language import Text
from ..report import live_html
from .tables import frame

__all__ = [
    "WORDS",
    "check_prop_6_2",
    "combinations_line",
    "manifest_rows",
    "manifest_table",
    "precedence_table",
    "prop_6_2_rows",
    "prop_6_2_table",
    "resolution_lines",
    "resolution_report",
    "resolution_switch",
    "superset_table",
]

#: Every fixed text of the chapter's tables, lines and widget.
WORDS: dict[str, Text] = {
    "mechanism": Text("仕組み", "mechanism"),
    "combination": Text("重なり方", "combination"),
    "order": Text("優先の順（高い順）", "order (highest first)"),
    "whole": Text("エントリ全体（本物の MCP の規則）", "whole entry (the real MCP rule)"),
    "merge": Text(
        "欄ごとの併合（比較のための仮の規則）", "field merge (hypothetical, for comparison)"
    ),
    "whole_button": Text("エントリ全体", "whole entry"),
    "merge_button": Text("欄ごとの併合", "field merge"),
    "combinations": Text(
        "出所 k 個・欄 f 個なら、欄と出所の対応は最大 k**f 通り。k={k}, f={f} なら {n} 通り",
        "k sources, f fields: at most k**f field-source combinations; k={k}, f={f} gives {n}",
    ),
    "measure": Text("数えたもの", "what was counted"),
    "count": Text("数", "count"),
    "names": Text("勝った定義を調べた名前", "names whose winner was checked"),
    "highest": Text("最上位の出所から来た勝者", "winners from the highest defining source"),
    "equal": Text("その出所の定義とまったく同じ勝者", "winners equal to that source's definition"),
    "order_free": Text(
        "出所の並べ方を変えても同じ勝者", "winners unchanged when the sources are reordered"
    ),
    "novel": Text(
        "欄ごとの併合で、どの出所の定義とも違う結果", "field merges equal to no source's definition"
    ),
    "step": Text("足したフック", "hook added"),
    "blocked": Text("止められた呼び出し", "calls blocked"),
    "superset": Text("前の集合を含む", "contains the set before"),
    "folder": Text("フォルダ", "folder"),
    "target": Text("検証の対象", "validated as"),
    "ok": Text("合格", "passes"),
    "problem": Text("問題（ランタイムの文）", "problems (the runtime's words)"),
    "mark": Text("✓", "✓"),
    "no_mark": Text("✗", "✗"),
    "with_manifest": Text("マニフェストあり", "with its manifest"),
    "skills_only": Text("マニフェストなし、skills/ あり", "no manifest, with skills/"),
    "claude_only": Text("マニフェストなし、.claude/ あり", "no manifest, with .claude/"),
    "hooks_only": Text("マニフェストなし、hooks/ だけ", "no manifest, only hooks/"),
}


# --- whole entry vs field merge (Proposition 6.2, Example 6.3) -----------------------------


def resolution_lines(sources: Any, name: str, mode: str = "whole") -> list[str]:
    """The definition of server ``name`` under ``mode`` "whole" or "merge", field by field.

    ``sources`` is anything :func:`mcpmini.config.resolve_mcp_servers` accepts. Each
    line is ``field = value   ← source``. Raises ``KeyError`` when no source defines
    ``name`` and ``ValueError`` for another mode.
    """
    from ...config import merge_fields, resolve_mcp_servers

    if mode == "whole":
        won = resolve_mcp_servers(sources)[name]
        fields = [(k, v, won.source) for k, v in won.value.items()]
    elif mode == "merge":
        merged = merge_fields(sources)[name]
        fields = [(k, f.value, f.source) for k, f in merged.fields.items()]
    else:
        raise ValueError(f"mode must be 'whole' or 'merge', got {mode!r}")
    return [f"{k:<8} = {json.dumps(v, ensure_ascii=False):<45} ← {src}" for k, v, src in fields]


def resolution_report(sources: Any, name: str) -> str:
    """Both readings of server ``name`` one after the other, each under its heading."""
    parts = []
    for mode in ("whole", "merge"):
        parts.append(f"{WORDS[mode]}:\n" + "\n".join(resolution_lines(sources, name, mode)))
    return "\n\n".join(parts)


def combinations_line(k: int = 5, f: int = 4) -> str:
    """How many field-source combinations a field merge of ``k`` sources and ``f`` fields
    allows (``k**f``)."""
    return str(WORDS["combinations"].format(k=k, f=f, n=k**f))


def resolution_switch(sources: Any, name: str) -> Any:
    """Toggle buttons switching :func:`resolution_lines` between whole entry and merge."""
    import ipywidgets as widgets

    toggle = widgets.ToggleButtons(
        options=[(str(WORDS["whole_button"]), "whole"), (str(WORDS["merge_button"]), "merge")]
    )
    out = widgets.HTML()

    def refresh(_: Any = None) -> None:
        out.value = live_html("\n".join(resolution_lines(sources, name, toggle.value)))

    toggle.observe(refresh, names="value")
    refresh()
    return widgets.VBox([toggle, out])


def precedence_table() -> Any:
    """The runtime's table of same-name handling (``mcpmini.config.PRECEDENCE`` and
    ``COMBINATION``): per mechanism how definitions combine and the sources, highest first."""
    from ...config import COMBINATION, PRECEDENCE

    rows = [
        {
            "mechanism": m.value,
            "combination": COMBINATION[m].value,
            "order": " > ".join(PRECEDENCE[m]),
        }
        for m in PRECEDENCE
    ]
    return frame(rows, {k: WORDS[k] for k in ("mechanism", "combination", "order")}).set_index(
        str(WORDS["mechanism"])
    )


_FIELDS = ("url", "headers", "command", "timeout")
_NAMES = ("db", "search", "notes")


def prop_6_2_rows(trials: int = 2000, seed: int = 62) -> list[dict[str, Any]]:
    """Random assignments of server definitions to the MCP sources, each resolved whole
    (in the sources' precedence order and again with the sources shuffled) and merged field
    by field. One row per (trial, defined name): ``definers`` (highest first), the
    ``winner`` source and whether it is the highest definer, whether the winning definition
    ``equal``\\s that source's own, whether the shuffled order gave the same (``order_free``),
    and whether the field merge produced a definition no source wrote (``novel``)."""
    from ...config import MCP_PRECEDENCE, merge_fields, resolve_mcp_servers

    rng = random.Random(seed)
    rows = []
    for trial in range(trials):
        assignment = {
            source: {
                n: {f: f"{source}-{f}" for f in rng.sample(_FIELDS, rng.randint(1, 3))}
                for n in _NAMES
                if rng.random() < 0.5
            }
            for source in MCP_PRECEDENCE
            if rng.random() < 0.7
        }
        shuffled = list(assignment.items())
        rng.shuffle(shuffled)
        won = resolve_mcp_servers(assignment)
        won_again = resolve_mcp_servers(shuffled)
        merged = merge_fields(assignment)
        for name, entry in won.items():
            definers = [s for s in MCP_PRECEDENCE if name in assignment.get(s, {})]
            written = [defs[name] for defs in assignment.values() if name in defs]
            rows.append(
                {
                    "trial": trial,
                    "name": name,
                    "definers": definers,
                    "winner": entry.source,
                    "highest": entry.source == definers[0],
                    "equal": entry.value == assignment[entry.source][name],
                    "order_free": (won_again[name].source, won_again[name].value)
                    == (entry.source, entry.value),
                    "novel": merged[name].value not in written,
                }
            )
    return rows


def check_prop_6_2(rows: Sequence[Mapping[str, Any]]) -> dict[str, bool]:
    """Proposition 6.2 on :func:`prop_6_2_rows`: for every name defined somewhere, the rule
    adopts the definition of the highest defining source, the same whatever order the sources
    come in, and that definition equals the source's own, field for field."""
    holds = bool(rows) and all(r["highest"] and r["equal"] and r["order_free"] for r in rows)
    return {"6.2": holds}


def prop_6_2_table(rows: Sequence[Mapping[str, Any]]) -> Any:
    """What :func:`prop_6_2_rows` counted, labelled: names checked, winners from the highest
    source, winners equal to its definition, winners unchanged by reordering, and field
    merges that equal no source's definition."""
    counts = [
        ("names", len(rows)),
        ("highest", sum(bool(r["highest"]) for r in rows)),
        ("equal", sum(bool(r["equal"]) for r in rows)),
        ("order_free", sum(bool(r["order_free"]) for r in rows)),
        ("novel", sum(bool(r["novel"]) for r in rows)),
    ]
    return frame(
        [{"measure": WORDS[key], "count": n} for key, n in counts],
        {"measure": WORDS["measure"], "count": WORDS["count"]},
    )


def superset_table(steps: Iterable[tuple[str, str, Iterable[int], bool]]) -> Any:
    """One row per hook added (matcher, the word it blocks), the set of calls blocked after
    it, and whether that set contains the set before (✓ / ✗)."""
    rows = [
        {
            "step": f"{matcher} {word!r}",
            "blocked": sorted(blocked),
            "superset": WORDS["mark" if superset else "no_mark"],
        }
        for matcher, word, blocked, superset in steps
    ]
    return frame(rows, {k: WORDS[k] for k in ("step", "blocked", "superset")})


# --- is plugin.json optional? -----------------------------------------------------------------


def manifest_rows(plugin: Path | str, work: Path | str) -> list[dict[str, Any]]:
    """The verdict of ``claude plugin validate`` (:func:`mcpmini.config.validation.validate`,
    checked against Claude Code 2.1.332) on copies of ``plugin`` made under ``work``: as it
    is, without ``.claude-plugin/plugin.json`` (keeping its ``skills/``), the same with its
    skills under ``.claude/skills/`` instead, and with only its ``hooks/``."""
    from ...config.validation import validate

    source, base = Path(plugin), Path(work)
    copies: list[tuple[str, Path]] = []

    def copy(key: str, keep: Iterable[str], claude: bool = False) -> None:
        target = base / f"{source.name}-{key.replace('_', '-')}"
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        for rel in keep:
            origin = source / rel
            dest = target / (".claude" if claude else "") / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            if origin.is_dir():
                shutil.copytree(origin, dest)
            else:
                shutil.copy2(origin, dest)
        copies.append((key, target))

    copies.append(("with_manifest", source))
    copy("skills_only", ["skills"])
    copy("claude_only", ["skills"], claude=True)
    copy("hooks_only", ["hooks"])
    rows = []
    for key, folder in copies:
        report = validate(folder)
        rows.append(
            {
                "folder": WORDS[key],
                "target": report.target.value,
                "ok": WORDS["mark" if report.success else "no_mark"],
                "problem": "; ".join(
                    p.message for p in report.problems if p.severity.value == "error"
                )
                or "-",
            }
        )
    return rows


def manifest_table(plugin: Path | str, work: Path | str) -> Any:
    """:func:`manifest_rows` as a labelled ``DataFrame``."""
    return frame(
        manifest_rows(plugin, work), {k: WORDS[k] for k in ("folder", "target", "ok", "problem")}
    )
