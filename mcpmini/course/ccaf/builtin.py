"""CCA-F 2.5: built-in tools on a sample repository.

:func:`make_sample_repo` writes the small repository the notebook searches and edits;
:data:`TOOL_TASKS` pairs tasks with the built-in tool that fits, graded by
:func:`grade_tool_choices`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..language import Text

__all__ = [
    "TOOL_TASKS",
    "grade_tool_choices",
    "make_sample_repo",
    "tool_choice_lines",
]


# --- 2.5: built-in tools on a sample repository ----------------------------------------

_SAMPLE = {
    "src/shop/__init__.py": "",
    "src/shop/login.py": (
        "def check_password(user, password):\n"
        "    if not user.verify(password):\n"
        '        raise LoginError("Password is incorrect")\n'
    ),
    "src/shop/payment.py": (
        "from .gateway import charge_card\n\n\n"
        "def pay(order):\n"
        "    if not charge_card(order.card, order.total):\n"
        '        return "Payment declined"\n'
        '    return "ok"\n'
    ),
    "src/shop/gateway.py": "def charge_card(card, amount):\n    return amount < 1000\n",
    "src/shop/refund.py": (
        "from .gateway import charge_card\n\n\n"
        "def refund(order):\n    return charge_card(order.card, -order.total)\n"
    ),
    "tests/test_login.py": "def test_wrong_password_is_refused():\n    assert True\n",
    "tests/test_payment.py": "def test_declined_card():\n    assert True\n",
    "tests/test_refund.py": "def test_refund_is_negative_charge():\n    assert True\n",
    "config/app.yaml": "api:\n  timeout: 30\n  retries: 2\ndb:\n  timeout: 30\n",
    "config/logging.yaml": "level: INFO\n",
    "docs/README.md": "# shop\n\nA toy shop used by the CCA-F track.\n",
}


def make_sample_repo(root: str | Path) -> Path:
    """Write the small sample repository of notebook 2_5 under ``root``; return ``root``."""
    base = Path(root)
    for rel, text in _SAMPLE.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return base


# (the task, the tool to reach for first)
TOOL_TASKS: tuple[tuple[Text, str], ...] = (
    (
        Text(
            "画面に出る「Payment declined」という文言が、どのファイルから来ているか知りたい",
            'Find which file the on-screen text "Payment declined" comes from',
        ),
        "Grep",
    ),
    (
        Text(
            "テストファイル（tests/test_*.py）が全部で何本あるか知りたい",
            "Count the test files (tests/test_*.py)",
        ),
        "Glob",
    ),
    (
        Text(
            "charge_card を呼んでいる箇所をすべて洗い出したい",
            "List every place that calls charge_card",
        ),
        "Grep",
    ),
    (
        Text("config/ の下にある YAML ファイルの一覧がほしい", "List the YAML files under config/"),
        "Glob",
    ),
    (
        Text(
            "login.py の「Password is incorrect」の 1 か所だけを別の文言にしたい",
            'Change the one "Password is incorrect" in login.py to other wording',
        ),
        "Edit",
    ),
    (Text("新しいファイル CHANGELOG.md を作りたい", "Create a new file, CHANGELOG.md"), "Write"),
    (
        Text(
            "Edit が「一致が一意でない」で失敗した。api の timeout だけを 60 にしたい",
            'Edit failed with "not unique"; set only the api timeout to 60',
        ),
        "Read+Write",
    ),
    (
        Text(
            "初めてのリポジトリで、決済の処理がどこから始まるかの入口を探したい",
            "In a repository new to you, find the entry point where payment processing starts",
        ),
        "Grep",
    ),
)

_ROW = Text(
    "{mark} {n} {task}（あなたの答え: {chosen}）", "{mark} {n} {task} (your answer: {chosen})"
)
_NONE = Text("未回答", "none")
_TOTAL = Text("{right}/{total} 正解", "{right}/{total} right")


def grade_tool_choices(answers: Mapping[str, str | None]) -> list[dict[str, Any]]:
    """Grade ``answers`` (task text or its index as a string → tool name) against
    :data:`TOOL_TASKS`. Returns one row per task: ``task`` (in the learner's language),
    ``chosen`` (``None`` when unanswered), ``key`` and ``ok``. Tool names compare
    case-insensitively, spaces ignored.
    """

    def norm(s: str) -> str:
        return s.replace(" ", "").lower()

    rows = []
    for n, (task, key) in enumerate(TOOL_TASKS):
        chosen = answers.get(task.ja, answers.get(task.en, answers.get(str(n))))
        rows.append(
            {
                "task": str(task),
                "chosen": chosen,
                "key": key,
                "ok": chosen is not None and norm(chosen) == norm(key),
            }
        )
    return rows


def tool_choice_lines(answers: Mapping[str, str | None]) -> list[str]:
    """One line per task of :data:`TOOL_TASKS` (○ right, × wrong, – unanswered, the task and
    the answer given), then the total, in the learner's language."""
    rows = grade_tool_choices({k: v for k, v in answers.items() if v})
    lines = []
    for n, row in enumerate(rows):
        mark = "○" if row["ok"] else ("–" if row["chosen"] is None else "×")
        chosen = row["chosen"] if row["chosen"] is not None else _NONE
        lines.append(str(_ROW.format(mark=mark, n=n, task=row["task"], chosen=chosen)))
    lines.append(str(_TOTAL.format(right=sum(r["ok"] for r in rows), total=len(rows))))
    return lines
