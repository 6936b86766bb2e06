"""Exercise C.1 (two weather tools whose descriptions must route): the key scores full, each
typical mistake fails the part it should with the reason, broken answers and broken
submissions get a clear answer, practice instances use unseen requests, and the closing
checklist says which ticked items no passing check backs yet."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import nbformat
import pytest
from exercise_support import answer_of

from mcpmini.agent import route
from mcpmini.agent.models import description_words, words
from mcpmini.course import CCAF_IDS, Status, get_exercise, practice
from mcpmini.course.ccaf import (
    CHECKLIST,
    ask,
    checklist_gaps,
    checklist_lines,
    listed_tools,
    quiz_tasks,
)
from mcpmini.course.ccaf.weather import C1_KEY, C1_POOL, C1_REQUESTS
from mcpmini.course.classroom import RowStatus, grade_class, identify_exercise

ROOT = Path(__file__).resolve().parent.parent
SLUG = "C_1_weather_routing"


def _grade(**changes: object) -> dict[str, tuple[Status, str]]:
    answer = copy.deepcopy(C1_KEY)
    answer.update(changes)
    return {r.key: (r.status, r.message) for r in get_exercise("C.1").grade(answer).results}


def _wrong(results: dict[str, tuple[Status, str]]) -> set[str]:
    return {k for k, (status, _) in results.items() if status is Status.INCORRECT}


def test_the_key_scores_full_and_the_template_is_not_attempted():
    ex = get_exercise("C.1")
    assert CCAF_IDS == ("C.1",)
    assert ex.grade(ex.answer_key()).score == ex.max_score == 16
    assert ex.grade(ex.template()).status is Status.NOT_ATTEMPTED


def test_the_key_routes_every_request_through_the_listed_descriptions():
    tools = listed_tools(C1_KEY)
    assert [t["name"] for t in tools] == ["get_weather", "get_weather_history"]
    assert all(route(text, tools).tool == tool for text, tool in C1_REQUESTS + C1_POOL)


def test_the_graded_requests_include_near_misses_sharing_the_other_tools_words():
    tools = {t["name"]: t for t in listed_tools(C1_KEY)}
    other = {"get_weather": "get_weather_history", "get_weather_history": "get_weather"}
    near = [
        text
        for text, tool in C1_REQUESTS
        if words(text) & description_words(tools[other[tool]]["description"])[0]
    ]
    assert "what was the temperature in Nagoya yesterday" in near and len(near) >= 5


def test_identical_vague_descriptions_tie_and_send_past_requests_to_the_first_tool():
    results = _grade(get_weather="Weather for a city.", get_weather_history="Weather for a city.")
    status, message = results["routing.02"]
    assert status is Status.INCORRECT
    assert "get_weather に行きました" in message and "同点" in message
    assert {"get_weather.boundary", "get_weather_history.boundary"} <= _wrong(results)


def test_a_redirect_written_as_a_plain_sentence_is_not_read_as_a_boundary():
    results = _grade(
        get_weather="Current weather for one city right now. Input: city. "
        "For past weather use get_weather_history."
    )
    status, message = results["get_weather.boundary"]
    assert status is Status.INCORRECT and "For past weather use get_weather_history." in message


def test_a_missing_boundary_fails_the_boundary_part_only():
    results = _grade(
        get_weather="Current weather for one city: condition, temperature and wind. "
        "Input: city (Tokyo, 大阪). Use for now, today or at the moment."
    )
    assert _wrong(results) == {"get_weather.boundary"}


def test_a_city_example_in_one_description_pulls_that_citys_past_request():
    results = _grade(
        get_weather="Current weather for one city right now: condition, temperature and wind. "
        "Input: city, e.g. Tokyo or Osaka. Not for past days: use get_weather_history.",
        get_weather_history="Weather of past days for one city. Input: city and date. "
        "Use for yesterday or last week. Not for now: use get_weather.",
    )
    status, message = results["routing.02"]
    assert status is Status.INCORRECT and "+tokyo" in message
    # the tip does not advise fencing off a city name both tools' requests use
    assert "Not for …）に tokyo" not in message


def test_a_missing_input_name_fails_the_inputs_part():
    results = _grade(
        get_weather_history="Weather of past days for one city. Input: city. "
        "Use for yesterday or last week. Not for now: use get_weather."
    )
    assert "get_weather_history.inputs" in _wrong(results)
    assert "date" in results["get_weather_history.inputs"][1]


def test_the_api_key_written_into_mcp_json_fails_the_secret_part():
    config = copy.deepcopy(C1_KEY["mcp_json"])
    config["mcpServers"]["weather"]["env"]["WEATHER_API_KEY"] = "wk_live_8f2a9c0d1e"
    assert _wrong(_grade(mcp_json=config)) == {"mcp_json.secret"}


def test_a_server_under_another_name_or_without_command_fails_the_server_part():
    other = {"mcpServers": {"weather-server": {"command": "python", "args": ["w.py"]}}}
    assert {"mcp_json.server", "mcp_json.secret"} == _wrong(_grade(mcp_json=other))
    broken = {"mcpServers": {"weather": {"args": ["w.py"]}}}
    results = _grade(mcp_json=broken)
    assert "mcpServers.weather.command" in results["mcp_json.server"][1]


@pytest.mark.parametrize(
    "value", [lambda city: city, {"__unreadable__": "function"}, 42, ["a", "b"]]
)
def test_a_value_that_is_not_a_docstring_is_incorrect_and_says_why(value):
    results = _grade(get_weather=value)
    status, message = results["get_weather.boundary"]
    assert status is Status.INCORRECT and "get_weather" in message
    assert results["mcp_json.server"][0] is Status.CORRECT


def test_an_answer_that_is_not_a_dict_is_not_attempted_with_a_note():
    report = get_exercise("C.1").grade("get_weather: current weather")
    assert report.status is Status.NOT_ATTEMPTED and report.notes
    assert get_exercise("C.1").grade(_grade_mcp_text()).status is Status.INCORRECT


def _grade_mcp_text() -> dict[str, object]:
    answer = copy.deepcopy(C1_KEY)
    answer["mcp_json"] = '{"mcpServers": {}}'
    return answer


def test_asking_through_the_loop_calls_the_tool_the_descriptions_point_to():
    assert ask(C1_KEY, "what was the weather in Tokyo yesterday")[0] == "get_weather_history"
    assert ask(C1_KEY, "what is the weather in Tokyo now")[0] == "get_weather"


def test_practice_instances_draw_unseen_requests_and_grade_the_key_full():
    graded = {text for text, _ in C1_REQUESTS}
    for seed in range(30):
        p = practice("C.1", seed)
        assert p.practice and p.variable == "practice_answer"
        assert not graded & {text for text, _ in p.data["requests"]}
        assert p.grade(C1_KEY).status is Status.CORRECT
        assert p.grade(p.template()).status is Status.NOT_ATTEMPTED
    assert practice("C.1", 3).statement == practice("C.1", 3).statement
    assert len({practice("C.1", s).statement for s in range(10)}) > 5


def test_the_checklist_says_which_ticked_items_no_passing_check_backs():
    ticked = {item.key: True for item in CHECKLIST}
    empty = checklist_gaps(None, {})
    assert all(empty[item.key] for item in CHECKLIST if item.parts or item.tasks)
    full = get_exercise("C.1").grade(C1_KEY)
    tasks = {t: {"correct": 3, "total": 4} for t in ("2.1", "2.2", "2.3", "2.4", "2.5")}
    assert checklist_gaps(full, tasks) == {item.key: [] for item in CHECKLIST}
    low = dict(tasks, **{"2.2": {"correct": 1, "total": 4}})
    gaps = checklist_gaps(full, low)
    assert [k for k, v in gaps.items() if v] == ["errors"]
    lines = checklist_lines(ticked, full, low)
    assert [line.split(" ")[1] for line in lines if "まだ裏付けなし" in line] == ["errors:"]


def test_quiz_totals_are_read_from_the_progress_file_and_absent_files_give_none(tmp_path):
    path = tmp_path / "progress.json"
    assert quiz_tasks({"MCPMINI_PROGRESS": str(path)}) == {}
    data = {"exercises": {}, "practice": {}, "quiz": {"tasks": {"2.1": {"correct": 2, "total": 3}}}}
    path.write_text(json.dumps(data), encoding="utf-8")
    assert quiz_tasks({"MCPMINI_PROGRESS": str(path)}) == {"2.1": {"correct": 2, "total": 3}}
    path.write_text("{not json", encoding="utf-8")
    assert quiz_tasks({"MCPMINI_PROGRESS": str(path)}) == {}


def test_the_notebooks_start_empty_and_the_solution_scores_full():
    ex = get_exercise("C.1")
    untouched = answer_of(ROOT / "exercises" / f"{SLUG}.ipynb", CCAF_IDS)
    assert untouched == ex.template()
    solved = answer_of(ROOT / "solutions" / f"{SLUG}.ipynb", CCAF_IDS)
    assert ex.grade(solved).score == ex.max_score


def test_c1_notebooks_are_identified_and_unknown_numbers_are_not():
    assert identify_exercise(Path("C_1_copy.ipynb")) == "C.1"
    assert identify_exercise(Path("P_7_copy.ipynb")) == ""


def test_the_class_grader_answers_a_non_notebook_and_a_raising_cell_clearly(tmp_path, monkeypatch):
    monkeypatch.setenv("MCPMINI_PROGRESS", str(tmp_path / "progress.json"))
    broken, raising = tmp_path / "class" / "rin", tmp_path / "class" / "sam"
    broken.mkdir(parents=True)
    raising.mkdir(parents=True)
    (broken / f"{SLUG}.ipynb").write_text("get_weather: current weather", encoding="utf-8")
    nb = nbformat.read(ROOT / "solutions" / f"{SLUG}.ipynb", as_version=4)
    nb.cells.insert(1, nbformat.v4.new_code_cell("raise RuntimeError('oops')"))
    nbformat.write(nb, raising / f"{SLUG}.ipynb")
    shutil.copy(ROOT / "exercises" / f"{SLUG}.ipynb", raising / "C_1_untouched.ipynb")
    rows = grade_class(
        [tmp_path / "class"], tmp_path / "g.csv", workers=2, timeout=120, progress=False
    )
    by = {r.learner: r for r in rows if r.exercise == "C.1"}
    assert by["rin"].status is RowStatus.INVALID and SLUG in by["rin"].feedback
    # the raising cell is reported, and the answer defined after it still counts
    assert by["sam"].status is RowStatus.ERROR and "RuntimeError" in by["sam"].feedback
    assert by["sam"].score == get_exercise("C.1").max_score
