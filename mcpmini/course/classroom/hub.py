"""``make hub``: a JupyterHub for a workshop on one machine, set up from a roster file.

:func:`prepare_hub` turns a roster into a hub folder (``.hub/`` by default): one home per
learner holding their own copy of the course in the chosen edition (``notebooks/`` without the
instructor's ``notebooks/instructor/``, ``examples/`` and ``exercises/``; the English edition's
from ``en/``, the edition recorded in the home; an existing copy is never overwritten, so a
learner's work survives a restart), one first-login token per account (the learner's password,
kept in ``accounts.json`` readable by the instructor only and reused on the next run), the class
switches (``class.json``, :mod:`mcpmini.course.policy`: worked solutions and hints, switched by the
instructor), and a ``jupyterhub_config.py`` readable by the instructor only:
:class:`~mcpmini.course.classroom.hubauth.TokenAuthenticator` (only roster accounts, no open
sign-up), the instructor an admin, a local spawner that starts each learner's server in their
home with chapter 00 open, a progress file of their own, the class switches and the edition's
language, JupyterLab's news and update checks off, a start timeout sized for a class logging in
at once, the proxy from ``.hub/node_modules`` (npm's ``configurable-http-proxy``), and the idle
culler (``jupyterhub-idle-culler``) as a hub service. :func:`start_hub` runs ``jupyterhub`` with
umask ``077``, so its database, cookie secret and pid files are the instructor's alone.

When it runs as root (a workshop server, CI), each learner (and the instructor) gets an OS
account of their own, :func:`account_name` (``mcpmini-ada``), its home the learner's folder
under ``homes/``, owned by it and readable by it alone (mode ``0700``, umask ``077`` for the
server: :class:`~mcpmini.course.classroom.hubauth.LearnerSpawner`); the accounts made are
listed in ``users.json`` and :func:`remove_accounts` — run when ``make hub`` stops, or by
``make hub-clean`` — ends their processes and deletes them (the homes stay, owned by root).
While worked solutions are switched off, the course's solution files (:data:`LOCKED`) are
made unreadable to other users, and a learner account is checked not to reach them. As root,
a Python another account cannot run (one under ``/root``, as a pyenv there) is refused with a
:class:`HubError` saying how to fix it — never a hub whose learners run as root; ``make hub``
itself then makes ``.hub/venv`` from the system Python. Not as root, every server is a process
of the hub's own user: the file browser shows each learner only their home, but a learner's
kernel or terminal can read and change every other learner's files, and the solutions
(:data:`SHARED`; ``make hub`` says so).

Rules of this module: every name comes from :func:`~.roster.parse_roster` (a duplicate or
invalid name stops before anything is written); the instructor's name may not be a
learner's; the hub listens on loopback unless told otherwise; an OS account is only ever
made, changed or deleted when it carries :data:`ACCOUNT_PREFIX` and is listed in
``users.json`` (an existing account of that name whose home is not this hub's is an error);
homes made for one edition are never filled from the other.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..language import LANG_ENV, Lang, parse_lang
from ..policy import CLASS_ENV, SWITCHES, read_switches, write_switches
from .roster import RosterError, is_learner_name, parse_roster

__all__ = [
    "ACCOUNT_PREFIX",
    "COURSE_PARTS",
    "LOCKED",
    "SHARED",
    "START_TIMEOUT",
    "HubError",
    "HubPlan",
    "account_name",
    "free_port",
    "hub_log_excerpt",
    "lock_solutions",
    "prepare_hub",
    "remove_accounts",
    "set_switches",
    "start_hub",
    "wait_for_hub",
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
_SOLUTIONS_SHARED = (
    " The solution notebooks of the course are readable by them too: for a graded class, run "
    "`make hub` as root."
)

#: The folders of the repository each learner gets a copy of (``notebooks/instructor/`` left
#: out: it is the instructor's).
COURSE_PARTS = ("notebooks", "examples", "exercises")
#: The parts that have an English edition under ``en/``.
EDITION_PARTS = ("notebooks", "exercises")
#: Where a home records the edition it was made for (homes are never filled from the other).
HOME_EDITION = Path(".mcpmini") / "hub-edition"
#: What of ``notebooks/`` stays out of the learners' copies.
INSTRUCTOR_ONLY = "instructor"
#: The course's files that hold worked answers: unreadable to other users while solutions are
#: switched off (the git history holds every version of them; the tests hold solved copies).
LOCKED = ("solutions", "en/solutions", "i18n/en/solutions", "notebooks/instructor", "tests", ".git")
#: Seconds a learner's server may take to start. Measured (``bench/classroom.py``): 30 learners
#: logging in at once on a 2-core machine under a load average near 27, every server up within
#: 82.5 s (median 79.9 s); JupyterHub's own 60 s would fail most of them. Three and a half
#: times the slowest leaves room for a slower machine or a larger class.
START_TIMEOUT = 300


class HubError(ValueError):
    """A hub that must not be made as asked; the message says why and how to fix it."""


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
c.JupyterHub.concurrent_spawn_limit = {spawn_limit}
c.Spawner.environment = {{
    "MCPMINI_PROGRESS": lambda spawner: os.path.join(
        HUB, "homes", spawner.user.name, ".mcpmini", "progress.json"
    ),
    "{lang_env}": {lang!r},
    # the class switches hold for learners; the instructor (an admin) sees everything
    "{class_env}": lambda spawner: "" if spawner.user.admin else os.path.join(HUB, "class.json"),
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


#: JupyterLab as ``make lab`` runs it: no news fetched, no update check (the toast that asks
#: about news is switched off by the settings ``make hub`` installs beside the hub's Python).
_LAB_ARGS = [
    "--LabApp.news_url=None",
    "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate",
]

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
    ``shared`` then saying why), the Python that serves the learners, and the edition."""

    root: Path
    url: str
    accounts: tuple[tuple[str, str], ...]
    admin: str
    config: Path
    os_accounts: tuple[tuple[str, str], ...] = ()
    shared: str = ""
    python: Path = Path(sys.executable)
    edition: Lang = Lang.JA


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


