"""The CCA-F exam screen in JupyterLab in a real browser, in both languages.

The screen test draws the bank's longest single-answer item and its longest "choose two"
item (the hardest layout), opens the widget in Japanese and in English, and measures in the
page: no two options' boxes overlap, every button and the language switch lie fully inside the
widget with no text cut off; a third tick in the "choose two" item is refused with a message
on screen; the switch redraws the item in the other language. Screenshots of each state are
kept in ``tests/browser/screenshots/`` (the artefacts of the run).

The timer test runs two exams: a short one that submits itself with no click, and one whose
clock moves by itself until Submit locks its answers. Every wait is for a condition on the
page, bounded only so that a broken run ends.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import SHOTS, Lab
from .runner import MARK_WIDGETS_JS, RUN_MS, _open, _run_all, _wait_done

pytestmark = pytest.mark.timeout(900)

#: How long a condition may take to appear on a loaded machine (a bound, not a pause).
WAIT_MS = RUN_MS


def _notebook(lab: Lab, name: str, cells: list[str]) -> str:
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "source": s,
                "outputs": [],
                "execution_count": None,
            }
            for s in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    (lab.root / name).write_text(json.dumps(notebook), encoding="utf-8")
    return name


SCREEN_CELL = """\
from mcpmini.course.ccaf import ExamSession, exam_mode, load_bank

bank = load_bank()
def longest(items):
    return max(items, key=lambda it: sum(len(o.text.lang("{lang}")) for o in it.options))
single = longest([it for it in bank.items if it.pick == 1])
double = longest([it for it in bank.items if it.pick == 2])
exam_mode(session=ExamSession(bank, items=[single, double], lang="{lang}", minutes=60),
          record=False)
