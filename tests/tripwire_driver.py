"""Runs inside the tripwire sandbox (``tests/gate_support.py``): each command of the plan,
one after another, and what it did that a read must not do. Standard library only: it runs
with ``python -I`` and imports nothing of the project.

For each command: ``bash -c COMMAND`` under ``strace -f -e trace=execve``, input closed,
within the plan's deadline; then the programs it started (each must be one of the command's
own, found on the real ``PATH``), the canary marks (a canary on ``PATH`` or in the working
folder ran), the inotify events on the outside secrets and the folders holding them (opened
or listed), the secret in its output, and every file of the writable folders compared with
the snapshot taken before (a change is put back before the next command).
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys

_IN_ACCESS, _IN_OPEN, _IN_NONBLOCK = 0x1, 0x20, 0x800


def _snapshot(folders: list[str], skip: set[str]) -> dict[str, tuple[object, ...]]:
    """Every entry under ``folders`` (``skip`` left out): its mode, and for a file its
    size, modification time and content (a folder changes when its entries do)."""
    seen: dict[str, tuple[object, ...]] = {}
    for top in folders:
        for folder, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if os.path.join(folder, d) not in skip]
            for name in [*dirs, *files]:
                path = os.path.join(folder, name)
                if path in skip:
                    continue
                st = os.lstat(path)
                if os.path.islink(path):
                    seen[path] = (st.st_mode, os.readlink(path))
                elif os.path.isfile(path):
                    with open(path, "rb") as handle:
                        digest = hashlib.sha1(handle.read()).hexdigest()
                    seen[path] = (st.st_mode, st.st_size, st.st_mtime_ns, digest)
                else:
                    seen[path] = (st.st_mode,)
    return seen


class _Watch:
    """inotify on the secrets and the folders that hold them (libc through ctypes)."""

    def __init__(self, paths: list[str]) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        self.fd = libc.inotify_init1(_IN_NONBLOCK)
        self.names: dict[int, str] = {}
        for path in paths:
            wd = libc.inotify_add_watch(self.fd, path.encode(), _IN_OPEN | _IN_ACCESS)
            if wd >= 0:
                self.names[wd] = path

    def events(self) -> list[str]:
        found: list[str] = []
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return found
            except OSError as exc:
                if exc.errno == errno.EAGAIN:
                    return found
                raise
            at = 0
            while at + 16 <= len(data):
                wd, _mask, _cookie, size = struct.unpack_from("iIII", data, at)
                name = data[at + 16 : at + 16 + size].rstrip(b"\0").decode(errors="replace")
                found.append(os.path.join(self.names.get(wd, "?"), name))
                at += 16 + size


def _execs(log: str) -> list[str]:
    """The programs strace saw started (successful ``execve`` calls only)."""
    started = []
    try:
        with open(log, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    for line in lines:
        if "execve(" in line and line.rstrip().endswith("= 0"):
            path = line.split('execve("', 1)[1].split('"', 1)[0]
            started.append(path)
    return started


def _own(programs: list[str], real_path: str) -> set[str]:
    """Where the command's own programs are, resolved on the real PATH (and bash)."""
    own = {os.path.realpath(shutil.which("bash", path=real_path) or "/bin/bash")}
    for name in programs:
        found = shutil.which(name, path=real_path)
        if found:
            own.add(os.path.realpath(found))
    return own


def _run(argv: list[str], cwd: str, env: dict[str, str], timeout: float) -> bytes:
    """Run ``argv`` in a process group of its own; at the deadline end the whole group (a
    command's children keep the output pipes open otherwise). Returns its output."""
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, _ = proc.communicate()
    return out[-65536:]


