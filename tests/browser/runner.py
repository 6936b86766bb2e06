"""Running notebooks in JupyterLab in a real browser: what the page is asked, how a notebook
is opened and run, and how each widget is exercised. Shared by the test modules of both
editions (``test_lab.py``: Japanese, ``test_lab_en.py``: English).

For each notebook: open it, run all cells, and check that no cell produced an error and no
widget failed to render (a widget that does not render shows ``VBox(children=…`` or
"Error displaying widget"). Then, for every widget, change one control the way a learner
would (arrow key on a slider, click on a checkbox, toggle or radio button, a click on a
button, the next dropdown option, a typed character) and check that its report changes and,
when it draws one, its plot changes too. A control whose change leaves the report as it was
costs a wait of ``CHANGE_MS``, so the controls that act (buttons) come before those that
only set a value (dropdowns, text). Screenshots of each widget before and after go to
``tests/browser/screenshots/`` (ignored).

The notebooks are run a few at a time in separate pages (each page has its own kernel and
workspace), a finished one making room for the next. Every wait is bounded and waits for a
condition.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from .conftest import REPO, SHOTS, Lab

PARALLEL = 3  # pages (kernels) at a time; the CI machine has 2 cores
OPEN_MS = 120_000  # the page is loaded and the kernel idle
RUN_MS = 300_000  # all cells have run
CHANGE_MS = 30_000  # a widget's report redrawn after one interaction
PLOT_MS = 10_000  # its plot redrawn, once the report has changed

#: The folders of each edition whose notebooks the browser runs.
EDITION_FOLDERS = {"ja": ("notebooks", "exercises"), "en": ("en/notebooks", "en/exercises")}


def notebooks(edition: str) -> list[str]:
    """The notebooks of ``edition`` to check, as paths relative to the repository."""
    found = [p for folder in EDITION_FOLDERS[edition] for p in REPO.glob(f"{folder}/**/*.ipynb")]
    # comma-separated substrings, to rerun a few notebooks while editing
    only = [o for o in os.environ.get("BROWSER_NOTEBOOKS", "").split(",") if o] or [""]
    return sorted(
        str(p.relative_to(REPO))
        for p in found
        if ".ipynb_checkpoints" not in p.parts and any(o in str(p.relative_to(REPO)) for o in only)
    )


# --- what the page is asked ---------------------------------------------------------------

PROGRESS_JS = """() => {
  const cells = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell')];
  const prompts = cells.map(c => (c.querySelector('.jp-InputArea-prompt') || {}).textContent || '');
  const error = [...document.querySelectorAll('.jp-OutputArea-output')].some(o =>
      /Traceback \\(most recent call last\\)|^\\s*Cell In\\[\\d+\\]/m.test(o.textContent));
  return {cells: cells.length, running: prompts.filter(p => p.includes('*')).length,
          done: prompts.filter(p => /\\[\\d+\\]/.test(p)).length, error};
}"""

# Outputs of the cells themselves, not the outputs nested inside an Output widget.
PROBLEMS_JS = """() => {
  const top = [...document.querySelectorAll('.jp-Cell-outputArea .jp-OutputArea-output')]
      .filter(o => !o.parentElement.closest('.jupyter-widgets'));
  const problems = [];
  top.forEach((o, i) => {
    const text = o.textContent || '';
    const mime = o.getAttribute('data-mime-type') || '';
    if (mime === 'application/vnd.jupyter.stderr'
        && /Traceback \\(most recent call last\\)|^\\s*Cell In\\[\\d+\\]|^\\w*(Error|Exception)\\b/m.test(text))
      problems.push('error output: ' + text.trim().split('\\n').slice(-1)[0].slice(0, 200));
    if (/Error displaying widget|Failed to load model class/.test(text))
      problems.push('widget failed to render: ' + text.slice(0, 120));
    if (mime === 'text/plain' && /^(VBox|HBox|IntSlider|Output|HTML)\\(/.test(text.trim()))
      problems.push('widget shown as text only: ' + text.slice(0, 80));
    if (mime === 'application/vnd.jupyter.widget-view+json' && !o.querySelector('.jupyter-widgets'))
      problems.push('widget output with no widget in it');
  });
  return problems;
}"""

# One mark per top-level widget, so the Python side can address each with a locator.
MARK_WIDGETS_JS = """() => {
  const roots = [...document.querySelectorAll('.jp-Cell-outputArea .jp-OutputArea-output')]
      .filter(o => !o.parentElement.closest('.jupyter-widgets'))
      .map(o => o.querySelector(':scope > .jupyter-widgets, .jupyter-widgets'))
      .filter(Boolean);
  roots.forEach((r, i) => r.setAttribute('data-course-widget', String(i)));
  return roots.length;
}"""

# A widget's report: the course widgets' live <pre> report, or else the text of every HTML
# part of the widget (other tracks' widgets, e.g. a quiz page); its plot: the image inside.
REPORT_JS = """(r) => {
  const pre = r.querySelector('.widget-html-content pre');
  if (pre) return pre.textContent;
  const parts = [...r.querySelectorAll('.widget-html-content')].map(e => e.textContent);
  return parts.length ? parts.join('\\n') : null;
}"""
STATE_JS = f"""(root) => {{
  const img = root.querySelector('.jp-OutputArea-output img');
  return {{report: ({REPORT_JS})(root), plot: img ? img.getAttribute('src') : null}};
}}"""


# Which widget messages the kernel has finished: every comm message the page sends is noted,
# and so is the kernel's "idle" status whose parent is that message (ipykernel sends it after
# the handler's updates, which the page applies in order). After a control is changed, the
# test waits until every message sent since has been handled, then reads the report: a control
# that does not change the report costs one round trip, not a fixed wait. Needs
# ``--LabApp.expose_app_in_browser`` (conftest).
WATCH_KERNEL_JS = """() => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  window.__sent = []; window.__handled = new Set();
  kernel.anyMessage.connect((_, {msg, direction}) => {
    if (direction === 'send' && msg.header.msg_type === 'comm_msg')
      window.__sent.push(msg.header.msg_id);
    if (direction === 'recv' && msg.header.msg_type === 'status'
        && msg.content.execution_state === 'idle' && msg.parent_header)
      window.__handled.add(msg.parent_header.msg_id);
  });
}"""
SENT_JS = "() => window.__sent.length"
# The report changed, or every widget message sent since ``n`` has been handled.
SETTLED_JS = f"""([r, old, n]) => ({REPORT_JS})(r) !== old
  || (window.__sent.length > n && window.__sent.slice(n).every(id => window.__handled.has(id)))"""


@dataclass
class WidgetCheck:
    """What happened to one widget: the control moved, and whether report and plot changed."""

    index: int
    control: str = ""
    report_changed: bool = False
    has_plot: bool = False
    plot_changed: bool = False
    tried: list[str] = field(default_factory=list)


@dataclass
class NotebookRun:
    """The result of running one notebook in the browser."""

    path: str
    problems: list[str] = field(default_factory=list)
    widgets: list[WidgetCheck] = field(default_factory=list)
    seconds: float = 0.0


def _open(context: Any, lab: Lab, path: str, slot: int) -> Any:
    page = context.new_page()
    page.set_default_timeout(OPEN_MS)
    page.goto(f"{lab.url}/lab/workspaces/course-{slot}/tree/{path}?reset&token={lab.token}")
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=OPEN_MS)
    dialog = page.locator(".jp-Dialog .jp-mod-accept")  # "Select Kernel", should it appear
    if dialog.count():
        dialog.first.click()
    # The toolbar says "idle" once before the kernel's socket is connected; the status bar's
    # "| Idle" comes after the connection, when cells can really run.
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-StatusBar-TextItem')]"
        ".some(e => /ipykernel\\) \\| Idle/.test(e.textContent))",
        timeout=OPEN_MS,
        polling=250,
    )
    page.evaluate(WATCH_KERNEL_JS)
    return page


def _menu(page: Any, menu: str, item: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{menu}$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{item}$")).click()


def _run_all(page: Any) -> None:
    """Clear the committed outputs (so a prompt number means "ran now"), then run all."""
    _menu(page, "Edit", "Clear Outputs of All Cells")
    page.wait_for_function(f"() => ({PROGRESS_JS})().done === 0", timeout=OPEN_MS)
    _menu(page, "Run", "Run All Cells")


FINISHED_JS = (
    f"() => {{ const s = ({PROGRESS_JS})(); "
    "return s.cells > 0 && s.running === 0 && (s.done === s.cells || s.error); }"
)


def _wait_done(page: Any, timeout_ms: float = RUN_MS) -> dict[str, Any]:
    page.wait_for_function(FINISHED_JS, timeout=max(1.0, timeout_ms), polling=500)
    return dict(page.evaluate(PROGRESS_JS))


def _candidates(root: Any) -> Iterator[tuple[str, str, Any]]:
    """``(name, kind, locator)``: controls of a widget, in the order a learner would try them."""
    for kind, selector, limit in (
        ("slider", ".noUi-handle", 4),
        ("checkbox", "input[type=checkbox]", 3),
        ("toggle", ".widget-toggle-button:not(.mod-active)", 1),
        ("radio", "input[type=radio]:not(:checked)", 1),
        ("button", "button.jupyter-button", 2),  # before the controls that only set a value
        ("dropdown", "select", 5),
        ("text", "input[type=text]", 2),
    ):
        found = root.locator(selector)
        for i in range(min(found.count(), limit)):
            yield f"{kind} {i}", kind, found.nth(i)


def _act(kind: str, control: Any) -> None:
    """Change ``control`` once: a slider one step up, a click, the next option, a typed 'x'."""
    if kind == "slider":
        control.focus()
        control.press("ArrowRight")
    elif kind in ("checkbox", "toggle", "radio", "button"):
        control.click()
    elif kind == "dropdown":
        # the next option (a multiple select toggles its first option), as the widget's
        # own change listener sees it
        control.evaluate("""e => {
            if (e.multiple) { e.options[0].selected = !e.options[0].selected; }
            else { e.selectedIndex = (e.selectedIndex + 1) % e.options.length; }
            e.dispatchEvent(new Event('change', {bubbles: true})); }""")
    else:
        control.click()
        control.press("End")
        control.type("x")


def _exercise_widget(page: Any, index: int, stem: str) -> WidgetCheck:
    root = page.locator(f"[data-course-widget='{index}']")
    root.scroll_into_view_if_needed()
    check = WidgetCheck(index)
    first = root.evaluate(STATE_JS)
    check.has_plot = first["plot"] is not None
    root.screenshot(path=str(SHOTS / f"{stem}-w{index}-before.png"))
    for name, kind, control in _candidates(root):
        check.tried.append(name)
        before = root.evaluate(STATE_JS)
        sent = page.evaluate(SENT_JS)
        _act(kind, control)
        handle = root.element_handle()
        try:
            page.wait_for_function(
                SETTLED_JS, arg=[handle, before["report"], sent], timeout=CHANGE_MS
            )
        except Exception:
            continue
        if root.evaluate(REPORT_JS) == before["report"]:
            continue  # handled, and the report is as it was: this control does not drive it
        check.report_changed = True
        if check.has_plot:
            try:
                page.wait_for_function(
                    "([r, old]) => { const i = r.querySelector('.jp-OutputArea-output img');"
                    " return i && i.getAttribute('src') !== old; }",
                    arg=[handle, before["plot"]],
                    timeout=PLOT_MS,
                )
                check.plot_changed = True
            except Exception:
                continue
        check.control = name
        break
    root.screenshot(path=str(SHOTS / f"{stem}-w{index}-after.png"))
    return check


def _inspect(page: Any, run: NotebookRun, timeout_ms: float = RUN_MS) -> None:
    state = _wait_done(page, timeout_ms)
    if state["done"] != state["cells"]:
        run.problems.append(f"only {state['done']} of {state['cells']} code cells ran")
    run.problems.extend(page.evaluate(PROBLEMS_JS))
    count = page.evaluate(MARK_WIDGETS_JS)
    stem = run.path.replace("/", "__").removesuffix(".ipynb")
    for i in range(count):
        run.widgets.append(_exercise_widget(page, i, stem))


def run_notebooks(lab: Lab, browser: Any, edition: str) -> dict[str, NotebookRun]:
    """Run every notebook of ``edition`` in up to ``PARALLEL`` pages at once; each result by path.

    A rolling pool: a page is inspected as soon as its notebook has finished (whichever page
    that is) and its slot takes the next notebook, so a slow notebook holds one slot, not a
    batch (measured on a quiet machine: 402 s in batches of three for the Japanese edition).
    """
    SHOTS.mkdir(exist_ok=True)
    paths = notebooks(edition)
    results = {p: NotebookRun(p) for p in paths}
    began = time.monotonic()
    waiting = list(paths)
    free = list(range(PARALLEL))
    running: dict[str, tuple[Any, int, float]] = {}  # path -> (page, slot, run-all deadline)

    def finish(path: str, page: Any, slot: int, left_ms: float) -> None:
        try:
            _inspect(page, results[path], left_ms)
        except Exception as exc:
            results[path].problems.append(f"{type(exc).__name__}: {str(exc)[:300]}")
        finally:
            page.screenshot(path=str(SHOTS / (path.replace("/", "__") + ".png")))
            page.close()
            results[path].seconds = round(time.monotonic() - began, 1)
            free.append(slot)

    while waiting or running:
        while waiting and free:
            path, slot = waiting.pop(0), free.pop(0)
            try:
                page = _open(browser, lab, path, slot)
            except Exception as exc:  # reported per notebook, the others still run
                results[path].problems.append(f"could not open: {exc}")
                free.append(slot)
                continue
            try:
                _run_all(page)
            except Exception as exc:
                results[path].problems.append(f"could not run: {exc}")
                page.close()
                free.append(slot)
                continue
            running[path] = (page, slot, time.monotonic() + RUN_MS / 1000)
        if not running:
            continue
        # the first notebook that has finished (or is past its deadline), else wait a moment
        for path, (page, slot, deadline) in list(running.items()):
            left_ms = (deadline - time.monotonic()) * 1000
            if left_ms <= 0 or page.evaluate(FINISHED_JS):
                del running[path]
                finish(path, page, slot, left_ms)
                break
        else:
            next(iter(running.values()))[0].wait_for_timeout(250)  # a poll interval
    summary = {
        "total_seconds": round(time.monotonic() - began, 1),
        "parallel": PARALLEL,
        "notebooks": [asdict(r) for r in results.values()],
    }
    text = json.dumps(summary, indent=1, ensure_ascii=False)
    (SHOTS / f"summary-{edition}.json").write_text(text)
    return results
