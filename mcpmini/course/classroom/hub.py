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

Rules of this module: every name comes from :func:`~.roster.parse_roster` (a duplicate or
invalid name stops before anything is written); the instructor's name may not be a
learner's; the hub listens on loopback unless told otherwise. The servers are plain local
processes of one OS user: the file browser is limited to each home, but a learner's kernel
can read other folders — for learners you do not trust, use per-user OS accounts or Zero to
JupyterHub (README).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from .roster import RosterError, is_learner_name, parse_roster

__all__ = ["COURSE_PARTS", "HubPlan", "prepare_hub"]

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
c.JupyterHub.spawner_class = "jupyterhub.spawner.SimpleLocalProcessSpawner"
c.SimpleLocalProcessSpawner.home_dir_template = os.path.join(HUB, "homes", "{{username}}")
c.Spawner.cmd = [{singleuser!r}]
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


@dataclass(frozen=True)
class HubPlan:
    """What :func:`prepare_hub` set up: the hub folder, the URL, ``(name, token)`` accounts
    (learners first, then the instructor) and the config file to start ``jupyterhub`` with."""

    root: Path
    url: str
    accounts: tuple[tuple[str, str], ...]
    admin: str
    config: Path


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
) -> HubPlan:
    """Set up the hub folder ``root`` for the learners of ``roster_text`` (see the module doc).

    Returns the :class:`HubPlan`. Raises :class:`~.roster.RosterError` for a bad roster or
    instructor name (nothing written), ``FileNotFoundError`` when ``course`` lacks a part of
    :data:`COURSE_PARTS`, ``OSError`` when the folder cannot be written.
    """
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
            args=["--allow-root"] if os.geteuid() == 0 else [],
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
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m mcpmini.course.classroom.hub ROSTER [--prepare-only]`` (what ``make hub``
    runs): set up ``.hub/``, print the URL and the accounts, then run ``jupyterhub``."""
    import argparse

    parser = argparse.ArgumentParser(prog="make hub", description=main.__doc__)
    parser.add_argument("roster")
    parser.add_argument("--root", default=".hub")
    parser.add_argument("--admin", default="instructor")
    parser.add_argument("--ip", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--prepare-only", action="store_true")
    args = parser.parse_args(argv)
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
    print("accounts (user name, first-login token — give each learner theirs):")
    for name, token in plan.accounts:
        print(f"  {name:<20} {token}" + ("   (instructor, admin)" if name == plan.admin else ""))
    if args.prepare_only:
        return 0
    bindir = Path(sys.executable).parent
    os.execv(str(bindir / "jupyterhub"), [str(bindir / "jupyterhub"), "-f", str(plan.config)])
    return 0  # pragma: no cover - execv does not return


if __name__ == "__main__":
    sys.exit(main())