_PROBE = (
    "import os, sys; os.chdir(sys.argv[1]); import jupyterhub, mcpmini\n"
    "for place in sys.argv[2:]:\n"
    "    try:\n"
    "        open(place, 'rb').close()\n"
    "    except OSError:\n"
    "        continue\n"
    "    print('readable: ' + place)\n"
    "    raise SystemExit(3)\n"
)


def _probe(account: str, home: Path, python: Path, secret: list[Path]) -> str:
    """Why ``account`` cannot run ``python``'s hub server in ``home``, or can read one of
    ``secret`` (``""`` when all is as it must be)."""
    import pwd

    entry = pwd.getpwnam(account)
    try:  # into the home only once the account is switched to, as the spawner does
        done = subprocess.run(
            [str(python), "-c", _PROBE, str(home), *map(str, secret)],
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
        return f"another OS user cannot run {python} in {home} ({exc.strerror})"
    if done.returncode == 3:
        return f"a learner's account can read {done.stdout.strip().removeprefix('readable: ')}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["exit code " + str(done.returncode)])[-1]
        return f"another OS user cannot run {python} in {home} ({last[:160]})"
    return ""


def _unreachable_python(python: Path) -> str:
    """Why another OS user could not run ``python`` — a folder on its real path that others
    may not enter (``/root`` is ``0700``) — or ``""``."""
    real = Path(os.path.realpath(python))
    for place in [real, *real.parents]:
        try:
            mode = place.stat().st_mode
        except OSError:
            continue
        if not mode & 0o001:
            return f"{place} is closed to other users"
    return ""


def _fix(python: Path, why: str) -> str:
    return (
        f"the course's Python {python} cannot be run by the learners' OS accounts ({why}), so "
        "as root every learner would run as root: refused. Fix: run `make hub` (as root it makes "
        ".hub/venv from /usr/bin/python3), or install the course in a virtual environment made "
        "from /usr/bin/python3 outside /root and run make hub with it"
    )


def _locked_places(course: Path) -> list[Path]:
    """The :data:`LOCKED` folders of ``course`` that exist; for a git worktree (``.git`` a
    file) the repository folder its objects live in."""
    places = []
    for part in LOCKED:
        place = course / part
        if part == ".git" and place.is_file() and not place.is_symlink():
            text = place.read_text(encoding="utf-8", errors="replace").strip()
            gitdir = (course / text.removeprefix("gitdir:").strip()).resolve()
            common = gitdir / "commondir"
            if common.is_file():
                gitdir = (gitdir / common.read_text(encoding="utf-8").strip()).resolve()
            place = gitdir
        if place.is_dir() and not place.is_symlink():
            places.append(place)
    return places


def _solution_files(course: Path) -> list[Path]:
    """One file of each :data:`LOCKED` folder, for the probe to try to read as a learner."""
    found = []
    for place in _locked_places(course):
        found += [p for p in sorted(place.rglob("*")) if p.is_file()][:1]
    return found


def lock_solutions(course: Path, locked: bool) -> list[Path]:
    """Take other users' access to the :data:`LOCKED` folders of ``course`` away (``locked``)
    or give read access back; only the folders' own modes change (a folder others cannot
    enter keeps every file in it from them). Returns the folders."""
    changed = []
    for place in _locked_places(course):
        mode = stat.S_IMODE(place.stat().st_mode)
        os.chmod(place, mode & ~0o007 if locked else mode | 0o005)
        changed.append(place)
    return changed


def _own_accounts(root: Path, names: list[str], python: Path, secret: list[Path]) -> dict[str, str]:
    """One OS account per name (see the module doc): name → account. Raises
    :class:`HubError` when the servers cannot run as them or a learner's account reaches a
    file in ``secret`` (the accounts made are then removed)."""
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
    why = _probe(accounts[names[0]], root / "homes" / names[0], python, secret)
    if why:
        remove_accounts(root)
        raise HubError(_fix(python, why) if "cannot run" in why else f"{why}: refused")
    return accounts


def _tokens(path: Path, names: list[str]) -> dict[str, str]:
    """The tokens already issued (kept across runs), plus new ones for new names."""
    old: dict[str, str] = {}
    try:
        old = dict(json.loads(path.read_text(encoding="utf-8")).get("tokens", {}))
    except (OSError, ValueError, AttributeError):
        pass
    return {name: old.get(name) or secrets.token_urlsafe(12) for name in names}


def _sources(course: Path, edition: Lang) -> dict[str, Path]:
    """Each part of :data:`COURSE_PARTS` in ``edition``. Raises ``FileNotFoundError`` for a
    missing part, :class:`HubError` when the English edition is not built."""
    sources = {}
    for part in COURSE_PARTS:
        place = course / part
        if edition is Lang.EN and part in EDITION_PARTS:
            place = course / "en" / part
            if not (place / "00_start_here.ipynb").is_file() and part == "notebooks":
                raise HubError(
                    f"the English edition is not built ({place} has no 00_start_here.ipynb): "
                    "run make english first"
                )
        if not place.is_dir():
            raise FileNotFoundError(f"the course has no {part}/ folder: {place}")
        sources[part] = place
    return sources


def _fill_home(home: Path, sources: dict[str, Path], edition: Lang, learner: bool) -> None:
    """Copy the course into ``home`` (never over an existing copy), leave the instructor's
    notebooks out of a learner's, and mark the edition. Raises :class:`HubError` for a home
    made for the other edition."""
    # Not the edition marker: a home is the course's root for its notebooks (chapter 00 looks
    # for it), and the learner's language comes from the server's environment.
    marker = home / HOME_EDITION
    if marker.is_file():
        was = parse_lang(marker.read_text(encoding="utf-8"), str(marker))
        if was is not edition:
            raise HubError(
                f"{home} was made for the {was.value} edition: use another --root for the "
                f"{edition.value} edition, or remove the homes first"
            )
    for part, source in sources.items():
        top = source / INSTRUCTOR_ONLY if learner and part == "notebooks" else None

        def ignore(folder: str, names: list[str], top: Path | None = top) -> set[str]:
            skip = {n for n in names if n == ".ipynb_checkpoints"}
            if top is not None and Path(folder) == top.parent:
                skip.add(INSTRUCTOR_ONLY)  # the instructor's notebooks never reach a learner
            return skip

        if not (home / part).exists():
            shutil.copytree(source, home / part, symlinks=False, ignore=ignore)
    extra = home / "notebooks" / INSTRUCTOR_ONLY
    if learner and extra.exists() and not extra.is_symlink():
        shutil.rmtree(extra)  # put there by an earlier make hub: the instructor's only
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(edition.value + "\n", encoding="utf-8")


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # a file an earlier run left 0644 becomes the instructor's alone
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)