"""

# Every box the layout must keep apart or inside: option rows pairwise apart; each button
# and the switch inside the widget, none of its text cut off (scrollWidth beyond clientWidth).
LAYOUT_JS = """(root) => {
  const box = e => { const r = e.getBoundingClientRect();
                     return {x: r.left, y: r.top, r: r.right, b: r.bottom}; };
  const outer = box(root);
  const rows = [...root.querySelectorAll('.ccaf-option')].map(box);
  const overlaps = [];
  rows.forEach((a, i) => rows.forEach((b, j) => {
    if (j <= i) return;
    const w = Math.min(a.r, b.r) - Math.max(a.x, b.x), h = Math.min(a.b, b.b) - Math.max(a.y, b.y);
    if (w > 1 && h > 1) overlaps.push([i, j]);
  }));
  const controls = [...root.querySelectorAll('.ccaf-button, .ccaf-switch button')];
  const cut = controls.filter(e => {
    const r = box(e);
    return r.x < outer.x - 1 || r.r > outer.r + 1 || r.y < outer.y - 1 || r.b > outer.b + 1
        || e.scrollWidth > e.clientWidth + 1 || r.r - r.x < 8;
  }).map(e => e.textContent);
  const message = (root.querySelector('.ccaf-message') || {}).innerText || '';
  return {rows: rows.length, overlaps, cut, controls: controls.length,
          text: root.innerText, message};
}"""

WORDS = {
    "ja": {
        "next": "次へ ▶",
        "refused": "2 つ選びます",
        "other": "English",
        "submit": "提出して採点",
    },
    "en": {
        "next": "Next ▶",
        "refused": "Choose 2 for this item",
        "other": "Japanese",
        "submit": "Submit",
    },
}


def _layout(page: Any, root: Any, shot: str) -> dict[str, Any]:
    root.scroll_into_view_if_needed()
    root.screenshot(path=str(SHOTS / shot))
    state: dict[str, Any] = root.evaluate(LAYOUT_JS)
    return state


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_the_exam_screen_keeps_options_apart_buttons_whole_and_one_language(
    lab: Lab, browser: Any, lang: str
) -> None:
    SHOTS.mkdir(exist_ok=True)
    words = WORDS[lang]
    path = _notebook(lab, f"exam_screen_{lang}.ipynb", [SCREEN_CELL.replace("{lang}", lang)])
    page = _open(browser, lab, path, 10 + (lang == "en"))
    try:
        _run_all(page)
        _wait_done(page)
        assert page.evaluate(MARK_WIDGETS_JS) == 1
        root = page.locator(
            "[data-course-widget='0'].ccaf-exam, [data-course-widget='0'] .ccaf-exam"
        ).first
        page.wait_for_function(
            "(r) => r.querySelectorAll('.ccaf-option').length === 4",
            arg=root.element_handle(),
            timeout=WAIT_MS,
        )
        first = _layout(page, root, f"exam_screen_{lang}_single.png")
        assert first["rows"] == 4 and first["overlaps"] == [] and first["cut"] == []
        assert first["controls"] == 6  # four buttons and the two languages of the switch
        # the choose-two item: five rows apart, and a third tick refused with a message
        root.locator(".ccaf-button", has_text=words["next"]).click()
        page.wait_for_function(
            "(r) => r.querySelectorAll('.ccaf-option').length === 5",
            arg=root.element_handle(),
            timeout=WAIT_MS,
        )
        boxes = root.locator(".ccaf-option input[type=checkbox]")
        for n in range(3):
            boxes.nth(n).click()
        page.wait_for_function(
            "([r, w]) => (r.querySelector('.ccaf-message') || {innerText: ''}).innerText"
            ".includes(w)",
            arg=[root.element_handle(), words["refused"]],
            timeout=WAIT_MS,
        )
        second = _layout(page, root, f"exam_screen_{lang}_choose_two.png")
        assert second["rows"] == 5 and second["overlaps"] == [] and second["cut"] == []
        assert [boxes.nth(n).is_checked() for n in range(5)] == [True, True, False, False, False]
        # one language at a time, and the switch redraws in the other
        root.locator(".ccaf-switch button", has_text=words["other"]).click()
        other = "en" if lang == "ja" else "ja"
        page.wait_for_function(
            "([r, w]) => [...r.querySelectorAll('.ccaf-button')].some(b => b.innerText === w)",
            arg=[root.element_handle(), WORDS[other]["submit"]],
            timeout=WAIT_MS,
        )
        third = _layout(page, root, f"exam_screen_{lang}_switched_to_{other}.png")
        assert third["overlaps"] == [] and third["cut"] == []
        assert words["submit"] not in third["text"]
    finally:
        page.screenshot(path=str(SHOTS / f"exam_screen_{lang}.png"))
        page.close()


EXAM_CELLS = [
    "from mcpmini.course.ccaf import exam_mode\n"
    "exam_mode(2, seed=1, minutes=0.1, record=False, lang='en')",  # 6 s: submits by itself
    "exam_mode(2, seed=2, minutes=30, record=False, lang='en')",
]
EXAM_STATE_JS = """(root) => ({
  header: (root.querySelector('.ccaf-header') || {}).textContent || '',
  report: (root.querySelector('.ccaf-summary') || {}).textContent || '',
  inputs: [...root.querySelectorAll('.ccaf-option input[type=checkbox]')].map(e => e.disabled),
})"""


def test_the_exam_timer_runs_without_a_click_and_submitting_locks_the_answers(
    lab: Lab, browser: Any
) -> None:
    path = _notebook(lab, "exam_timer_check.ipynb", EXAM_CELLS)
    page = _open(browser, lab, path, 9)
    try:
        _run_all(page)
        _wait_done(page)
        assert page.evaluate(MARK_WIDGETS_JS) == 2
        timed, other = (page.locator(f"[data-course-widget='{i}']") for i in (0, 1))
        # no click anywhere: the first exam's clock reaches zero and it submits itself; the
        # report and the header's "Time is up" are two updates, so wait for both together
        page.wait_for_function(
            f"(r) => {{ const s = ({EXAM_STATE_JS})(r); return s.report.includes('scaled score')"
            " && s.header.includes('Time is up') && s.inputs.length && s.inputs.every(d => d); }",
            arg=timed.element_handle(),
            timeout=WAIT_MS,
        )
        # the second exam's time left changes with no click, then Submit locks its answers
        first = other.evaluate(EXAM_STATE_JS)["header"]
        page.wait_for_function(
            f"([r, old]) => ({EXAM_STATE_JS})(r).header !== old",
            arg=[other.element_handle(), first],
            timeout=WAIT_MS,
        )
        assert not any(other.evaluate(EXAM_STATE_JS)["inputs"])
        other.locator(".ccaf-option input[type=checkbox]").first.click()
        other.locator(".ccaf-button", has_text="Submit").click()
        page.wait_for_function(
            f"(r) => {{ const s = ({EXAM_STATE_JS})(r); "
            "return s.report.includes('scaled score') && s.inputs.every(d => d); }",
            arg=other.element_handle(),
            timeout=WAIT_MS,
        )
    finally:
        page.screenshot(path=str(SHOTS / "exam_timer_check.png"))
        page.close()
