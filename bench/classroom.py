"""A class of N at once: every learner logging in to the hub together, then the class graded.

``spawn``: a hub for N learners (``make hub``'s own setup: as root one OS account each, the
Python ``.hub/venv`` when this one is closed to them) on a scratch copy of the course; all N
log in and start their servers at the same moment (one thread each), and each learner's time
until their server answers is recorded. Target: the slowest within half of the hub's start
timeout (``START_TIMEOUT``), so a class logging in together never meets it; the ratio is
printed.

``grade``: the same N learners' four exercises in nbgrader's ``submitted/`` layout (half
solved, half untouched), graded by ``mcpmini grade`` with two workers, each learner's time until
their last row is written recorded. Target: the whole class in under 60 s per learner's four
notebooks on two workers (printed as a ratio).

Both write their figures into ``notebooks/instructor/class_times.json``, which the
instructor's guide shows. Run: ``.venv/bin/python bench/classroom.py [--learners 30]`` (as
root for one OS account per learner; minutes on a busy machine).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "notebooks" / "instructor" / "class_times.json"


def _python() -> Path:
    from mcpmini.course.classroom.hub import _unreachable_python

    if os.geteuid() == 0 and _unreachable_python(Path(sys.executable)):
        venv = ROOT / ".hub" / "venv" / "bin" / "python"
        if not venv.exists():
            raise SystemExit("as root with this Python closed to other users: run make hub first")
        return venv
    return Path(sys.executable)


def _login_and_spawn(base: str, name: str, token: str, start: threading.Event) -> float:
    """Log in as ``name`` and start their server when ``start`` is set; seconds until it answers."""
    import httpx

    client = httpx.Client(base_url=base, timeout=60)
    client.get("/hub/login")
    xsrf = [c.value for c in client.cookies.jar if c.name == "_xsrf"][-1]
    start.wait()
    began = time.monotonic()
    reply = client.post("/hub/login", data={"username": name, "password": token, "_xsrf": xsrf})
    assert reply.status_code == 302, reply.text[:200]
    client.headers["X-XSRFToken"] = [c.value for c in client.cookies.jar if c.name == "_xsrf"][-1]
    client.post(f"/hub/api/users/{name}/server")
    api = client.post(f"/hub/api/users/{name}/tokens", json={"note": "bench"}).json()["token"]
    deadline = began + 1800
    while time.monotonic() < deadline:
        try:
            status = httpx.get(
                f"{base}/user/{name}/api/status",
                headers={"Authorization": f"token {api}"},
                timeout=30,
            ).status_code
        except httpx.HTTPError:
            status = 0
        if status == 200:
            return time.monotonic() - began
        time.sleep(0.5)  # polling a server we do not control: bounded by the deadline
    raise RuntimeError(f"{name}'s server never answered")


def spawn(learners: int) -> dict[str, Any]:
    from mcpmini.course.classroom.hub import (
        START_TIMEOUT,
        free_port,
        prepare_hub,
        remove_accounts,
        start_hub,
        wait_for_hub,
    )

    scratch = Path(tempfile.mkdtemp(prefix="mcpmini-bench-hub-"))
    os.chmod(scratch, 0o755)
    course, root = scratch / "course", scratch / "hub"
    for part in ("notebooks", "examples", "exercises", "solutions"):
        shutil.copytree(ROOT / part, course / part)
    subprocess.run(["chmod", "-R", "a+rX", str(course)], check=True)
    root.mkdir()
    (root / "node_modules").symlink_to(ROOT / ".hub" / "node_modules", target_is_directory=True)
    names = [f"l{i:02d}" for i in range(learners)]
    plan = prepare_hub(
        "\n".join(names) + "\n", course=course, root=root, port=free_port(), python=_python()
    )
    tokens = dict(plan.accounts)
    log = (root / "hub.log").open("wb")
    proc = start_hub(plan, cwd=root, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    times: dict[str, float] = {}
    try:
        base = plan.url.rstrip("/")
        wait_for_hub(plan, proc, root / "hub.log")  # a hub that cannot start says why
        start = threading.Event()

        def one(name: str) -> None:
            times[name] = _login_and_spawn(base, name, tokens[name], start)

        threads = [threading.Thread(target=one, args=(n,)) for n in names]
        for t in threads:
            t.start()
        began = time.monotonic()
        start.set()
        for t in threads:
            t.join()
        total = time.monotonic() - began
    finally:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        remove_accounts(root)
        shutil.rmtree(scratch, ignore_errors=True)
    slowest = max(times.values())
    print(
        f"spawn: {learners} learners at once, median {statistics.median(times.values()):.1f} s, "
        f"slowest {slowest:.1f} s, all up after {total:.1f} s; slowest / start timeout "
        f"{START_TIMEOUT} s = {slowest / START_TIMEOUT:.2f} (target <= 0.5)"
    )
    return {"learners": learners, "seconds": sorted(times.values()), "total": total}


def grade(learners: int) -> dict[str, Any]:
    from mcpmini.course.classroom import grade_class

    scratch = Path(tempfile.mkdtemp(prefix="mcpmini-bench-grade-"))
    try:
        for i in range(learners):
            folder = scratch / "course" / "submitted" / f"l{i:02d}" / "exercises"
            folder.mkdir(parents=True)
            source = ROOT / ("solutions" if i % 2 == 0 else "exercises")
            for notebook in sorted(source.glob("9_*.ipynb")):
                shutil.copy(notebook, folder / notebook.name)
        finished: dict[str, float] = {}
        began = time.monotonic()

        def row(r: Any) -> None:
            finished[r.learner] = time.monotonic() - began

        grade_class(
            [scratch / "course"],
            scratch / "grades.csv",
            workers=2,
            timeout=120,
            progress=False,
            on_row=row,
        )
        total = time.monotonic() - began
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(
        f"grade: {learners} learners x 4 notebooks on 2 workers in {total:.1f} s "
        f"({total / (learners * 4):.2f} s per notebook); {total / (60 * learners):.2f} of the "
        "60 s per learner target (<= 1)"
    )
    return {"learners": learners, "seconds": sorted(finished.values()), "total": total}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("what", nargs="?", default="all", choices=["all", "spawn", "grade"])
    parser.add_argument("--learners", type=int, default=30)
    args = parser.parse_args()
    os.environ.setdefault("MCPMINI_PROGRESS", "off")
    data: dict[str, Any] = {}
    if OUT.exists():
        data = json.loads(OUT.read_text(encoding="utf-8"))
    data.update(cpus=os.cpu_count(), load_average=[round(x, 1) for x in os.getloadavg()])
    if args.what in ("all", "spawn"):
        data["spawn"] = spawn(args.learners)
    if args.what in ("all", "grade"):
        data["grade"] = grade(args.learners)
    OUT.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"written to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