def prepare_hub(
    roster_text: str,
    *,
    course: Path,
    root: Path,
    admin: str = "instructor",
    ip: str = "127.0.0.1",
    port: int = 8000,
    idle_timeout: int = 3600,
    start_timeout: int = START_TIMEOUT,
    source: str = "roster",
    os_accounts: bool | None = None,
    edition: Lang | str = Lang.JA,
    python: Path | None = None,
    switches: dict[str, bool] | None = None,
) -> HubPlan:
    """Set up the hub folder ``root`` for the learners of ``roster_text`` (see the module doc).

    ``os_accounts``: one OS account per learner (``None``: when running as root; ``True``
    needs root). ``python`` is the interpreter whose ``jupyterhub-singleuser`` serves the
    learners (default: this one). ``switches`` sets the class switches (the rest keep their
    value from an earlier run, or :data:`~mcpmini.course.policy.SWITCHES`). Returns the
    :class:`HubPlan`. Raises :class:`~.roster.RosterError` for a bad roster or instructor name
    (nothing written), :class:`HubError` when the hub would run learners as root or let them
    read the solutions, or the English edition is not built, ``FileNotFoundError`` when
    ``course`` lacks a part of :data:`COURSE_PARTS`, ``PermissionError`` for
    ``os_accounts=True`` when not root, ``OSError`` when the folder cannot be written or an
    account not made.
    """
    python = Path(python or sys.executable)
    edition = Lang(edition)
    root_user = os.geteuid() == 0
    if os_accounts and not root_user:
        raise PermissionError("one OS account per learner needs root")
    own = root_user if os_accounts is None else os_accounts
    if root_user and not own:
        raise HubError("as root without an OS account per learner, learners would run as root")
    learners = parse_roster(roster_text, source)
    if not is_learner_name(admin):
        raise RosterError(f"invalid instructor name {admin!r}")
    if admin in learners:
        raise RosterError(f"{source}: the instructor {admin!r} is also listed as a learner")
    if edition not in (Lang.JA, Lang.EN):
        raise HubError(f"no {edition.value} edition of the course")
    sources = _sources(course, edition)
    if own and (why := _unreachable_python(python)):
        raise HubError(_fix(python, why))
    root = root.resolve()
    (root / "homes").mkdir(parents=True, exist_ok=True)
    for name in [*learners, admin]:
        _fill_home(root / "homes" / name, sources, edition, learner=name != admin)
    accounts = root / "accounts.json"
    tokens = _tokens(accounts, [*learners, admin])
    body = json.dumps({"learners": learners, "admin": admin, "tokens": tokens}, indent=1)
    _write_private(accounts, body)
    chosen = {**SWITCHES, **(read_switches(root / "class.json") or {}), **(switches or {})}
    write_switches(root / "class.json", chosen)
    if own:
        lock_solutions(course, not chosen["solutions"])
        secret = _solution_files(course) if not chosen["solutions"] else []
        mapping = _own_accounts(root, [*learners, admin], python, secret)
        shared, spawner = "", _OWN_SPAWNER.format(accounts=mapping)
    else:
        import getpass

        mapping = {}
        shared = SHARED.format(user=getpass.getuser()) + _AS_ROOT + _SOLUTIONS_SHARED
        spawner = _SHARED_SPAWNER
    bindir = python.parent
    config = root / "jupyterhub_config.py"
    _write_private(
        config,
        _CONFIG.format(
            hub=str(root),
            ip=ip,
            port=port,
            hub_port=port + 1,
            proxy_port=port + 2,
            singleuser=str(bindir / "jupyterhub-singleuser"),
            args=_LAB_ARGS,
            spawner=spawner,
            python=str(python),
            idle=idle_timeout,
            start_timeout=start_timeout,
            spawn_limit=max(10, len(learners) + 1),
            lang=edition.value,
            lang_env=LANG_ENV,
            class_env=CLASS_ENV,
        ),
    )
    return HubPlan(
        root,
        f"http://{ip}:{port}/",
        tuple((name, tokens[name]) for name in [*learners, admin]),
        admin,
        config,
        tuple(mapping.items()),
        shared,
        python,
        edition,
    )


