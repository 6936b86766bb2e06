"""Chapter 09: the tables and report lines of the skills chapter, in the learner's language.

Each function runs the runtime (:mod:`mcpmini.skills`) and labels what it returned:
:func:`front_matter_table` reads broken SKILL.md texts and shows the error or warning each one
gets (the runtime's message as it is); :func:`listing_size_table` grows a skill's body and
measures the listing (Proposition 5.2, part 1); :func:`budget_table` shows the listing budget
under the documented settings (``skillListingBudgetFraction``, ``SLASH_COMMAND_TOOL_CHAR_BUDGET``,
the model's window); :func:`listing_lines` and :func:`pair_lines` describe a listing and set
mcpmini's beside Claude Code's; :func:`reattach_table` lists what comes back after compaction.
Every word is a :class:`~mcpmini.course.language.Text` of :data:`WORDS`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..language import Text
from .tables import frame

__all__ = [
    "BROKEN_SKILLS",
    "WORDS",
    "budget_rows",
    "budget_table",
    "front_matter_rows",
    "front_matter_table",
    "listing_lines",
    "listing_size_table",
    "pair_lines",
    "reattach_table",
]

#: Every fixed text of the chapter's tables and lines.
WORDS: dict[str, Text] = {
    "case": Text("壊し方", "what is broken"),
    "kind": Text("重さ", "severity"),
    "line": Text("行", "line"),
    "field": Text("欄", "field"),
    "message": Text("ランタイムの文", "the runtime's message"),
    "body_lines": Text("本文の行数", "body lines"),
    "body_tokens": Text("本文のトークン数", "body tokens"),
    "listing_chars": Text("一覧の文字数", "listing characters"),
    "setting": Text("設定", "setting"),
    "budget": Text("予算（文字）", "budget (characters)"),
    "name": Text("スキル", "skill"),
    "status": Text("戻り方", "comes back"),
    "tokens": Text("添付されるトークン数", "tokens attached"),
    "original": Text("本文のトークン数", "body tokens"),
    "listing_size": Text(
        "一覧の文字数: {chars} / 予算 {budget}", "listing: {chars} of {budget} characters"
    ),
    "dropped": Text("説明を外されたもの: {names}", "descriptions dropped: {names}"),
    "kept": Text("名前が残ったもの: {kept} / {total}", "names kept: {kept} of {total}"),
    "cut": Text(
        "{name}: 元の説明 {original} 文字 → 一覧に載るのは {kept} 文字（切り詰め: {truncated}）",
        "{name}: a description of {original} characters → {kept} in the listing "
        "(truncated: {truncated})",
    ),
    "pair_head": Text("--- {label}: {chars} 文字", "--- {label}: {chars} characters"),
    "long_line": Text("{start} …（{chars} 文字）", "{start} … ({chars} characters)"),
    "same": Text(
        "同梱のスキルの行を除けば同じ: {same}", "the same apart from the bundled skill: {same}"
    ),
    "yes": Text("はい", "yes"),
    "no": Text("いいえ", "no"),
    # the broken SKILL.md texts of section 1
    "unclosed": Text("閉じていない [", "an unclosed ["),
    "wrong_type": Text("型の違う欄", "a field of the wrong type"),
    "unknown_field": Text("知らない欄", "an unknown field"),
    "error": Text("エラー", "error"),
    "warning": Text("警告", "warning"),
    # the listing budget under each setting
    "default": Text(
        "既定（{model}、ウィンドウ {window:,} トークン、1 トークン {cpt} 文字 × 1 %）",
        "the default ({model}, a {window:,}-token window, {cpt} characters a token × 1 %)",
    ),
    "fraction": Text(
        "設定 skillListingBudgetFraction: {fraction}",
        "setting skillListingBudgetFraction: {fraction}",
    ),
    "variable": Text(
        "環境変数 SLASH_COMMAND_TOOL_CHAR_BUDGET={chars}",
        "variable SLASH_COMMAND_TOOL_CHAR_BUDGET={chars}",
    ),
    "both": Text(
        "両方（skillListingBudgetFraction: {fraction:g} と "
        "SLASH_COMMAND_TOOL_CHAR_BUDGET={chars}）",
        "both (skillListingBudgetFraction: {fraction:g} and "
        "SLASH_COMMAND_TOOL_CHAR_BUDGET={chars})",
    ),
    "model": Text(
        "モデル {model}（ウィンドウ {window:,} トークン、1 トークン {cpt} 文字）",
        "model {model} (a {window:,}-token window, {cpt} characters a token)",
    ),
    # what comes back after compaction
    "whole": Text("まるごと", "whole"),
    "cut_status": Text("切り詰め", "cut"),
    "dropped_status": Text("脱落", "dropped"),
}

#: The SKILL.md texts section 1 breaks, by the key of their label in :data:`WORDS`.
BROKEN_SKILLS: dict[str, str] = {
    "unclosed": "---\ndescription: x\nallowed-tools: [Read, Grep\n---\nbody\n",
    "wrong_type": "---\ndescription: x\ndisable-model-invocation: maybe\n---\nbody\n",
    "unknown_field": "---\ndescription: x\ncolour: blue\n---\nbody\n",
}


def front_matter_rows() -> list[dict[str, Any]]:
    """Each text of :data:`BROKEN_SKILLS` through :func:`mcpmini.skills.parse_skill`: an error
    (``ConfigError``, with its line and field) or the warnings of a skill that still loads."""
    from ...errors import ConfigError
    from ...skills import parse_skill

    rows = []
    for key, text in BROKEN_SKILLS.items():
        try:
            skill = parse_skill(text, source=f"{key}/SKILL.md")
        except ConfigError as exc:
            rows.append(
                {
                    "case": WORDS[key],
                    "kind": WORDS["error"],
                    "line": exc.line,
                    "field": exc.path or "-",
                    "message": exc.message,
                }
            )
            continue
        for warning in skill.warnings:
            rows.append(
                {
                    "case": WORDS[key],
                    "kind": WORDS["warning"],
                    "line": warning.line,
                    "field": warning.path or "-",
                    "message": warning.message,
                }
            )
    return rows


def front_matter_table() -> Any:
    """:func:`front_matter_rows` as a labelled ``DataFrame``."""
    return frame(
        front_matter_rows(), {k: WORDS[k] for k in ("case", "kind", "line", "field", "message")}
    )


def listing_size_table(line_counts: Iterable[int] = (1, 10, 100, 1000)) -> Any:
    """A skill whose body is ``n`` lines for each ``n`` of ``line_counts``: the body's tokens
    and the size of the listing the model sees (it does not grow with the body)."""
    from ...agent import estimate_tokens
    from ...skills import build_listing, parse_skill

    rows = []
    for n in line_counts:
        body = "Do one careful step and report it.\n" * n
        skill = parse_skill(
            f"---\ndescription: A skill whose body we keep growing.\n---\n{body}", name="grow"
        )
        rows.append(
            {
                "body_lines": n,
                "body_tokens": estimate_tokens(skill.body),
                "listing_chars": build_listing([skill]).chars,
            }
        )
    return frame(rows, {k: WORDS[k] for k in ("body_lines", "body_tokens", "listing_chars")})


def budget_rows(
    *, fraction: float = 0.001, chars: int = 900, small_model: str = "claude-sonnet-4-5"
) -> list[dict[str, Any]]:
    """The listing budget (:func:`mcpmini.skills.listing_budget`) under the default, the
    setting ``skillListingBudgetFraction`` = ``fraction``, the variable
    ``SLASH_COMMAND_TOOL_CHAR_BUDGET`` = ``chars``, both at once (the variable wins), and a
    model with a smaller window (``small_model``, 200,000 tokens)."""
    from ...skills.listing import (
        DEFAULT_CONTEXT_WINDOW,
        DEFAULT_MODEL,
        listing_budget,
        model_chars_per_token,
    )

    cpt = model_chars_per_token(DEFAULT_MODEL)
    window = DEFAULT_CONTEXT_WINDOW
    small_cpt, small_window = model_chars_per_token(small_model), 200_000
    return [
        {
            "setting": WORDS["default"].format(model=DEFAULT_MODEL, window=window, cpt=cpt),
            "budget": listing_budget(window, chars_per_token=cpt),
        },
        {
            "setting": WORDS["fraction"].format(fraction=fraction),
            "budget": listing_budget(window, chars_per_token=cpt, fraction=fraction),
        },
        {
            "setting": WORDS["variable"].format(chars=chars),
            "budget": listing_budget(window, chars_per_token=cpt, budget_chars=chars),
        },
        {
            "setting": WORDS["both"].format(fraction=fraction, chars=chars),
            "budget": listing_budget(
                window, chars_per_token=cpt, fraction=fraction, budget_chars=chars
            ),
        },
        {
            "setting": WORDS["model"].format(model=small_model, window=small_window, cpt=small_cpt),
            "budget": listing_budget(small_window, chars_per_token=small_cpt),
        },
    ]


def budget_table(**kwargs: Any) -> Any:
    """:func:`budget_rows` as a labelled ``DataFrame``."""
    return frame(budget_rows(**kwargs), {k: WORDS[k] for k in ("setting", "budget")})


def listing_lines(listing: Any, wordy: Any | None = None) -> list[str]:
    """What a :class:`~mcpmini.skills.Listing` shows over its budget: its size against the
    budget, the skills whose descriptions were dropped, the names kept; and for ``wordy`` (a
    :class:`~mcpmini.skills.ListingEntry`) how its description was cut."""
    dropped = [e.name for e in listing.entries if e.dropped]
    lines = [
        str(WORDS["listing_size"].format(chars=listing.chars, budget=listing.budget_chars)),
        str(WORDS["dropped"].format(names=dropped)),
        str(WORDS["kept"].format(kept=len(listing.entries), total=len(listing.entries))),
    ]
    if wordy is not None:
        lines.append(
            str(
                WORDS["cut"].format(
                    name=wordy.name,
                    original=wordy.original_chars,
                    kept=len(wordy.text),
                    truncated=WORDS["yes" if wordy.truncated else "no"],
                )
            )
        )
    return lines


def pair_lines(mine: str, real: str, version: str, *, width: int = 100) -> list[str]:
    """mcpmini's listing and Claude Code ``version``'s, one after the other, each under a line
    with its size (a line longer than ``width`` shortened with its length), then whether the
    two are the same once Claude Code's bundled skill ``plugin-authoring`` is set aside."""
    lines = []
    for label, text in (("mcpmini", mine), (f"Claude Code {version}", real)):
        lines.append(str(WORDS["pair_head"].format(label=label, chars=f"{len(text):,}")))
        for line in text.splitlines():
            if len(line) <= width:
                lines.append(line)
            else:
                lines.append(
                    str(WORDS["long_line"].format(start=line[:80], chars=f"{len(line):,}"))
                )
    bundled = [line for line in real.splitlines() if line.startswith("- plugin-authoring:")]
    same = real.replace("\n" + bundled[0], "") == mine if bundled else real == mine
    lines.append(str(WORDS["same"].format(same=WORDS["yes" if same else "no"])))
    return lines


_STATUS = {"whole": "whole", "cut": "cut_status", "dropped": "dropped_status"}


def reattach_table(result: Any) -> Any:
    """The items of a :func:`mcpmini.skills.reattach` result, newest first: the skill, how it
    comes back (whole, cut, dropped), the tokens attached and its body's tokens."""
    rows: Sequence[dict[str, Any]] = [
        {
            "name": item.name,
            "status": WORDS[_STATUS.get(item.status.value, "whole")],
            "tokens": item.tokens,
            "original": item.original_tokens,
        }
        for item in result.items
    ]
    return frame(rows, {k: WORDS[k] for k in ("name", "status", "tokens", "original")})
