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
from mcpmini.course.classroom.hub import (
    ACCOUNT_PREFIX,
    COURSE_PARTS,
    account_name,
    main,
    prepare_hub,
    remove_accounts,
)

ROOT = Path(__file__).resolve().parents[1]


def test_a_roster_becomes_accounts_homes_and_a_config(tmp_path):
    plan = prepare_hub("ada\nben # late\n", course=ROOT, root=tmp_path / "hub", os_accounts=False)
    assert [name for name, _ in plan.accounts] == ["ada", "ben", "instructor"]
    assert len({token for _, token in plan.accounts}) == 3
    for name in ("ada", "ben"):
        for part in COURSE_PARTS:
            assert (tmp_path / "hub" / "homes" / name / part).is_dir()
    accounts = tmp_path / "hub" / "accounts.json"
    assert stat.S_IMODE(accounts.stat().st_mode) == 0o600
    assert "allowed_users" in plan.config.read_text() and plan.url.startswith("http://127.0.0.1")
    (tmp_path / "hub" / "homes" / "ada" / "exercises" / "mine.txt").write_text("work")
    again = prepare_hub("ada\nben\nchen\n", course=ROOT, root=tmp_path / "hub", os_accounts=False)
    assert again.accounts[:2] == plan.accounts[:2]  # tokens are kept across runs
    assert (tmp_path / "hub" / "homes" / "ada" / "exercises" / "mine.txt").read_text() == "work"


@pytest.mark.parametrize(
    ("roster", "admin"),
    [("ada\nada\n", "instructor"), ("ada\nBad_Name\n", "instructor"), ("ada\n", "ada"), ("", "x")],
)
def test_a_bad_roster_stops_before_anything_is_written(tmp_path, roster, admin):
    with pytest.raises(RosterError):
        prepare_hub(roster, course=ROOT, root=tmp_path / "hub", admin=admin)
    assert not (tmp_path / "hub").exists()


def test_make_hub_prints_the_accounts_and_exits_two_on_a_bad_roster(tmp_path, capsys):
    roster = tmp_path / "roster.txt"
    roster.write_text("ada\nben\n")
    try:
        assert main([str(roster), "--root", str(tmp_path / "hub"), "--prepare-only"]) == 0
    finally:  # as root the accounts were made (then checked unusable here, or kept): gone
        main(["--root", str(tmp_path / "hub"), "--remove-accounts"])
    out = capsys.readouterr().out
    assert "ada" in out and "ben" in out and "instructor" in out
    assert "share one OS user" in out or "one OS user per learner" in out
    roster.write_text("ada\nada\n")
    assert main([str(roster), "--root", str(tmp_path / "h2"), "--prepare-only"]) == 2
    assert ":2:" in capsys.readouterr().err


def _hub_tools() -> tuple[Path, Path]:
    """jupyterhub-singleuser beside this Python and the npm proxy, or a reasoned skip."""
    bindir = Path(sys.executable).parent
    proxy = ROOT / ".hub" / "node_modules" / ".bin" / "configurable-http-proxy"
    missing = []
    try:
        import jupyterhub  # noqa: F401
        import jupyterhub_idle_culler  # noqa: F401
    except ImportError:
        missing.append("jupyterhub / jupyterhub-idle-culler (make hub installs them)")
    if not proxy.exists():
        missing.append("configurable-http-proxy in .hub/node_modules (make hub installs it)")
    if missing:
        reason = "; ".join(missing)
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but missing: {reason}")
        pytest.skip(reason)
    return bindir, proxy


def _free_port() -> int:
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port < 65000:
            return port


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
def hub(tmp_path_factory):
    import httpx
    import psutil

    bindir, proxy = _hub_tools()
    # As root the learners' own OS users must reach their homes: a folder every user may
    # traverse (pytest's own temporary folder is private to root).
    as_root = os.geteuid() == 0
    root = Path(tempfile.mkdtemp(prefix="mcpmini-hub-")) if as_root else None
    root = root or tmp_path_factory.mktemp("hub")
    (root / "node_modules").symlink_to(proxy.parents[1], target_is_directory=True)
    port = _free_port()
    plan = prepare_hub("ada\nben\ncy\n", course=ROOT, root=root, port=port, start_timeout=120)
    uids = _learner_uids(plan)
    broken = root / "homes" / "cy"  # cy's home is a file: her server cannot start
    subprocess.run(["rm", "-rf", str(broken)], check=True)
    broken.write_text("not a folder")
    log = (root / "hub.log").open("wb")
    proc = subprocess.Popen(
        [str(bindir / "jupyterhub"), "-f", str(plan.config)],
        cwd=root,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = plan.url.rstrip("/")

    def up():
        try:
            return httpx.get(f"{base}/hub/api", timeout=2).status_code == 200
        except httpx.HTTPError:
            return proc.poll() is not None and pytest.fail((root / "hub.log").read_text())

    try:
        try:
            _wait(up, 120, "the hub")
        except AssertionError:
            pytest.fail("the hub did not answer:\n" + (root / "hub.log").read_text()[-3000:])
        yield base, dict(plan.accounts), root, plan, proc.pid
    finally:
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
        log.close()
        # a proxy the hub started just before it was stopped may not have been its child yet
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
        if as_root:
            shutil.rmtree(root, ignore_errors=True)
        assert left == [] and by_learners == []  # nothing of the hub is left running
        assert sorted(removed) == gone == sorted(a for _, a in plan.os_accounts)


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
                if msg["msg_type"] == "error":
                    errors.append(msg["content"])
                if msg["msg_type"] == "execute_reply":
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

    base, tokens, root, plan, hub_pid = hub
    if not plan.os_accounts:
        why = plan.shared if os.geteuid() == 0 else "not root: the learners share one OS user"
        # Under CI as root this must run, unless the interpreter itself is out of other users'
        # reach (a Python under a 0700 /root, as on this project's CI image): an environment
        # fact the hub reports in make hub's output, not a component that failed to install.
        unreachable = "another OS user cannot run" in why
        if os.environ.get("CI") == "true" and os.geteuid() == 0 and not unreachable:
            pytest.fail(f"CI=true as root, but no OS user per learner: {why}")
        pytest.skip(why)
    accounts = dict(plan.os_accounts)
    assert accounts["ada"] == account_name("ada") and accounts["ada"].startswith(ACCOUNT_PREFIX)
    api = {name: _server(base, name, tokens[name]) for name in ("ada", "ben")}
    ben_home = root / "homes" / "ben"
    assert stat.S_IMODE(ben_home.stat().st_mode) == 0o700
    notebook = ben_home / "exercises" / "9_1_version_negotiation.ipynb"
    assert stat.S_IMODE(notebook.stat().st_mode) & 0o077 == 0
    errors = asyncio.run(
        _run(
            base,
            "ada",
            api["ada"],
            "exercises/9_1_version_negotiation.ipynb",
            [
                f"open({str(notebook)!r}).read()",
                f"import os; os.listdir({str(ben_home)!r})",
            ],
        )
    )
    assert [e["ename"] for e in errors] == ["PermissionError", "PermissionError"]
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
