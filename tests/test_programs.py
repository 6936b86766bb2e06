"""The one list of programs that run their arguments (issue 29, item 2): every layer peeled
with each runner's own option grammar, Claude Code 2.1.332's view of each (which layers its
rules see through), and — run for real in the tripwire — the program each peel names is the
one that runs."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from gate_support import Tripwire, tripwire_or_skip

from mcpmini.permissions.programs import RUNNERS, claude_sees, claude_strip, peel, unwrap


def _inner(command: str) -> list[str]:
    """What each layer runs: its words, or ``line:TEXT``, or ``stdin``."""
    out = []
    for layer in peel(command.split(" ") if "'" not in command else _split(command)):
        if layer.line is not None:
            out.append(f"line:{layer.line}")
        elif layer.stdin:
            out.append("stdin")
        else:
            out.append(" ".join(layer.words))
    return out


def _split(command: str) -> list[str]:
    import shlex

    return shlex.split(command)


@pytest.mark.parametrize(
    ("command", "layers"),
    [
        ("sudo -nu root rm x", ["rm x"]),
        ("sudo -iu bob rm x", ["rm x"]),
        ("sudo -u root -- nohup rm x", ["nohup rm x", "rm x"]),
        ("sudo VAR=1 rm x", ["rm x"]),
        ("sudo -l rm", []),  # lists, runs nothing
        ("env -i X=1 nohup rm x", ["nohup rm x", "rm x"]),
        ("env -S 'rm x'", ["line:rm x"]),
        ("env -S'rm x'", ["line:rm x"]),
        ("nohup -- rm x", ["rm x"]),
        ("command -- rm x", ["rm x"]),
        ("command -v rm", []),
        ("time -p -- rm x", ["rm x"]),
        ("timeout -k1 -s KILL 5 rm x", ["rm x"]),
        ("nice -n5 rm x", ["rm x"]),
        ("nice -5 nice --adjustment=3 rm x", ["nice --adjustment=3 rm x", "rm x"]),
        ("stdbuf -o 0 rm x", ["rm x"]),
        ("chrt -f 1 rm x", ["rm x"]),
        ("chrt -p 1 123", []),
        ("taskset -c 0 rm x", ["rm x"]),
        ("ionice -c3 rm x", ["rm x"]),
        ("strace -f -o log rm x", ["rm x"]),
        ("flock -n lk rm x", ["rm x"]),
        ("flock lk -c 'rm x'", ["line:rm x"]),
        ("script -qc 'rm x' /dev/null", ["line:rm x"]),
        ("script -q", ["stdin"]),
        ("su -c 'rm x' root", ["line:rm x"]),
        ("runuser -u bob -- rm x", ["rm x"]),
        ("chroot / rm x", ["rm x"]),
        ("chroot /", ["stdin"]),
        ("numactl --interleave=all rm x", ["rm x"]),
        ("unbuffer -p rm x", ["rm x"]),
        ("fakeroot -- rm x", ["rm x"]),
        ("parallel -j2 rm ::: a b", ["rm"]),
        ("watch -n 1 rm x", ["line:rm x"]),
        ("watch -x rm x", ["rm x"]),
        ("xargs -0 -n1 rm", ["rm"]),
        ("find . -name a -exec rm {} ;", ["rm {}"]),
        ("bash -xc 'rm x'", ["line:rm x"]),
        ("sh -c 'rm x' name arg", ["line:rm x"]),
        ("bash", ["stdin"]),
        ("eval rm x", ["line:rm x"]),
        ("/usr/bin/sudo /usr/bin/env rm x", ["/usr/bin/env rm x", "rm x"]),
        ("ls -la", []),
    ],
)
def test_every_layer_is_peeled_with_the_runners_own_grammar(
    command: str, layers: list[str]
) -> None:
    assert _inner(command) == layers


def test_a_runner_whose_options_cannot_be_placed_is_still_guessed_for_the_warnings() -> None:
    layer = unwrap(["ltrace", "--zzz", "rm", "x"])
    assert layer is not None and layer.guess and layer.words == ("rm", "x")


@pytest.mark.parametrize(
    ("command", "stripped"),
    [
        # observed in 2.1.332, with allow Bash(touch *): these run, so they are stripped
        ("nice touch w", "touch w"),
        ("nice -n 5 touch w", "touch w"),
        ("nice -5 touch w", "touch w"),
        ("nice -n -5 touch w", "touch w"),
        ("nohup touch w", "touch w"),
        ("command -- touch w", "touch w"),
        ("command -p touch w", "touch w"),
        ("stdbuf -oL -e0 touch w", "touch w"),
        ("timeout -k1 5 touch w", "touch w"),
        ("timeout -sKILL 5s touch w", "touch w"),
        ("timeout 5 nohup nice touch w", "touch w"),
        ("xargs touch", "touch"),
        # ... and these ask: not stripped
        ("nice -n5 touch w", "nice -n5 touch w"),
        ("nice --adjustment=5 touch w", "nice --adjustment=5 touch w"),
        ("nice -- touch w", "nice -- touch w"),
        ("nohup -- touch w", "nohup -- touch w"),
        ("time -- touch w", "time -- touch w"),
        ("time -p touch w", "time -p touch w"),
        ("stdbuf -o 0 touch w", "stdbuf -o 0 touch w"),
        ("stdbuf --output=0 touch w", "stdbuf --output=0 touch w"),
        ("timeout -- 5 touch w", "timeout -- 5 touch w"),
        ("xargs -- touch", "xargs -- touch"),
        ("sudo touch w", "sudo touch w"),
    ],
)
def test_claude_code_strips_wrappers_only_in_the_spellings_it_was_seen_to(
    command: str, stripped: str
) -> None:
    words = command.split()
    count, _ = claude_strip(words)
    assert " ".join(words[count:]) == stripped


def _seen(command: str) -> bool:
    """Whether Claude Code's deny check reaches ``rm`` behind the runners of ``command``."""
    import shlex

    words = shlex.split(command)
    views = [words]
    for kind, seen in claude_sees(words):
        views.append(shlex.split(seen) if kind == "line" else list(seen))
    return any(v and v[0].rsplit("/", 1)[-1] == "rm" for v in views)


