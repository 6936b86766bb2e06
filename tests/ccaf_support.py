"""A synthetic CCA-F bank in the real layout, for tests that must not depend on the writers'
items: the real metadata files, and ``per_task`` items for each of the thirty task statements,
spread over the six scenarios, every eighth a multiple-response item, one computed key."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from mcpmini.course.ccaf import BANK_DIR

SCENARIOS = ["support", "codegen", "research", "productivity", "ci", "extraction"]


def text(ja: str, en: str) -> dict[str, str]:
    return {"ja": ja, "en": en}


def item(task: str, n: int, pick: int = 1, scenario: str | None = None) -> dict[str, Any]:
    """Item ``n`` of ``task``: equal-length options, the key's letter cycling A–D."""
    count = 4 if pick == 1 else 5
    letters = "ABCDE"[:count]
    key = [letters[(n + k) % count] for k in range(pick)]
    options = []
    for letter in letters:
        option: dict[str, Any] = {
            "id": letter,
            "text": text(f"選択肢 {letter} の文、{task} の {n}", f"Option {letter} of {task}/{n}"),
        }
        if letter not in key:
            option["rebuttal"] = text(f"{letter} が違う理由", f"why {letter} is wrong")
        options.append(option)
    stem = f"What should you do in case {n} of {task}?" + (" Choose two." if pick == 2 else "")
    return {
        "id": f"t{task.replace('.', '')}-{n}",
        "scenario": scenario or SCENARIOS[(n + int(task[0])) % len(SCENARIOS)],
        "kind": "decision" if n % 5 else "recall",
        "pick": pick,
        "answer": sorted(key),
        "situation": text(f"{task} の状況 {n}。", f"Situation {n} of {task}."),
        "stem": text(f"{task} の {n} でどうするか。" + ("2 つ選べ。" if pick == 2 else ""), stem),
        "options": options,
        "explanation": text(f"{task}/{n} の解説", f"explanation of {task}/{n}"),
    }


def computed_item(task: str) -> dict[str, Any]:
    """An item of ``task`` whose key the runtime computes (``tool_choice: any``)."""
    raw = item(task, 99)
    del raw["answer"]
    raw["id"] = f"t{task.replace('.', '')}-computed"
    raw["compute"] = "tool_choice_any"
    values = ["always_some_tool", "always_named_tool", "may_answer_text", "never_a_tool"]
    for option, value in zip(raw["options"], values, strict=True):
        option["value"] = value
        option.pop("rebuttal", None)
        if value != "always_some_tool":
            option["rebuttal"] = text("違う", "wrong")
    return raw


def make_bank(root: Path, per_task: int = 8) -> Path:
    """Write the synthetic bank under ``root`` and return ``root``."""
    for name in ("tasks.yaml", "scenarios.yaml", "item_schema.yaml"):
        shutil.copy(BANK_DIR / name, root / name)
    (root / "items").mkdir(exist_ok=True)
    import yaml

    tasks = [t["id"] for t in yaml.safe_load((BANK_DIR / "tasks.yaml").read_text())["tasks"]]
    for task in tasks:
        items = [item(task, n, pick=2 if n % 8 == 7 else 1) for n in range(per_task)]
        if task == "2.3":
            items.append(computed_item(task))
        doc = {"task": task, "items": items}
        (root / "items" / f"{task}.yaml").write_text(json.dumps(doc), encoding="utf-8")
    return root
