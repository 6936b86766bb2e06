"""``make hub``: a roster becomes one account per learner (a token each, no sign-up), a home
with their own copy of the course, and a hub config; bad rosters stop before anything is
written; and through the real hub on loopback two learners each see only their own files
and progress (skipped where jupyterhub or the npm proxy is missing, failed under CI=true)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from mcpmini.course.classroom import RosterError
from mcpmini.course.classroom import hub as hub_module
from mcpmini.course.classroom.hub import (
    ACCOUNT_PREFIX,
    COURSE_PARTS,
    START_TIMEOUT,
    HubError,
    account_name,
    free_port,
    hub_log_excerpt,
    main,
    prepare_hub,
    remove_accounts,
    set_switches,
    start_hub,
    wait_for_hub,
)

ROOT = Path(__file__).resolve().parents[1]
#: Seconds the hub fixture waits for the hub to answer; the module's test timeout (pytest's
#: default, 210 s, counts the fixture's wait in its first test) leaves room for it and the spawns.
HUB_WAIT = 300
pytestmark = pytest.mark.timeout(1200)


SCRATCH_PARTS = ("notebooks", "examples", "exercises", "solutions")


def _closed() -> str:
    """Why this test run's own Python cannot serve other OS users ("" when it can)."""
    return hub_module._unreachable_python(Path(sys.executable))


def _hub_python() -> Path:
    """A Python every learner's OS account may run: this one when it is, else the hub's own
    ``.hub/venv`` (which ``make hub`` makes as root); skipped (failed under CI) without one."""
    if os.geteuid() != 0 or not _closed():
        return Path(sys.executable)
    venv = ROOT / ".hub" / "venv" / "bin" / "python"
    if (ROOT / ".hub" / "venv" / ".installed").is_file():
        return venv
    reason = f"as root with {sys.executable} closed to other users, and no .hub/venv: make hub"
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but {reason}")
    pytest.skip(reason)


def _scratch_course(dest: Path) -> Path:
    """A copy of the course parts a hub reads (so locking its solutions leaves the checkout
    alone), the English edition's too when it is built; readable by every user."""
    for part in SCRATCH_PARTS:
        shutil.copytree(ROOT / part, dest / part, ignore=shutil.ignore_patterns(".ipynb_*"))
    for part in ("notebooks", "exercises"):
        if (ROOT / "en" / part / "00_start_here.ipynb").is_file() or (
            part == "exercises" and (ROOT / "en" / part).is_dir()
        ):
            shutil.copytree(ROOT / "en" / part, dest / "en" / part)
    subprocess.run(["chmod", "-R", "a+rX", str(dest)], check=True)
    return dest