def free_port(ip: str = "127.0.0.1") -> int:
    """A port on ``ip`` free with the next two: the hub's plan uses ``port`` (the proxy),
    ``port + 1`` (the hub's API) and ``port + 2`` (the proxy's API), and any of them taken
    stops the hub after it started its proxy."""
    import socket

    while True:
        with contextlib.ExitStack() as stack:
            first = stack.enter_context(socket.socket())
            first.bind((ip, 0))
            port = int(first.getsockname()[1])
            if port > 65000:
                continue
            try:
                for extra in (port + 1, port + 2):
                    stack.enter_context(socket.socket()).bind((ip, extra))
            except OSError:
                continue
            return port


def set_switches(root: Path, course: Path, **switches: bool) -> dict[str, bool]:
    """Turn class switches of the hub in ``root`` (see :mod:`mcpmini.course.policy`): written
    at once (running servers read it at each call) and, as root, the solution files locked or
    opened to match. Returns the switches now in force. Raises ``FileNotFoundError`` when
    ``root`` is no hub folder, ``ValueError`` for an unknown switch."""
    path = Path(root) / "class.json"
    if not (Path(root) / "accounts.json").is_file():
        raise FileNotFoundError(f"{root} is not a hub folder (no accounts.json): run make hub")
    now = write_switches(path, {**(read_switches(path) or SWITCHES), **switches})
    if os.geteuid() == 0 and _listed(Path(root)):
        lock_solutions(course, not now["solutions"])
    return now


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


