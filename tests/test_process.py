"""The one subprocess runner: deadlines, capped output, and nothing it started survives."""

from __future__ import annotations

import sys
import time

import psutil
import pytest
from attack_support import Owned

from mcpmini import process
from mcpmini.process import Ending, Process
from mcpmini.skills import run_shell


def running_with(marker: str) -> list[int]:
    """Live processes whose command line mentions ``marker`` (a sleep length no other test uses)."""
    return [
        p.pid
        for p in psutil.process_iter(["cmdline", "status"])
        if p.info["status"] != psutil.STATUS_ZOMBIE
        and any(marker in part for part in p.info["cmdline"] or [])
    ]


@pytest.mark.parametrize(
    "command",
    [
        "sleep 37.1 & sleep 5",
        "nohup sleep 37.2 >/dev/null 2>&1 & sleep 5",
        "setsid sleep 37.3 & sleep 5",
        "setsid sh -c 'trap \"\" TERM; sleep 37.4 & wait' & sleep 5",
        "trap '' TERM; sleep 37.5 & sleep 5",
        "(setsid sh -c 'sleep 37.6 &' &); sleep 5",
    ],
)
def test_a_timeout_ends_everything_the_command_started(command: str) -> None:
    marker = command.split("sleep 37.")[1][:1]
    done = process.run(["sh", "-c", command], timeout=0.5, grace=0.1)
    assert done.ending is Ending.TIMEOUT and done.exit_code is None
    assert running_with(f"37.{marker}") == []


def test_run_shell_with_a_background_job_leaves_nothing_running() -> None:
    run = run_shell("sleep 37.7 & sleep 5", timeout=0.5)
    assert run.returncode is None
    assert running_with("37.7") == []


def test_a_program_that_exits_has_its_setsid_children_ended_too() -> None:
    done = process.run(
        ["sh", "-c", "setsid sleep 37.8 >/dev/null 2>&1 & echo started; exit 4"], timeout=10
    )
    assert done.ending is Ending.EXITED and done.exit_code == 4
    assert done.stdout == b"started\n"
    assert done.leftovers >= 1
    assert running_with("37.8") == []


def test_output_is_capped_per_stream_and_the_rest_is_counted() -> None:
    done = process.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.stdout.write('x' * 300000); sys.stderr.write('e' * 10)",
        ],
        timeout=20,
        cap=1000,
    )
    assert done.exit_code == 0
    assert done.stdout == b"x" * 1000 and done.stdout_bytes == 300000
    assert done.stderr == b"e" * 10 and done.truncated


def test_stop_at_cap_ends_a_chatty_program() -> None:
    done = process.run(
        [sys.executable, "-c", "while True: print('y' * 100)"],
        timeout=20,
        total_cap=5000,
        stop_at_cap=True,
    )
    assert done.ending is Ending.OUTPUT_LIMIT
    assert len(done.stdout) + len(done.stderr) <= 5000
    assert (
        not psutil.pid_exists(done.pid) or psutil.Process(done.pid).status() == psutil.STATUS_ZOMBIE
    )


def test_stdin_is_fed_and_a_program_that_never_reads_it_does_not_block() -> None:
    done = process.run(
        [sys.executable, "-c", "import sys; print(len(sys.stdin.buffer.read()))"],
        stdin=b"a" * 1_000_000,
        timeout=20,
    )
    assert done.stdout.strip() == b"1000000"
    ignored = process.run(["sh", "-c", "echo ok"], stdin=b"b" * 10_000_000, timeout=20)
    assert ignored.ending is Ending.EXITED and ignored.stdout == b"ok\n"


def test_a_missing_program_is_a_start_error_not_an_exception() -> None:
    done = process.run(["/nonexistent/program"], timeout=5)
    assert done.ending is Ending.START_ERROR and done.start_error


def test_read_keeps_one_deadline_across_a_trickle_of_bytes() -> None:
    script = (
        "import sys, time\n"
        "while True:\n"
        "    sys.stdout.write('x'); sys.stdout.flush(); time.sleep(0.01)\n"
    )
    with Process([sys.executable, "-c", script]) as proc:
        deadline = time.monotonic() + 0.5
        received = 0
        with pytest.raises(TimeoutError):
            while True:
                received += len(proc.read(deadline))
        assert received > 0  # the program never stops writing: only the deadline ended the reads


def test_write_returns_what_a_program_that_never_reads_took() -> None:
    with Process(["sleep", "37.9"]) as proc:
        written = proc.write(b"z" * 10_000_000, time.monotonic() + 0.3)
        assert 0 < written < 10_000_000
    assert running_with("37.9") == []


def test_close_ends_a_child_that_ignores_sigterm() -> None:
    script = "trap '' TERM; sleep 38.1 & echo go; wait"
    proc = Process(["sh", "-c", script])
    assert proc.read(time.monotonic() + 10) == b"go\n"
    proc.close(grace=0.1)
    assert running_with("38.1") == []
    assert proc.returncode is not None


@pytest.fixture(scope="module", autouse=True)
def module_processes():
    """Every process this module starts; none may outlive it (checked again at its end)."""
    with Owned() as owned:
        yield owned
        assert owned.wait_gone() == []


def test_nothing_is_left_of_what_this_module_started(module_processes) -> None:
    # only this module's: the processes other fixtures of the worker own are theirs
    assert module_processes.wait_gone() == []


def test_a_watch_that_names_a_limit_ends_the_run_and_everything_it_started() -> None:
    calls = []

    def watch() -> str | None:
        calls.append(1)
        return "enough" if len(calls) >= 3 else None

    done = process.run(
        [sys.executable, "-c", "import time; time.sleep(60)"], timeout=30, watch=watch
    )
    # Ending.LIMIT, not TIMEOUT: the watch ended the run, not its 30 s bound
    assert done.ending is Ending.LIMIT and done.limit == "enough" and done.exit_code is None
    assert not psutil.pid_exists(done.pid) or psutil.Process(done.pid).status() == "zombie"
