"""Issue 14, the sandboxed Python runner under attack: each attack fails, nothing outside the
workspace changes, and nothing the program started is left running."""

from __future__ import annotations

import ast
import os
import socket
import sys
import tempfile
import warnings
from pathlib import Path

import pytest
from attack_support import require_bubblewrap, running_with, snapshot

from mcpmini.agent import Limits, SandboxOutcome, SandboxWarning, run_python
from mcpmini.agent import sandbox as sandbox_module

LIMITS = Limits(wall_seconds=10.0, cpu_seconds=5, memory_mb=400, output_bytes=20_000)


@pytest.fixture
def area(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace and, next to it, a folder the program must not touch."""
    require_bubblewrap()
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (outside / "keep.txt").write_text("precious\n")
    return workspace, outside


def test_killing_the_parent_does_not_reach_the_caller(area: tuple[Path, Path]) -> None:
    workspace, outside = area
    before = snapshot(outside)
    code = (
        "import os, signal\n"
        "for pid in {os.getppid(), 1}:\n"
        "    try:\n        os.kill(pid, signal.SIGKILL)\n    except OSError:\n        pass\n"
        "print('alive')\n"
    )
    result = run_python(code, workspace, LIMITS)
    assert result.isolated
    assert result.outcome is SandboxOutcome.OK and result.stdout == "alive\n"
    assert snapshot(outside) == before


def test_etc_shadow_cannot_be_read(area: tuple[Path, Path]) -> None:
    workspace, _ = area
    code = (
        "import errno\ntry:\n    open('/etc/shadow').read()\n    print('read')\n"
        "except OSError as e:\n    print(errno.errorcode[e.errno])\n"
    )
    result = run_python(code, workspace, LIMITS)
    assert result.ok and result.stdout.strip() in {"EACCES", "ENOENT", "EPERM"}


def test_files_outside_the_workspace_cannot_be_written(area: tuple[Path, Path]) -> None:
    workspace, outside = area
    before = snapshot(outside)
    probe = Path(tempfile.gettempdir()) / f"mcpmini-evil-{os.getpid()}.txt"
    targets = [outside / "keep.txt", outside / "new.txt", probe, Path.home() / ".mcpmini-evil"]
    code = (
        f"import sys\nfor target in sys.argv[1:] or {[str(t) for t in targets]!r}:\n"
        "    try:\n        open(target, 'w').write('pwned')\n        print('wrote', target)\n"
        "    except OSError:\n        print('refused')\n"
        "open('inside.txt', 'w').write('fine')\n"
    )
    result = run_python(code, workspace, LIMITS)
    assert result.ok
    # The host folders are refused; /tmp and the home folder are private (writes land in
    # the sandbox's own tmpfs and vanish with it).
    assert result.stdout.split("\n")[:2] == ["refused", "refused"]
    assert snapshot(outside) == before
    assert not probe.exists() and not (Path.home() / ".mcpmini-evil").exists()
    assert (workspace / "inside.txt").read_text() == "fine"  # the workspace itself is writable


def test_a_unix_socket_cannot_reach_a_listener_on_the_host(area: tuple[Path, Path]) -> None:
    workspace, _ = area
    folder = Path(tempfile.mkdtemp(prefix="mm-", dir="/tmp"))
    path = folder / "host.sock"
    abstract = f"\0mcpmini-attack-{os.getpid()}"
    listeners = []
    for address in (str(path), abstract):
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(address)
        server.listen()
        server.setblocking(False)
        listeners.append(server)
    try:
        code = (
            f"import socket\nfor address in {[str(path), abstract]!r}:\n"
            "    s = socket.socket(socket.AF_UNIX)\n"
            "    try:\n        s.connect(address)\n        print('connected')\n"
            "    except OSError:\n        print('refused')\n"
        )
        result = run_python(code, workspace, LIMITS)
        assert result.ok and result.stdout.split() == ["refused", "refused"]
        for server in listeners:
            with pytest.raises(BlockingIOError):
                server.accept()
    finally:
        for server in listeners:
            server.close()
        path.unlink(missing_ok=True)
        folder.rmdir()


def test_a_tcp_listener_on_the_host_loopback_is_unreachable(area: tuple[Path, Path]) -> None:
    workspace, _ = area
    server = socket.create_server(("127.0.0.1", 0))
    server.setblocking(False)
    port = server.getsockname()[1]
    try:
        code = (
            f"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
            "    print('connected')\nexcept OSError:\n    print('refused')\n"
        )
        result = run_python(code, workspace, LIMITS)
        assert result.ok and result.stdout.strip() == "refused"
        with pytest.raises(BlockingIOError):
            server.accept()
    finally:
        server.close()


def test_a_setsid_daemon_dies_with_the_run_which_is_not_a_timeout(area: tuple[Path, Path]) -> None:
    workspace, outside = area
    late = outside / "late.txt"
    code = (
        "import subprocess\n"
        f"subprocess.Popen(['sh', '-c', 'sleep 41.5; echo late > {late}'],\n"
        "                 start_new_session=True,\n"
        "                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "subprocess.Popen(['sh', '-c', 'sleep 41.6'], start_new_session=True)\n"
        "print('started')\n"
    )
    result = run_python(code, workspace, LIMITS)
    assert result.outcome is SandboxOutcome.OK  # not misreported as a timeout
    assert result.stdout == "started\n"
    assert running_with("41.5") == [] and running_with("41.6") == []
    assert not late.exists()


def test_the_environment_and_home_of_the_caller_are_not_visible(
    area: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace, _ = area
    monkeypatch.setenv("MCPMINI_ATTACK_SECRET", "s3cr3t")
    code = (
        "import os\nprint(os.environ.get('MCPMINI_ATTACK_SECRET'))\n"
        "print(sorted(os.listdir(os.path.expanduser('~'))))\nprint(os.listdir('/tmp'))\n"
    )
    result = run_python(code, workspace, LIMITS)
    secret, home, tmp = result.stdout.split("\n")[:3]
    assert result.ok and secret == "None" and home == "[]"
    # the private /tmp holds nothing but the folders leading to what the sandbox mounts: the
    # workspace and the Python running it (a virtual environment may live under /tmp too)
    mounted = {workspace.resolve(), *(Path(p).resolve() for p in (sys.prefix, sys.base_prefix))}
    leading = {p.parts[2] for p in mounted if len(p.parts) > 2 and p.parts[1] == "tmp"}
    assert sorted(ast.literal_eval(tmp)) == sorted(leading)


def test_without_bubblewrap_the_result_says_so_and_warns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox_module, "bubblewrap_available", lambda: False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run_python("print(1)", tmp_path, LIMITS)
    assert result.ok and result.isolated is False
    assert any(issubclass(w.category, SandboxWarning) for w in caught)
    assert result.as_text().splitlines()[0] == sandbox_module.NOT_ISOLATED
    with pytest.raises(RuntimeError):
        run_python("print(1)", tmp_path, LIMITS, require_isolation=True)


# --- issue 22: resource limits over the whole sandbox ------------------------------------------

BOUNDED = Limits(
    wall_seconds=20.0,
    cpu_seconds=10,
    memory_mb=200,
    output_bytes=20_000,
    max_processes=16,
    tmp_mb=4,
    workspace_mb=8,
)


def _needs_cgroup(result) -> None:
    if not result.enforcement.startswith("cgroup"):
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true runs as root, where a cgroup must be made: {result.enforcement}")
        pytest.skip(f"no cgroup can be made here ({result.enforcement})")


def test_a_fork_bomb_meets_the_process_limit_not_the_wall_clock(area: tuple[Path, Path]) -> None:
    workspace, outside = area
    before = snapshot(outside)
    code = (
        "import os, time\n"
        "while True:\n"
        "    try:\n        os.fork()\n    except OSError:\n        time.sleep(0.01)\n"
    )
    result = run_python(code, workspace, BOUNDED)
    _needs_cgroup(result)
    # PROCESS_LIMIT, not TIMEOUT: the process limit ended it, not the wall clock
    assert result.outcome is SandboxOutcome.PROCESS_LIMIT
    assert snapshot(outside) == before
    assert running_with(str(workspace)) == []


def test_memory_held_across_children_meets_one_limit_for_the_sandbox(
    area: tuple[Path, Path],
) -> None:
    workspace, _ = area
    # four children of 80 MB each: every one under the per-process limit, 320 MB together
    code = (
        "import os, time\n"
        "kids = []\n"
        "for _ in range(4):\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        block = bytearray(80 * 1024 * 1024)\n"
        "        time.sleep(30)\n"
        "        os._exit(0)\n"
        "    kids.append(pid)\n"
        "codes = [os.waitpid(k, 0)[1] for k in kids]\n"
        "raise SystemExit(1 if any(codes) else 0)\n"
    )
    result = run_python(code, workspace, BOUNDED)
    _needs_cgroup(result)
    assert result.outcome is SandboxOutcome.MEMORY
    assert running_with(str(workspace)) == []


def test_filling_the_private_tmp_stops_at_its_size(area: tuple[Path, Path]) -> None:
    workspace, _ = area
    code = (
        "chunk = b'x' * (1024 * 1024)\n"
        "with open('/tmp/fill', 'wb') as fh:\n"
        "    for _ in range(64):\n        fh.write(chunk)\n        fh.flush()\n"
    )
    result = run_python(code, workspace, BOUNDED)
    assert result.isolated
    assert result.outcome is SandboxOutcome.TMP_LIMIT


def test_many_files_growing_the_workspace_end_the_run(area: tuple[Path, Path]) -> None:
    workspace, outside = area
    before = snapshot(outside)
    code = (
        "import time\n"
        "chunk = b'x' * (1024 * 1024)\n"
        "for i in range(200):\n"
        "    with open(f'f{i}', 'wb') as fh:\n        fh.write(chunk)\n"
        "    time.sleep(0.01)\n"
    )
    result = run_python(code, workspace, BOUNDED)
    assert result.outcome is SandboxOutcome.WORKSPACE_LIMIT
    # checked every 0.1 s: the overshoot is what was written in that time, not the 200 MB
    assert sum(f.stat().st_size for f in workspace.iterdir()) < 40 * 1024 * 1024
    assert snapshot(outside) == before


def test_one_file_larger_than_the_workspace_cap_is_refused(area: tuple[Path, Path]) -> None:
    workspace, _ = area
    code = "open('big', 'wb').write(b'x' * (20 * 1024 * 1024))\n"
    result = run_python(code, workspace, BOUNDED)
    assert result.outcome is SandboxOutcome.WORKSPACE_LIMIT
    assert (workspace / "big").stat().st_size <= 8 * 1024 * 1024