def start_hub(plan: HubPlan, **popen: Any) -> subprocess.Popen[bytes]:
    """Start ``jupyterhub`` (the plan's Python's) on the plan's config, with umask ``077`` so
    that the database, the cookie secret and the pid files it writes are the instructor's
    alone. ``popen`` goes to :class:`subprocess.Popen` (output, session)."""
    hub = plan.python.parent / "jupyterhub"
    for name in ("jupyterhub.sqlite", "cookie_secret"):  # an earlier hub's, perhaps 0644
        with contextlib.suppress(OSError):
            os.chmod(plan.root / name, 0o600)
    return subprocess.Popen([str(hub), "-f", str(plan.config)], umask=0o077, **popen)


#: A line of the proxy about one request it could not route: while the hub is not (or no
#: longer) listening, every poll of its URL adds two of them, burying why the hub did not start.
_PROXY_NOISE = re.compile(
    r"\[ConfigProxy\] \w+: (?:\d{3} [A-Z]+ /|Failed to get custom error page|Requesting custom)"
)


#: The proxy colours its log levels (``\x1b[31merror\x1b[39m``).
_COLOUR = re.compile(r"\x1b\[[0-9;]*m")


def hub_log_excerpt(text: str, limit: int = 4000) -> str:
    """Why a hub did not start, from its log ``text``: its lines without the proxy's lines
    about requests it could not route (:data:`_PROXY_NOISE`, counted in one line), the
    when it is longer than ``limit``, from a little before the first error line (``[E``,
    ``[C``, a traceback) on, its start and its end; colour codes removed."""
    lines = _COLOUR.sub("", text).splitlines()
    kept = [line for line in lines if not _PROXY_NOISE.search(line)]
    dropped = len(lines) - len(kept)
    body = "\n".join(kept)
    if len(body) > limit:
        errors = [i for i, line in enumerate(kept) if line.startswith(("[E ", "[C ", "Traceback"))]
        if errors:  # from a little before the first error; its start and its end kept
            body = "\n".join(kept[max(0, errors[0] - 5) :])
            if len(body) > limit:
                body = body[: limit // 2] + "\n[...]\n" + body[-limit // 2 :]
        else:
            body = body[-limit:]
    note = f"\n({dropped} lines of the proxy about requests it could not route left out)"
    return body + (note if dropped else "")


def wait_for_hub(
    plan: HubPlan, proc: subprocess.Popen[bytes], log: Path, timeout: float = START_TIMEOUT
) -> float:
    """Wait until the hub started as ``proc`` (its output in ``log``) answers at the plan's
    URL; the seconds it took. Raises :class:`HubError` with why — the hub's exit code and
    :func:`hub_log_excerpt` of ``log`` — as soon as the hub exits, or when ``timeout`` seconds
    pass. The process is checked first: its proxy outlives it and answers every request with
    404, so the URL alone cannot tell a dead hub from a slow one."""
    import time
    import urllib.error
    import urllib.request

    def why() -> str:
        try:
            return hub_log_excerpt(log.read_text(encoding="utf-8", errors="replace"))
        except OSError as exc:
            return f"(its log {log} cannot be read: {exc.strerror})"

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, direct
    began = time.monotonic()
    while True:
        if proc.poll() is not None:
            raise HubError(f"the hub exited with {proc.returncode} before answering:\n{why()}")
        try:
            with opener.open(plan.url + "hub/api", timeout=2) as reply:
                if reply.status == 200:
                    return time.monotonic() - began
        except (OSError, ValueError):  # refused, 404 from the proxy alone, a reset: not up
            pass
        if time.monotonic() - began > timeout:
            raise HubError(f"the hub did not answer within {timeout:g} s:\n{why()}")
        time.sleep(0.25)  # polling a server that is starting: bounded by the timeout


def _run_hub(plan: HubPlan) -> int:
    """Run ``jupyterhub`` until it exits (Ctrl-C reaches it too); then remove the OS
    accounts the plan made. Returns its exit code."""
    proc = start_hub(plan)
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


def _switch(value: str) -> bool:
    if value not in ("on", "off"):
        raise argparse.ArgumentTypeError(f"{value!r}: use on or off")
    return value == "on"


def main(argv: list[str] | None = None) -> int:
    """``python -m mcpmini.course.classroom.hub ROSTER [--prepare-only]`` (what ``make hub``
    runs): set up ``.hub/``, print the URL and the accounts, then run ``jupyterhub``;
    ``--remove-accounts`` only removes the OS accounts a previous run left; ``--solutions`` /
    ``--hints`` without a roster turn the class switches of a hub that is set up."""
    parser = argparse.ArgumentParser(prog="make hub", description=main.__doc__)
    parser.add_argument("roster", nargs="?")
    parser.add_argument("--root", default=".hub")
    parser.add_argument("--admin", default="instructor")
    parser.add_argument("--ip", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--edition", default="ja", choices=["ja", "en"])
    parser.add_argument("--start-timeout", type=int, default=START_TIMEOUT)
    parser.add_argument("--solutions", type=_switch, metavar="on|off")
    parser.add_argument("--hints", type=_switch, metavar="on|off")
    parser.add_argument("--prepare-only", action="store_true")
    parser.add_argument("--remove-accounts", action="store_true")
    parser.add_argument(
        "--python-reachable",
        action="store_true",
        help="exit 0 when other OS users can run this Python, else say why and exit 1",
    )
    args = parser.parse_args(argv)
    if args.python_reachable:
        why = _unreachable_python(Path(sys.executable))
        if why:
            print(f"make hub: {sys.executable}: {why}; making .hub/venv", file=sys.stderr)
        return 1 if why else 0
    switches = {k: v for k in SWITCHES if (v := getattr(args, k)) is not None}
    if args.remove_accounts:
        gone = remove_accounts(Path(args.root))
        print(f"make hub-clean: removed the OS accounts {', '.join(gone) or '(none)'}")
        return 0
    if not args.roster and switches:
        try:
            now = set_switches(Path(args.root), Path.cwd(), **switches)
        except (OSError, ValueError) as exc:
            print(f"make hub-class: {exc}", file=sys.stderr)
            return 2
        print("class switches: " + ", ".join(f"{k} {'on' if v else 'off'}" for k, v in now.items()))
        return 0
    if not args.roster:
        parser.error("the roster file is required")
    if args.start_timeout < 10:
        print(f"make hub: --start-timeout {args.start_timeout}: at least 10 s", file=sys.stderr)
        return 2
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
            edition=args.edition,
            start_timeout=args.start_timeout,
            switches=switches,
        )
    except (RosterError, HubError, OSError) as exc:
        print(f"make hub: {exc}", file=sys.stderr)
        return 2
    _print_plan(plan)
    if args.prepare_only:
        return 0
    return _run_hub(plan)


def _print_plan(plan: HubPlan) -> None:
    switches = read_switches(plan.root / "class.json") or SWITCHES
    print(
        f"JupyterHub for {len(plan.accounts) - 1} learners at {plan.url} "
        f"({plan.edition.value} edition)"
    )
    if plan.os_accounts:
        print(
            "one OS user per learner (homes readable by their owner only): "
            + ", ".join(account for _, account in plan.os_accounts)
            + " — removed when the hub stops (or by make hub-clean)"
        )
    else:
        print(f"WARNING: {plan.shared}")
    print(
        "class switches: "
        + ", ".join(f"{k} {'on' if v else 'off'}" for k, v in switches.items())
        + " (make hub-class SOLUTIONS=on|off HINTS=on|off turns them while the hub runs)"
    )
    print("accounts (user name, first-login token — give each learner theirs):")
    for name, token in plan.accounts:
        print(f"  {name:<20} {token}" + ("   (instructor, admin)" if name == plan.admin else ""))


if __name__ == "__main__":
    sys.exit(main())