@pytest.mark.parametrize(
    ("command", "seen"),
    [
        # observed in 2.1.332 under bypassPermissions with deny Bash(rm *): denied ...
        ("sudo -nu root rm d", True),
        ("sudo nohup rm d", True),
        ("sudo timeout 5 rm d", True),
        ("env nohup rm d", True),
        ("env -S 'rm d'", True),
        ("nohup -- rm d", True),
        ("command -- rm d", True),
        ("time -- rm d", True),
        ("chrt 1 rm d", True),
        ("taskset -c 0 rm d", True),
        ("flock lk -c 'rm d'", True),
        ("script -q -c 'rm d'", True),
        ("nice -n 5 sudo rm d", True),
        ("sudo nice rm d", True),
        ("/usr/bin/nohup rm d", True),
        # ... and run: the deny check does not see rm
        ("numactl rm d", False),
        ("fakeroot rm d", False),
        ("su -c 'rm d'", False),
        ("script -qc 'rm d' /dev/null", False),
        ("nice sudo rm d", False),
        ("nice -n5 rm d", False),
        ("stdbuf -o0 sudo rm d", False),
        ("timeout 5 nice sudo rm d", False),
        ("exec nice sudo rm d", False),
        ("xargs -0 rm", False),
        ("xargs nohup rm", False),
    ],
)
def test_claude_codes_deny_check_sees_through_the_layers_it_was_seen_to(
    command: str, seen: bool
) -> None:
    assert _seen(command) is seen


def test_the_list_of_runners_holds_the_issues_programs() -> None:
    wanted = {
        "sudo", "doas", "su", "command", "builtin", "exec", "time", "xargs", "nohup",
        "timeout", "nice", "env", "chrt", "taskset", "ionice", "numactl", "unbuffer",
        "script", "strace", "fakeroot", "chroot", "runuser", "parallel", "setsid", "flock",
        "stdbuf", "watch", "bash", "sh",
    }  # fmt: skip
    assert wanted <= set(RUNNERS)


@pytest.fixture(scope="module")
def tripwire() -> Iterator[Tripwire]:
    with tripwire_or_skip() as made:
        yield made


@pytest.mark.tripwire
def test_the_program_each_peel_names_is_the_one_that_runs(tripwire: Tripwire) -> None:
    # each runner by its full path (the tripwire's PATH holds canaries of the runners), in
    # front of "cat f": the tripwire reports any program that is not the command's own, and
    # the command's own are read through peel — a wrong peel shows up as "ran /usr/bin/cat"
    commands = [
        f"{shutil.which(c.split()[0], path='/usr/bin:/bin:/usr/sbin:/sbin')} "
        + " ".join(c.split()[1:])
        for c in (
            "timeout -k1 -s KILL 5 cat f",
            "nice -n5 cat f",
            "nice --adjustment=3 cat f",
            "nohup -- cat f",
            "stdbuf -o 0 cat f",
            "env -i X=1 cat f",
            "env -u X -- cat f",
            "setsid -w cat f",
            "flock -n lk cat f",
            "strace -qq -o /dev/null cat f",
            "xargs -a f -0 cat",
        )
        if shutil.which(c.split()[0], path="/usr/bin:/bin:/usr/sbin:/sbin")
    ]
    assert len(commands) >= 8
    findings = [f for f in tripwire.run(commands) if "ran" in f.why and "cat" in f.why]
    assert findings == []
    # the control: a program the command's own list leaves out (a line run by env -S, which
    # that list does not read) is reported
    (control,) = tripwire.run(["/usr/bin/env -S 'cat f'"])
    assert "ran /usr/bin/cat" in control.why