def _restore(kept: list[str], template: str, strays: set[str], secret: str) -> None:
    """Put the workspace back as it was before a command changed it."""
    for folder in kept:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(os.path.join(template, os.path.basename(folder)), folder, symlinks=True)
    for stray in strays:
        if not os.path.lexists(stray) or any(stray.startswith(k + "/") for k in kept):
            continue
        if os.path.isdir(stray) and not os.path.islink(stray):
            shutil.rmtree(stray, ignore_errors=True)
        else:
            os.unlink(stray)
    with open("/root/secret", "w", encoding="utf-8") as handle:
        handle.write(secret + "\n")


def main(plan_path: str) -> int:
    with open(plan_path, encoding="utf-8") as handle:
        plan = json.load(handle)
    os.chdir("/")  # the workspace is put back by removing it: never stand in it
    root, ws, home, outside = plan["root"], plan["ws"], plan["home"], plan["outside"]
    marks = os.path.join(root, "marks")
    logs = os.path.join(root, "logs")
    template = os.path.join(root, "template")
    os.makedirs(marks, exist_ok=True)
    os.makedirs(logs, exist_ok=True)
    os.makedirs("/root", exist_ok=True)
    with open("/root/secret", "w", encoding="utf-8") as handle:  # "~root/secret"
        handle.write(plan["secret"] + "\n")
    kept = [ws, home, outside]
    shutil.rmtree(template, ignore_errors=True)  # from an earlier run in this workspace
    for folder in kept:
        shutil.copytree(folder, os.path.join(template, os.path.basename(folder)), symlinks=True)
    skip = {marks, logs, template, plan_path, plan["out"], os.path.join(root, "bin")}
    skip |= set(plan["bound"])  # the interpreter, bound back over the hidden folders
    folders = ["/tmp", "/root", "/home"] + ([] if root.startswith("/tmp/") else [root])
    before = _snapshot(folders, skip)
    secrets = [outside, os.path.join(outside, "secret"), home, os.path.join(home, "secret")]
    secrets += ["/root", "/root/secret"]
    watch = _Watch(secrets)
    env = {
        "PATH": plan["path"],
        "HOME": home,
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "TRIPWIRE_MARKS": marks,
        # a value that runs the canary wherever bash evaluates it as arithmetic
        "X": "a[$(tripwire)]",
        "GIT_CONFIG_NOSYSTEM": "1",
        # a plain "git status" refreshes .git/index when it can; that is not what we look for
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_PAGER": "cat",
        "PAGER": "cat",
    }
    strace = shutil.which("strace", path=plan["real_path"]) or "strace"
    with open(plan["out"], "w", encoding="utf-8") as out:
        for i, case in enumerate(plan["cases"]):
            command = case["command"]
            log = os.path.join(logs, f"{i}.log")
            watch.events()
            why: list[str] = []
            output = _run(
                [strace, "-f", "-qq", "-e", "trace=execve", "-e", "signal=none", "-o", log,
                 "/bin/bash", "-c", command],
                ws, env, plan["timeout"],
            )  # fmt: skip
            own = _own(case["programs"], plan["real_path"])
            started = [os.path.realpath(os.path.join(ws, p)) for p in _execs(log)]
            others = [p for p in started if p not in own and not p.startswith("/usr/lib/git-core/")]
            if others:
                why.append("ran " + ", ".join(sorted(set(others))))
            ran = sorted(os.listdir(marks))
            if ran:
                why.append("ran the canary " + ", ".join(ran))
            opened = watch.events()
            if opened:
                why.append("opened " + ", ".join(sorted(set(opened))))
            if plan["secret"].encode() in output:
                why.append("printed the outside secret")
            after = _snapshot(folders, skip)
            changed = sorted({p for p in set(before) | set(after) if before.get(p) != after.get(p)})
            if changed:
                why.append("wrote " + ", ".join(changed[:4]))
                _restore(kept, template, set(after) - set(before), plan["secret"])
                before = _snapshot(folders, skip)
                watch = _Watch(secrets)  # the folders are new: watch them again
            for name in ran:
                os.unlink(os.path.join(marks, name))
            if os.path.exists(log):
                os.unlink(log)
            out.write(json.dumps({"command": command, "why": "; ".join(why)}) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