def _open_root(prefix: str) -> Path:
    """A folder every user may traverse (pytest's temporary folder is private to root)."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    os.chmod(root, 0o755)
    return root


@pytest.fixture(scope="module", autouse=True)
def _one_hub_test_run_at_a_time():
    """As root these tests make OS accounts named after the learners (``mcpmini-ada``): a
    second run on the same machine (another checkout's suite) would find them with another
    home and fail. Runs wait for each other on one machine-wide lock instead."""
    if os.geteuid() != 0:
        yield
        return
    import fcntl

    with open(os.path.join(tempfile.gettempdir(), "mcpmini-hub-tests.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # bounded by the test timeout
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture
def course(tmp_path):
    return _scratch_course(_open_root("mcpmini-course-"))


def _prepare(course: Path, root: Path, roster: str = "ada\nben # late\n", **kw):
    kw.setdefault("python", _hub_python())
    return prepare_hub(roster, course=course, root=root, **kw)


def test_a_roster_becomes_accounts_homes_and_a_config(course):
    root = _open_root("mcpmini-hub-")
    try:
        plan = _prepare(course, root / "hub")
        assert [name for name, _ in plan.accounts] == ["ada", "ben", "instructor"]
        assert len({token for _, token in plan.accounts}) == 3
        homes = root / "hub" / "homes"
        for name in ("ada", "ben"):
            for part in COURSE_PARTS:
                assert (homes / name / part).is_dir()
            assert not (homes / name / "notebooks" / "instructor").exists()  # the instructor's
            assert (homes / name / ".mcpmini" / "hub-edition").read_text() == "ja\n"
        assert (homes / "instructor" / "notebooks" / "instructor" / "00_guide.ipynb").is_file()
        for private in ("accounts.json", "jupyterhub_config.py"):
            assert stat.S_IMODE((root / "hub" / private).stat().st_mode) == 0o600
        switches = root / "hub" / "class.json"
        assert json.loads(switches.read_text()) == {"solutions": False, "hints": True}
        assert stat.S_IMODE(switches.stat().st_mode) == 0o644
        config = plan.config.read_text()
        assert "allowed_users" in config and plan.url.startswith("http://127.0.0.1")
        assert f"c.Spawner.start_timeout = {START_TIMEOUT}" in config
        assert "--LabApp.news_url=None" in config and "MCPMINI_CLASS" in config
        (homes / "ada" / "exercises" / "mine.txt").write_text("work")
        again = _prepare(course, root / "hub", "ada\nben\nchen\n")
        assert again.accounts[:2] == plan.accounts[:2]  # tokens are kept across runs
        assert (homes / "ada" / "exercises" / "mine.txt").read_text() == "work"
    finally:
        remove_accounts(root / "hub")
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize(
    ("roster", "admin"),
    [("ada\nada\n", "instructor"), ("ada\nBad_Name\n", "instructor"), ("ada\n", "ada"), ("", "x")],
)
def test_a_bad_roster_stops_before_anything_is_written(tmp_path, roster, admin):
    with pytest.raises(RosterError):
        prepare_hub(roster, course=ROOT, root=tmp_path / "hub", admin=admin)
    assert not (tmp_path / "hub").exists()


def test_as_root_a_python_learners_cannot_run_is_refused_never_learners_as_root(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("only root makes OS accounts: not root, the learners share this user")
    with pytest.raises(HubError, match="as root"):
        prepare_hub("ada\n", course=ROOT, root=tmp_path / "h1", os_accounts=False)
    closed = Path("/root/.pyenv/versions/x/bin/python3")  # under /root, mode 0700
    assert hub_module._unreachable_python(closed) == "/root is closed to other users"
    with pytest.raises(HubError, match="/usr/bin/python3"):
        prepare_hub("ada\n", course=ROOT, root=tmp_path / "h2", python=closed)
    assert not (tmp_path / "h1").exists() and not (tmp_path / "h2").exists()


def test_make_hub_prints_the_accounts_and_exits_two_on_a_bad_roster(tmp_path, capsys):
    roster = tmp_path / "roster.txt"
    roster.write_text("ada\nben\n")
    argv = [str(roster), "--root", str(tmp_path / "hub"), "--prepare-only"]
    try:
        code = main(argv)
    finally:  # as root the accounts were made: gone
        main(["--root", str(tmp_path / "hub"), "--remove-accounts"])
    out, err = capsys.readouterr()
    if os.geteuid() == 0 and _closed():  # this run's Python is one the learners cannot run
        assert code == 2 and "/root" in err and "make hub" in err and "JupyterHub" not in out
    else:
        assert code == 0 and "ada" in out and "ben" in out and "instructor" in out
        assert "share one OS user" in out or "one OS user per learner" in out
    roster.write_text("ada\nada\n")
    assert main([str(roster), "--root", str(tmp_path / "h2"), "--prepare-only"]) == 2
    assert ":2:" in capsys.readouterr().err


def test_the_english_edition_fills_the_homes_from_en_and_speaks_english(course):
    root = _open_root("mcpmini-hub-")
    built = (course / "en" / "notebooks" / "00_start_here.ipynb").is_file()
    try:
        if not built:
            with pytest.raises(HubError, match="make english"):
                _prepare(course, root / "hub", edition="en")
            (course / "en" / "notebooks").mkdir(parents=True)
            (course / "en" / "exercises").mkdir(parents=True)
            (course / "en" / "notebooks" / "00_start_here.ipynb").write_text("{}")
        plan = _prepare(course, root / "hub", edition="en")
        home = root / "hub" / "homes" / "ada"
        assert (home / ".mcpmini" / "hub-edition").read_text() == "en\n"
        en = sorted(p.name for p in (course / "en" / "notebooks").iterdir())
        assert sorted(p.name for p in (home / "notebooks").iterdir()) == [
            n for n in en if n != "instructor"
        ]
        assert """"MCPMINI_LANG": 'en'""" in plan.config.read_text()
        assert plan.edition.value == "en"
        with pytest.raises(HubError, match=r"made for the en edition"):
            _prepare(course, root / "hub", edition="ja")  # homes made for English
    finally:
        remove_accounts(root / "hub")
        shutil.rmtree(root, ignore_errors=True)


def test_the_class_switches_lock_and_open_the_solutions(course):
    root = _open_root("mcpmini-hub-")
    try:
        _prepare(course, root / "hub")
        solutions = course / "solutions"
        if os.geteuid() == 0:
            assert stat.S_IMODE(solutions.stat().st_mode) & 0o007 == 0  # others: nothing
        assert set_switches(root / "hub", course, solutions=True) == {
            "solutions": True,
            "hints": True,
        }
        if os.geteuid() == 0:
            assert stat.S_IMODE(solutions.stat().st_mode) & 0o005 == 0o005
        assert main(["--root", str(root / "hub"), "--hints", "off"]) == 0
        assert json.loads((root / "hub" / "class.json").read_text())["hints"] is False
        assert main(["--root", str(root / "nohub"), "--hints", "off"]) == 2
    finally:
        remove_accounts(root / "hub")
        shutil.rmtree(root, ignore_errors=True)


def test_outside_a_hub_everything_is_allowed_and_a_broken_switch_file_allows_nothing(tmp_path):
    from mcpmini.course.policy import allowed, write_switches

    assert allowed("solutions", {}) and allowed("hints", {})
    path = tmp_path / "class.json"
    env = {"MCPMINI_CLASS": str(path)}
    assert not allowed("hints", env)  # missing: closed
    write_switches(path, {"solutions": False, "hints": True})
    assert allowed("hints", env) and not allowed("solutions", env)
    path.write_text("[1]")
    assert not allowed("hints", env)
    with pytest.raises(ValueError):
        write_switches(path, {"answers": True})


def test_the_log_excerpt_keeps_the_hubs_error_and_drops_the_proxys_lines_about_polls():
    hub_lines = [f"[I 2026-12-02 00:00:{i:02} JupyterHub app:1] step {i}" for i in range(60)]
    error = [
        "[E 2026-12-02 00:01:00 JupyterHub app:3912] Failed to bind hub to http://127.0.0.1:8001",
        "Traceback (most recent call last):",
        "OSError: [Errno 98] Address already in use",
    ]
    poll = [
        "00:01:02.003 [ConfigProxy] error: 404 GET /hub/api ",
        "00:01:02.004 [ConfigProxy] error: Failed to get custom error page: Error: connect "
        "ECONNREFUSED 127.0.0.1:8001",
    ]
    routed = "00:00:59.000 [ConfigProxy] info: Proxying http://127.0.0.1:8000 to (no default)"
    text = "\n".join([*hub_lines, routed, *error, *poll * 400])
    excerpt = hub_log_excerpt(text, limit=400)
    assert "Address already in use" in excerpt and error[0] in excerpt
    assert "404 GET" not in excerpt and "custom error page" not in excerpt
    assert excerpt.endswith("(800 lines of the proxy about requests it could not route left out)")
    whole = hub_log_excerpt("\n".join([*hub_lines[:3], routed]))
    assert whole == "\n".join([*hub_lines[:3], routed])  # nothing to cut, nothing dropped


def _hub_tools() -> tuple[Path, Path]:
    """The Python that serves the learners (with jupyterhub beside it) and the npm proxy, or
    a reasoned skip."""
    python = _hub_python()
    proxy = ROOT / ".hub" / "node_modules" / ".bin" / "configurable-http-proxy"
    missing = []
    probe = "import jupyterhub, jupyterhub_idle_culler"
    if subprocess.run([str(python), "-c", probe], capture_output=True, check=False).returncode:
        missing.append(f"jupyterhub / jupyterhub-idle-culler for {python} (make hub installs them)")
    if not proxy.exists():
        missing.append("configurable-http-proxy in .hub/node_modules (make hub installs it)")
    if missing:
        reason = "; ".join(missing)
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but missing: {reason}")
        pytest.skip(reason)
    return python, proxy


def _wait(check, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.25)  # polling a server we do not control: bounded by the deadline
    raise AssertionError(f"timed out waiting for {what}")


def _learner_uids(plan) -> set[int]:
    import pwd

    uids = set()
    for _, account in plan.os_accounts:
        try:
            uids.add(pwd.getpwnam(account).pw_uid)
        except KeyError:
            pass
    return uids


@pytest.fixture(scope="module")
def hub():

    python, proxy = _hub_tools()
    as_root = os.geteuid() == 0
    root = _open_root("mcpmini-hub-")
    course = _scratch_course(_open_root("mcpmini-course-"))
    (root / "node_modules").symlink_to(proxy.parents[1], target_is_directory=True)
    port = free_port()
    plan = prepare_hub(
        "ada\nben\ncy\n", course=course, root=root, port=port, start_timeout=300, python=python
    )
    uids = _learner_uids(plan)
    broken = root / "homes" / "cy"  # cy's home is a file: her server cannot start
    subprocess.run(["rm", "-rf", str(broken)], check=True)
    broken.write_text("not a folder")
    log = (root / "hub.log").open("wb")
    proc = start_hub(plan, cwd=root, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = plan.url.rstrip("/")

    try:
        try:
            wait_for_hub(plan, proc, root / "hub.log", HUB_WAIT)
        except HubError as exc:
            pytest.fail(str(exc))
        yield base, dict(plan.accounts), root, plan, proc.pid, course
    finally:
        log.close()
        left, by_learners, removed, gone = _stop_hub(proc, root, plan, uids)
        if as_root:
            shutil.rmtree(root, ignore_errors=True)
            shutil.rmtree(course, ignore_errors=True)
        assert left == [] and by_learners == []  # nothing of the hub is left running
        assert sorted(removed) == gone == sorted(a for _, a in plan.os_accounts)


def _stop_hub(proc: subprocess.Popen, root: Path, plan, uids: set[int]):
    """Stop the hub ``proc`` of folder ``root`` and what it started, remove its OS accounts:
    the pids still running, the learners' processes left, the accounts removed and gone."""
    import psutil

    try:  # the hub may already have exited (it failed to start): nothing of it to list
        kids = [p.pid for p in psutil.Process(proc.pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        kids = []
    group = [proc.pid, *kids]
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
    for pid in group:
        try:
            psutil.Process(pid).kill()
        except psutil.Error:
            pass
    # a proxy the hub started just before it was stopped (or outliving a hub that died) may
    # not be its child: found by the hub folder in its command line
    for stray in psutil.process_iter(["cmdline"]):
        if any(str(root) in arg for arg in stray.info["cmdline"] or []):
            group.append(stray.pid)
            try:
                stray.kill()
            except psutil.Error:
                pass
    psutil.wait_procs([p for p in map(_process, group) if p is not None], timeout=10)
    left = [pid for pid in group if _process(pid) is not None]
    removed = remove_accounts(root) if plan.os_accounts else []
    by_learners = [p.pid for p in psutil.process_iter(["uids"]) if p.info["uids"].real in uids]
    gone = sorted(account for _, account in plan.os_accounts if _account_gone(account))
    return left, by_learners, removed, gone


def test_a_hub_that_cannot_start_says_why_from_its_own_log_not_the_proxys(course):
    """The hub's API port is taken: the hub exits after starting its proxy, which answers 404
    to every poll; the failure names the hub's own error, not a timeout over proxy lines."""
    python, proxy = _hub_tools()
    root = _open_root("mcpmini-hub-")
    (root / "node_modules").symlink_to(proxy.parents[1], target_is_directory=True)
    port = free_port()
    plan = prepare_hub("ada\n", course=course, root=root, port=port, python=python)
    taken = socket.socket()
    taken.bind(("127.0.0.1", port + 1))  # the hub's own API port
    taken.listen()
    try:
        with (root / "hub.log").open("wb") as log:
            proc = start_hub(
                plan, cwd=root, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
            try:
                with pytest.raises(HubError) as failed:
                    wait_for_hub(plan, proc, root / "hub.log", HUB_WAIT)
            finally:
                left, by_learners, removed, gone = _stop_hub(proc, root, plan, _learner_uids(plan))
        message = str(failed.value)
        assert "exited with" in message, message
        assert f"{port + 1}" in message and "404 GET" not in message
        assert left == [] and by_learners == []
        assert sorted(removed) == gone == sorted(a for _, a in plan.os_accounts)
    finally:
        taken.close()
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(course, ignore_errors=True)


def _process(pid: int):
    import psutil

    try:
        proc = psutil.Process(pid)
        return None if proc.status() == psutil.STATUS_ZOMBIE else proc
    except psutil.Error:
        return None


def _account_gone(account: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(account)
    except KeyError:
        return True
    return False


def _login(base: str, name: str, token: str):
    import httpx

    client = httpx.Client(base_url=base, timeout=30)
    client.get("/hub/login")
    xsrf = [c.value for c in client.cookies.jar if c.name == "_xsrf"][-1]
    reply = client.post("/hub/login", data={"username": name, "password": token, "_xsrf": xsrf})
    assert reply.status_code == 302, reply.text[:200]
    client.headers["X-XSRFToken"] = [c.value for c in client.cookies.jar if c.name == "_xsrf"][-1]
    return client


async def _run(base: str, name: str, api: str, path: str, codes: list[str]) -> list[dict]:
    """Run ``codes`` in a new kernel of ``name``'s server opened on ``path``; the error
    outputs (empty when every cell ran)."""
    import httpx
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    headers = {"Authorization": f"token {api}"}
    session = httpx.post(
        f"{base}/user/{name}/api/sessions",
        headers=headers,
        json={"path": path, "type": "notebook", "name": "", "kernel": {"name": "python3"}},
        timeout=60,
    ).json()
    ws_url = (
        base.replace("http", "ws") + f"/user/{name}/api/kernels/{session['kernel']['id']}/channels"
    )
    conn = await websocket_connect(HTTPRequest(ws_url, headers=headers, connect_timeout=30))
    errors = []
    try:
        for code in codes:
            msg_id = uuid.uuid4().hex
            conn.write_message(
                json.dumps(
                    {
                        "header": {
                            "msg_id": msg_id,
                            "msg_type": "execute_request",
                            "session": uuid.uuid4().hex,
                            "username": name,
                            "version": "5.3",
                        },
                        "parent_header": {},
                        "metadata": {},
                        "content": {
                            "code": code,
                            "silent": False,
                            "store_history": True,
                            "user_expressions": {},
                            "allow_stdin": False,
                        },
                        "channel": "shell",
                    }
                )
            )
            while True:
                raw = await asyncio.wait_for(conn.read_message(), 120)
                assert raw is not None, "the kernel channel closed"
                msg = json.loads(raw)
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                # The reply on the shell channel carries the error too; the iopub "error"
                # message may come after it (two channels), so only the reply is read.
                if msg["msg_type"] == "execute_reply":
                    if msg["content"].get("status") == "error":
                        errors.append(msg["content"])
                    break
    finally:
        conn.close()
        httpx.delete(f"{base}/user/{name}/api/sessions/{session['id']}", headers=headers)
    return errors


def _code_cells(path: Path) -> list[str]:
    import nbformat

    return [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def test_a_learner_whose_server_fails_to_start_is_told_and_the_hub_goes_on(hub):
    import httpx

    base, tokens, *_ = hub
    client = _login(base, "cy", tokens["cy"])
    reply = client.post("/hub/api/users/cy/server")

    def settled():
        user = client.get("/hub/api/users/cy").json()
        server = user.get("servers", {}).get("")
        return user if not server or not server.get("pending") else None

    user = _wait(settled, 60, "cy's failed spawn") if reply.status_code < 400 else None
    assert reply.status_code >= 400 or not user["servers"].get("", {}).get("ready")
    assert httpx.get(f"{base}/hub/api", timeout=5).status_code == 200


def test_two_learners_through_the_real_hub_each_see_only_their_own(hub):
    import httpx

    base, tokens, root, *_ = hub
    started = time.monotonic()
    api = {}
    for name in ("ada", "ben"):
        client = _login(base, name, tokens[name])
        assert client.post(f"/hub/api/users/{name}/server").status_code in (201, 202)
        api[name] = client.post(f"/hub/api/users/{name}/tokens", json={"note": "test"}).json()[
            "token"
        ]
        assert (
            client.post(
                "/hub/api/users/ada/server" if name == "ben" else "/hub/api/users/ben/server"
            ).status_code
            in (403, 404)  # another learner's server: refused (or not even shown)
        )
    for name in ("ada", "ben"):
        _wait(
            lambda n=name: (
                httpx.get(
                    f"{base}/user/{n}/api/status", headers={"Authorization": f"token {api[n]}"}
                ).status_code
                == 200
            ),
            150,
            f"{name}'s server",
        )
    (root / "homes" / "ada" / "exercises" / "ada_only.txt").write_text("mine")
    seen = {}
    for name in ("ada", "ben"):
        listing = httpx.get(
            f"{base}/user/{name}/api/contents/exercises",
            headers={"Authorization": f"token {api[name]}"},
        ).json()
        seen[name] = {item["name"] for item in listing["content"]}
        other = "ben" if name == "ada" else "ada"
        foreign = httpx.get(
            f"{base}/user/{other}/api/contents/exercises",
            headers={"Authorization": f"token {api[name]}"},
        )
        assert foreign.status_code in (302, 403)
    assert "ada_only.txt" in seen["ada"] and "ada_only.txt" not in seen["ben"]
    chapter = _code_cells(ROOT / "notebooks" / "00_start_here.ipynb")
    solved = _code_cells(ROOT / "solutions" / "9_1_version_negotiation.ipynb")
    blank = _code_cells(ROOT / "exercises" / "9_1_version_negotiation.ipynb")
    listing = httpx.get(
        f"{base}/user/ada/api/contents/notebooks", headers={"Authorization": f"token {api['ada']}"}
    ).json()
    names = {item["name"] for item in listing["content"]}
    assert "00_start_here.ipynb" in names and "instructor" not in names  # the instructor's only
    for name, exercise in (("ada", solved), ("ben", blank)):
        assert (
            asyncio.run(_run(base, name, api[name], "notebooks/00_start_here.ipynb", chapter)) == []
        )
        assert (
            asyncio.run(
                _run(base, name, api[name], "exercises/9_1_version_negotiation.ipynb", exercise)
            )
            == []
        )
    ada = json.loads((root / "homes" / "ada" / ".mcpmini" / "progress.json").read_text())
    assert ada["exercises"]["9.1"]["best_score"] == 8
    ben = root / "homes" / "ben" / ".mcpmini" / "progress.json"
    assert not ben.exists() or "9.1" not in json.loads(ben.read_text()).get("exercises", {})
    print(f"hub test: {time.monotonic() - started:.1f} s after the hub was up")


def _server(base: str, name: str, token: str) -> str:
    """Start ``name``'s server (or find it running); an API token of ``name``'s."""
    import httpx

    client = _login(base, name, token)
    assert client.post(f"/hub/api/users/{name}/server").status_code in (201, 202, 400)
    api = client.post(f"/hub/api/users/{name}/tokens", json={"note": "test"}).json()["token"]
    _wait(
        lambda: (
            httpx.get(
                f"{base}/user/{name}/api/status", headers={"Authorization": f"token {api}"}
            ).status_code
            == 200
        ),
        150,
        f"{name}'s server",
    )
    return api


def test_as_root_each_learner_is_an_os_user_who_cannot_read_another_learners_files(hub):
    import pwd

    import psutil

    base, tokens, root, plan, hub_pid, course = hub
    if not plan.os_accounts:
        pytest.skip("not root: the learners share one OS user")
    accounts = dict(plan.os_accounts)
    assert accounts["ada"] == account_name("ada") and accounts["ada"].startswith(ACCOUNT_PREFIX)
    api = {name: _server(base, name, tokens[name]) for name in ("ada", "ben")}
    ben_home = root / "homes" / "ben"
    assert stat.S_IMODE(ben_home.stat().st_mode) == 0o700
    notebook = ben_home / "exercises" / "9_1_version_negotiation.ipynb"
    assert stat.S_IMODE(notebook.stat().st_mode) & 0o077 == 0
    solution = course / "solutions" / "9_2_request_ids.ipynb"
    errors = asyncio.run(
        _run(
            base,
            "ada",
            api["ada"],
            "exercises/9_1_version_negotiation.ipynb",
            [
                f"open({str(notebook)!r}).read()",
                f"import os; os.listdir({str(ben_home)!r})",
                f"open({str(solution)!r}).read()",  # the solutions, while switched off
                *(f"open({str(root / n)!r}, 'rb').read()" for n in _PRIVATE),
            ],
        )
    )
    denied = {e["evalue"].rsplit(": ", 1)[-1].strip("'") for e in errors}
    wanted = [notebook, ben_home, solution, *(root / n for n in _PRIVATE)]
    assert [str(p) for p in wanted if str(p) not in denied] == [], errors  # each one refused
    assert {e["ename"] for e in errors} == {"PermissionError"}
    uid = {name: pwd.getpwnam(accounts[name]).pw_uid for name in ("ada", "ben")}
    servers: dict[str, list[psutil.Process]] = {"ada": [], "ben": []}
    for proc in psutil.Process(hub_pid).children(recursive=True):
        try:
            user = proc.environ().get("JUPYTERHUB_USER")
        except psutil.Error:
            continue
        if user in servers:
            servers[user].append(proc)
    for name, procs in servers.items():
        assert procs, f"no server process of {name}"
        assert {(p.uids().real, p.uids().effective) for p in procs} == {(uid[name], uid[name])}


#: The hub's files a learner must not read.
_PRIVATE = (
    "jupyterhub.sqlite",
    "jupyterhub_config.py",
    "accounts.json",
    "cookie_secret",
    "users.json",
)


def _outputs(base: str, name: str, api: str, code: str) -> str:
    """The text ``code`` prints in a new kernel of ``name``'s server (written to a file beside
    the notebook, then read back through the server's contents API)."""
    import httpx

    out = f"out-{uuid.uuid4().hex}.txt"
    wrapped = (
        "import contextlib, io\nbuf = io.StringIO()\n"
        f"with contextlib.redirect_stdout(buf):\n    exec({code!r})\n"
        f"open({out!r}, 'w').write(buf.getvalue())"
    )
    errors = asyncio.run(_run(base, name, api, "exercises/9_2_request_ids.ipynb", [wrapped]))
    assert errors == []
    reply = httpx.get(
        f"{base}/user/{name}/api/contents/exercises/{out}",
        headers={"Authorization": f"token {api}"},
    ).json()
    return str(reply["content"])


def test_the_instructor_switches_solutions_and_hints_while_the_class_runs(hub):
    base, tokens, root, _, _, course = hub
    api = _server(base, "ben", tokens["ben"])
    ask = "from mcpmini.course import get_exercise\nex = get_exercise('9.2')\n"
    ask += "ex.solution()\nex.hint(1)"
    off = _outputs(base, "ben", api, ask)
    assert "switched worked solutions off" in off or "解答の表示を止めています" in off
    assert "ヒント 1/" in off or "Hint 1/" in off
    set_switches(root, course, solutions=True, hints=False)
    try:
        on = _outputs(base, "ben", api, ask)  # the same server, no restart
        assert "解答の表示を止めています" not in on and "switched worked solutions off" not in on
        assert "ヒントの表示を止めています" in on or "switched hints off" in on
    finally:
        set_switches(root, course, solutions=False, hints=True)


def test_feedback_is_returned_into_the_hub_homes_for_the_learner_alone(hub, tmp_path):
    import httpx

    from mcpmini.course import get_exercise
    from mcpmini.course.classroom import GradeRow, RowStatus, return_feedback, write_feedback

    base, tokens, root, *_ = hub
    key = get_exercise("9.1").answer_key()
    row = GradeRow(
        "ada",
        "9.1",
        8,
        8,
        RowStatus.GRADED,
        "",
        key,
        assignment="exercises",
        notebook="9_1_version_negotiation",
    )
    write_feedback([row], tmp_path / "course")
    written, skipped = return_feedback(tmp_path / "course", root / "homes")
    assert skipped == [] and len(written) == 3  # the page, the index, timestamp.txt
    page = root / "homes" / "ada" / "feedback" / "exercises" / "9_1_version_negotiation.html"
    assert page.stat().st_uid == (root / "homes" / "ada").stat().st_uid
    assert stat.S_IMODE(page.stat().st_mode) == 0o600
    api = _server(base, "ada", tokens["ada"])
    reply = httpx.get(
        f"{base}/user/ada/api/contents/feedback/exercises/9_1_version_negotiation.html",
        headers={"Authorization": f"token {api}"},
    )
    assert reply.status_code == 200 and "8 / 8" in reply.json()["content"]


def test_a_learner_logs_in_with_chromium_and_jupyterlab_shows_no_news_toast(hub):
    """Through the login form in a real browser: chapter 00 opens, JupyterLab's news are
    switched off for the learner (the setting the toast asks about), and no toast shows."""
    from browser.conftest import CHROMIUM_FLAGS, chromium_path

    try:
        from playwright import sync_api
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true and playwright is missing")
        pytest.skip("the playwright package is not installed")
    base, tokens, *_ = hub
    profile = Path(tempfile.mkdtemp(prefix="mcpmini-hub-chromium-"))
    started = time.monotonic()
    try:
        with sync_api.sync_playwright() as p:
            context = p.chromium.launch_persistent_context(
                str(profile),
                executable_path=chromium_path(),
                headless=True,
                args=CHROMIUM_FLAGS,
            )
            try:
                page = context.new_page()
                page.goto(f"{base}/hub/login", timeout=60_000)
                page.fill("input[name=username]", "ben")
                page.fill("input[name=password]", tokens["ben"])
                page.click("input[type=submit], button[type=submit]")
                # the spawn page, then JupyterLab with chapter 00 (bounded by the spawn timeout)
                page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=300_000)
                page.wait_for_selector(".jp-Notebook-ExecutionIndicator", timeout=120_000)
                spawned = time.monotonic() - started
                assert "00_start_here.ipynb" in page.url
                settings = page.evaluate(
                    """async () => {
                      const xsrf = document.cookie.split('; ').find(c => c.startsWith('_xsrf='));
                      const url = location.pathname.split('/lab')[0] +
                        '/lab/api/settings/@jupyterlab/apputils-extension:notification';
                      const reply = await fetch(url, {headers: {'X-XSRFToken':
                        xsrf ? xsrf.slice(6) : ''}});
                      return {status: reply.status, body: await reply.text()};
                    }"""
                )
                assert settings["status"] == 200, settings
                # the overrides beside the hub's Python set the defaults; the learner set nothing
                reply = json.loads(settings["body"])
                defaults = {k: v.get("default") for k, v in reply["schema"]["properties"].items()}
                assert defaults["fetchNews"] == "false" and defaults["checkForUpdates"] is False
                assert "fetchNews" not in reply["settings"]
                toasts = page.locator(".Toastify__toast").all_inner_texts()
                assert not [t for t in toasts if "news" in t.lower()]
                print(f"hub browser test: ben's lab ready {spawned:.1f} s after the login")
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
