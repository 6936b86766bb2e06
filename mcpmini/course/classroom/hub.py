"""``make hub``: a JupyterHub for a workshop on one machine, set up from a roster file.

:func:`prepare_hub` turns a roster into a hub folder (``.hub/`` by default): one home per
learner holding their own copy of the course (``notebooks/``, ``examples/`` and
``exercises/``; an existing copy is never overwritten, so a learner's work survives a
restart), one first-login token per account (the learner's password, kept in
``accounts.json`` readable by the instructor only and reused on the next run), and a
``jupyterhub_config.py``: :class:`~mcpmini.course.classroom.hubauth.TokenAuthenticator`
(only roster accounts, no open sign-up), the instructor an admin, a local spawner that
starts each learner's server in their home with chapter 00 open and a progress file of
their own, the proxy from ``.hub/node_modules`` (npm's ``configurable-http-proxy``), and
the idle culler (``jupyterhub-idle-culler``) as a hub service.

When it runs as root (a workshop server, CI), each learner (and the instructor) gets an OS
account of their own, :func:`account_name` (``mcpmini-ada``), its home the learner's folder
under ``homes/``, owned by it and readable by it alone (mode ``0700``, umask ``077`` for the
server: :class:`~mcpmini.course.classroom.hubauth.LearnerSpawner`); the accounts made are
listed in ``users.json`` and :func:`remove_accounts` — run when ``make hub`` stops, or by
``make hub-clean`` — ends their processes and deletes them (the homes stay, owned by root).
Not as root, or where the Python cannot be run by another account (it lives under a
private home), every server is a process of the hub's own user: the file browser shows
each learner only their home, but a learner's kernel or terminal can read and change every
other learner's files (:data:`SHARED`; ``make hub`` says so).

Rules of this module: every name comes from :func:`~.roster.parse_roster` (a duplicate or
invalid name stops before anything is written); the instructor's name may not be a
learner's; the hub listens on loopback unless told otherwise; an OS account is only ever
made, changed or deleted when it carries :data:`ACCOUNT_PREFIX` and is listed in
``users.json`` (an existing account of that name whose home is not this hub's is an error).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from .roster import RosterError, is_learner_name, parse_roster

__all__ = [
    "ACCOUNT_PREFIX",
    "COURSE_PARTS",
    "SHARED",
    "HubPlan",
    "account_name",
    "prepare_hub",
    "remove_accounts",
]

#: The prefix of every OS account the hub makes (``mcpmini-ada``).
ACCOUNT_PREFIX = "mcpmini-"
#: What ``make hub`` prints when the learners share the hub's OS user.
SHARED = (
    "learners share one OS user ({user}): the file browser shows each learner only their "
    "own home, but a learner's kernel or terminal can read and change every other "
    "learner's files."
)
_AS_ROOT = " Run `make hub` as root for one OS user per learner."
_REACHABLE = (
    " For one OS user per learner, install the course's Python where every user may run it"
    " (not under a private home such as /root)."
)

#: The folders of the repository each learner gets a copy of.
COURSE_PARTS = ("notebooks", "examples", "exercises")

_CONFIG = """\
# Written by mcpmini.course.classroom.hub.prepare_hub; rewritten on every `make hub`.
import json, os
c = get_config()  # noqa: F821
HUB = {hub!r}
ACCOUNTS = json.load(open(os.path.join(HUB, "accounts.json"), encoding="utf-8"))
c.JupyterHub.ip = {ip!r}
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_port}"
c.JupyterHub.db_url = "sqlite:///" + os.path.join(HUB, "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(HUB, "cookie_secret")
c.JupyterHub.pid_file = os.path.join(HUB, "jupyterhub.pid")
PROXY = os.path.join(HUB, "node_modules", ".bin", "configurable-http-proxy")
c.ConfigurableHTTPProxy.command = [PROXY]
c.ConfigurableHTTPProxy.pid_file = os.path.join(HUB, "proxy.pid")
c.JupyterHub.authenticator_class = "mcpmini.course.classroom.hubauth.TokenAuthenticator"
c.TokenAuthenticator.accounts_file = os.path.join(HUB, "accounts.json")
c.Authenticator.allowed_users = set(ACCOUNTS["learners"])
c.Authenticator.admin_users = {{ACCOUNTS["admin"]}}
{spawner}c.Spawner.cmd = [{singleuser!r}]
c.Spawner.args = {args!r}
c.Spawner.notebook_dir = "~"
c.Spawner.default_url = "/lab/tree/notebooks/00_start_here.ipynb"
c.Spawner.start_timeout = {start_timeout}
c.Spawner.http_timeout = {start_timeout}
c.Spawner.environment = {{
    "MCPMINI_PROGRESS": lambda spawner: os.path.join(
        HUB, "homes", spawner.user.name, ".mcpmini", "progress.json"
    ),
}}
def _check_home(spawner):  # a learner's server starts only in their own copy of the course
    home = os.path.join(HUB, "homes", spawner.user.name)
    if not os.path.isdir(os.path.join(home, "exercises")):
        raise RuntimeError(f"no course folder for {{spawner.user.name}}: run make hub again")
c.Spawner.pre_spawn_hook = _check_home
c.JupyterHub.load_roles = [
    {{"name": "idle-culler", "scopes": ["list:users", "read:users:activity",
      "read:servers", "delete:servers"], "services": ["idle-culler"]}},
]
c.JupyterHub.services = [
    {{"name": "idle-culler",
      "command": [{python!r}, "-m", "jupyterhub_idle_culler", "--timeout={idle}"]}},
]
"""


_SHARED_SPAWNER = """\
c.JupyterHub.spawner_class = "jupyterhub.spawner.SimpleLocalProcessSpawner"
c.SimpleLocalProcessSpawner.home_dir_template = os.path.join(HUB, "homes", "{username}")
"""
_OWN_SPAWNER = """\
c.JupyterHub.spawner_class = "mcpmini.course.classroom.hubauth.LearnerSpawner"
c.LearnerSpawner.accounts = {accounts!r}
"""


@dataclass(frozen=True)
class HubPlan:
    """What :func:`prepare_hub` set up: the hub folder, the URL, ``(name, token)`` accounts
    (learners first, then the instructor), the config file to start ``jupyterhub`` with, and
    ``os_accounts``: hub name → OS account (empty when the servers share the hub's user,
    ``shared`` then saying why)."""

    root: Path
    url: str
    accounts: tuple[tuple[str, str], ...]
    admin: str
    config: Path
    os_accounts: tuple[tuple[str, str], ...] = ()
    shared: str = ""


def account_name(name: str) -> str:
    """The OS account of hub user ``name``: :data:`ACCOUNT_PREFIX` + ``name``, or for a name
    too long for an account (32 characters) its first 15 characters and a hash."""
    whole = ACCOUNT_PREFIX + name
    if len(whole) <= 32:
        return whole
    return f"{ACCOUNT_PREFIX}{name[:15]}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def _listed(root: Path) -> list[str]:
    try:
        users = json.loads((root / "users.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(users, list):
        return []
    return [u for u in users if isinstance(u, str) and u.startswith(ACCOUNT_PREFIX)]


def _write_listed(root: Path, users: list[str]) -> None:
    fd = os.open(root / "users.json", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(sorted(set(users)), fh)


def _own_tree(home: Path, uid: int, gid: int) -> None:
    """Give ``home`` and what it holds to ``uid``, readable by it alone; symbolic links are
    never followed and a file with other hard links is left alone."""
    for top, dirs, files in os.walk(home):
        for name in [*dirs, *files]:
            path = os.path.join(top, name)
            info = os.lstat(path)
            if os.path.islink(path) or (not os.path.isdir(path) and info.st_nlink > 1):
                continue
            os.chown(path, uid, gid, follow_symlinks=False)
            os.chmod(path, info.st_mode & 0o700)
    os.chown(home, uid, gid)
    os.chmod(home, 0o700)


def _check_account(account: str, home: Path) -> bool:
    """Whether the OS account ``account`` exists (with home ``home``); raises ``OSError``
    when it exists with another home (not this hub's)."""
    import pwd

    try:
        entry = pwd.getpwnam(account)
    except KeyError:
        return False
    if Path(entry.pw_dir) != home:
        raise OSError(f"an OS account {account} exists with another home ({entry.pw_dir})")
    return True


def _make_account(account: str, home: Path) -> None:
    """Create the system account ``account`` with home ``home`` (not created). Raises
    ``OSError`` when ``useradd`` fails."""
    done = subprocess.run(
        [
            "useradd",
            "--system",
            "--user-group",
            "--no-create-home",
            "--home-dir",
            str(home),
            "--shell",
            "/bin/bash",
            "--comment",
            "mcpmini hub",
            account,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if done.returncode != 0:
        raise OSError(f"useradd {account} failed: {done.stderr.strip()[:200]}")


_PROBE = "import os, sys; os.chdir(sys.argv[1]); import jupyterhub, mcpmini"


def _probe(account: str, home: Path) -> str:
    """Why ``account`` cannot run this Python's hub server in ``home`` (``""`` when it can)."""
    import pwd

    entry = pwd.getpwnam(account)
    try:  # into the home only once the account is switched to, as the spawner does
        done = subprocess.run(
            [sys.executable, "-c", _PROBE, str(home)],
            cwd="/",
            user=entry.pw_uid,
            group=entry.pw_gid,
            extra_groups=[],
            env={"PATH": "/usr/bin:/bin", "HOME": str(home)},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except OSError as exc:
        return f"another OS user cannot run {sys.executable} in {home} ({exc.strerror})"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["exit code " + str(done.returncode)])[-1]
        return f"another OS user cannot run {sys.executable} in {home} ({last[:160]})"
    return ""


def _own_accounts(root: Path, names: list[str]) -> tuple[dict[str, str], str]:
    """One OS account per name (see the module doc): ``(name → account, "")``, or ``({},
    why)`` when the servers cannot run as them (the accounts made are then removed)."""
    import pwd

    accounts = {name: account_name(name) for name in names}
    made = {a for name, a in accounts.items() if _check_account(a, root / "homes" / name)}
    _write_listed(root, [*_listed(root), *accounts.values()])  # every one checked as ours
    for name, account in accounts.items():
        if account not in made:
            _make_account(account, root / "homes" / name)
    os.chmod(root, 0o711)  # each learner may reach their own home, list nothing
    os.chmod(root / "homes", 0o711)
    for name, account in accounts.items():
        entry = pwd.getpwnam(account)
        _own_tree(root / "homes" / name, entry.pw_uid, entry.pw_gid)
    why = _probe(next(iter(accounts.values())), root / "homes" / names[0])
    if why:
        remove_accounts(root)
        return {}, why
    return accounts, ""


def _tokens(path: Path, names: list[str]) -> dict[str, str]:
    """The tokens already issued (kept across runs), plus new ones for new names."""
    old: dict[str, str] = {}
    try:
        old = dict(json.loads(path.read_text(encoding="utf-8")).get("tokens", {}))
    except (OSError, ValueError, AttributeError):
        pass
    return {name: old.get(name) or secrets.token_urlsafe(12) for name in names}


def prepare_hub(
    roster_text: str,
    *,
    course: Path,
    root: Path,
    admin: str = "instructor",
    ip: str = "127.0.0.1",
    port: int = 8000,
    idle_timeout: int = 3600,
    start_timeout: int = 60,
    source: str = "roster",
    os_accounts: bool | None = None,
) -> HubPlan:
    """Set up the hub folder ``root`` for the learners of ``roster_text`` (see the module doc).

    ``os_accounts``: one OS account per learner (``None``: when running as root; ``True``
    needs root). Returns the :class:`HubPlan`. Raises :class:`~.roster.RosterError` for a
    bad roster or instructor name (nothing written), ``FileNotFoundError`` when ``course``
    lacks a part of :data:`COURSE_PARTS`, ``PermissionError`` for ``os_accounts=True`` when
    not root, ``OSError`` when the folder cannot be written or an account not made.
    """
    root_user = os.geteuid() == 0
    if os_accounts and not root_user:
        raise PermissionError("one OS account per learner needs root")
    own = root_user if os_accounts is None else os_accounts
    learners = parse_roster(roster_text, source)
    if not is_learner_name(admin):
        raise RosterError(f"invalid instructor name {admin!r}")
    if admin in learners:
        raise RosterError(f"{source}: the instructor {admin!r} is also listed as a learner")
    for part in COURSE_PARTS:
        if not (course / part).is_dir():
            raise FileNotFoundError(f"the course has no {part}/ folder: {course / part}")
    root = root.resolve()
    (root / "homes").mkdir(parents=True, exist_ok=True)
    for name in [*learners, admin]:
        home = root / "homes" / name
        for part in COURSE_PARTS:
            if not (home / part).exists():
                shutil.copytree(course / part, home / part, symlinks=False)
    accounts = root / "accounts.json"
    tokens = _tokens(accounts, [*learners, admin])
    fd = os.open(accounts, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump({"learners": learners, "admin": admin, "tokens": tokens}, fh, indent=1)
    mapping, why = _own_accounts(root, [*learners, admin]) if own else ({}, "")
    if not mapping:
        import getpass

        shared = (why + "; " if why else "") + SHARED.format(user=getpass.getuser())
        shared += _REACHABLE if why else "" if own else _AS_ROOT
        spawner = _SHARED_SPAWNER
    else:
        shared, spawner = "", _OWN_SPAWNER.format(accounts=mapping)
    bindir = Path(sys.executable).parent
    config = root / "jupyterhub_config.py"
    config.write_text(
        _CONFIG.format(
            hub=str(root),
            ip=ip,
            port=port,
            hub_port=port + 1,
            proxy_port=port + 2,
            singleuser=str(bindir / "jupyterhub-singleuser"),
            args=["--allow-root"] if root_user and not mapping else [],
            spawner=spawner,
            python=sys.executable,
            idle=idle_timeout,
            start_timeout=start_timeout,
        ),
        encoding="utf-8",
    )
    return HubPlan(
        root,
        f"http://{ip}:{port}/",
        tuple((name, tokens[name]) for name in [*learners, admin]),
        admin,
        config,
        tuple(mapping.items()),
        shared,
    )


def _end_processes(uid: int) -> None:
    """Kill every process of ``uid`` and wait (bounded) until none is left."""
    import psutil

    for _ in range(20):
        left = [p for p in psutil.process_iter(["uids"]) if p.info["uids"].real == uid]
        if not left:
            return
        for proc in left:
            try:
                proc.kill()
            except psutil.Error:
                pass
        psutil.wait_procs(left, timeout=1.0)


def remove_accounts(root: Path) -> list[str]:
    """End the processes of the OS accounts listed in ``root``'s ``users.json``, give their
    homes back to root and delete the accounts (see the module rules). Returns the accounts
    deleted; one that cannot be deleted stays listed. Never raises for a missing account."""
    import pwd

    root = Path(root).resolve()
    removed: list[str] = []
    kept: list[str] = []
    for account in _listed(root):
        try:
            entry = pwd.getpwnam(account)
        except KeyError:
            continue
        home = Path(entry.pw_dir)
        if home.parent != root / "homes":  # not this hub's account (any longer): left alone
            continue
        _end_processes(entry.pw_uid)
        if home.is_dir() and not home.is_symlink():
            _own_tree(home, 0, 0)
        done = subprocess.run(
            ["userdel", account], capture_output=True, text=True, timeout=60, check=False
        )
        (removed if done.returncode == 0 else kept).append(account)
    if kept:
        _write_listed(root, kept)
    else:
        (root / "users.json").unlink(missing_ok=True)
    return removed


def _run_hub(plan: HubPlan) -> int:
    """Run ``jupyterhub`` until it exits (Ctrl-C reaches it too); then remove the OS
    accounts the plan made. Returns its exit code."""
    hub = Path(sys.executable).parent / "jupyterhub"
    proc = subprocess.Popen([str(hub), "-f", str(plan.config)])
    try:
        while True:
            try:
                return proc.wait()
            except KeyboardInterrupt:  # the hub got the same Ctrl-C: let it stop its servers
                try:
                    return proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.send_signal(signal.SIGTERM)
    finally:
        if plan.os_accounts:
            gone = remove_accounts(plan.root)
            print(f"make hub: removed the OS accounts {', '.join(gone) or '(none)'}")


def main(argv: list[str] | None = None) -> int:
    """``python -m mcpmini.course.classroom.hub ROSTER [--prepare-only]`` (what ``make hub``
    runs): set up ``.hub/``, print the URL and the accounts, then run ``jupyterhub``;
    ``--remove-accounts`` only removes the OS accounts a previous run left."""
    import argparse

    parser = argparse.ArgumentParser(prog="make hub", description=main.__doc__)
    parser.add_argument("roster", nargs="?")
    parser.add_argument("--root", default=".hub")
    parser.add_argument("--admin", default="instructor")
    parser.add_argument("--ip", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--prepare-only", action="store_true")
    parser.add_argument("--remove-accounts", action="store_true")
    args = parser.parse_args(argv)
    if args.remove_accounts:
        gone = remove_accounts(Path(args.root))
        print(f"make hub-clean: removed the OS accounts {', '.join(gone) or '(none)'}")
        return 0
    if not args.roster:
        parser.error("the roster file is required")
    try:
        text = Path(args.roster).read_text(encoding="utf-8")
        plan = prepare_hub(
            text,
            course=Path.cwd(),
            root=Path(args.root),
            admin=args.admin,
            ip=args.ip,
            port=args.port,
            source=args.roster,
        )
    except (RosterError, OSError) as exc:
        print(f"make hub: {exc}", file=sys.stderr)
        return 2
    print(f"JupyterHub for {len(plan.accounts) - 1} learners at {plan.url}")
    if plan.os_accounts:
        print(
            "one OS user per learner (homes readable by their owner only): "
            + ", ".join(account for _, account in plan.os_accounts)
            + " — removed when the hub stops (or by make hub-clean)"
        )
    else:
        print(f"WARNING: {plan.shared}")
    print("accounts (user name, first-login token — give each learner theirs):")
    for name, token in plan.accounts:
        print(f"  {name:<20} {token}" + ("   (instructor, admin)" if name == plan.admin else ""))
    if args.prepare_only:
        return 0
    return _run_hub(plan)


if __name__ == "__main__":
    sys.exit(main())
