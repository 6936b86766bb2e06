"""The permission cases the tests and chapter 07 share: attacks that must not pass, and the
forms that sidestep a Bash deny rule (the rule is not a security boundary).

Each :class:`PermissionCase` is one tool call with its rules, mode, home and working
directory, the decision Claude Code's documented matching gives (``expected``) and the
bypass warnings the gate must attach. ``tests/test_attacks_permissions.py`` asserts every
row; chapter 07b renders :func:`case_rows` live from the runtime.

The rows are data in the runtime's words (commands, rules, verdicts, an English ``note``);
how chapter 07b labels them is the display part at the end: :func:`case_table` and
:func:`comparison_table` give the columns, the notes (:data:`NOTES`), the bypass kinds
(:data:`BYPASS_WORDS`) and the deciding station in the learner's language.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...permissions import BypassKind, GateResult, GateStage, PermissionRules, gate
from ..language import Text

__all__ = [
    "BYPASS_WORDS",
    "CASE_WORDS",
    "GROUP_WORDS",
    "HOME",
    "NOTES",
    "PERMISSION_CASES",
    "PROJECT",
    "VERDICT_WORDS",
    "PermissionCase",
    "case_rows",
    "case_summary",
    "case_table",
    "comparison_summary",
    "comparison_table",
    "run_case",
]

HOME = "/home/alice"
PROJECT = "/home/alice/proj"
_RM = ("Bash(rm:*)",)
SEEN = "observed in 2.1.332: the deny rule sees through it (documented: a sidestep)"
SEEN_29 = "observed in 2.1.332: its deny check sees this layer; mcpmini peels it too"
MISSED_29 = "observed in 2.1.332: runs; mcpmini keeps that verdict and warns of the layer"
_RM_SPACE = ("Bash(rm *)",)
_ALL = ("Bash",)
_BYPASS = "bypassPermissions"


@dataclass(frozen=True)
class PermissionCase:
    """One call through the gate and the outcome it must have.

    ``group`` is ``"attack"`` (issues 14 and 29: must not be auto-approved), ``"bypass"`` (a
    deny rule does not see the form; Claude Code's verdict is kept, with a warning) or
    ``"layers"`` (issue 29: a program that runs its arguments, under a deny rule in
    bypassPermissions — denied where Claude Code's check sees the layer, run with a warning
    where it does not).
    """

    group: str
    tool: str
    tool_input: Mapping[str, Any]
    expected: str
    allow: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    mode: str = "default"
    warnings: tuple[BypassKind, ...] = ()
    home: str = HOME
    cwd: str = PROJECT
    note: str = field(default="", compare=False)

    @property
    def call(self) -> str:
        """The call as one line: the command for Bash, ``Tool(path)`` otherwise."""
        if self.tool == "Bash":
            return str(self.tool_input.get("command", ""))
        arg = next((str(v) for v in self.tool_input.values()), "")
        return f"{self.tool}({arg})"


def _bash(group: str, command: str, expected: str, **kw: Any) -> PermissionCase:
    return PermissionCase(group, "Bash", {"command": command}, expected, **kw)


PERMISSION_CASES: tuple[PermissionCase, ...] = (
    # --- issue 14: default mode must auto-approve none of these, deny rule or not
    _bash("attack", "echo $(rm -rf ~)", "ask", note="substitution in an argument"),
    _bash("attack", "echo $(rm -rf ~)", "deny", deny=_RM, note="deny sees the nested rm"),
    _bash("attack", "find ~ -delete", "ask", note="find -delete always prompts"),
    _bash("attack", "find ~ -delete", "ask", deny=_RM),
    _bash("attack", r"find . -exec rm -rf {} \;", "ask", note="find -exec always prompts"),
    _bash(
        "attack", r"find . -exec rm -rf {} \;", "ask", deny=_RM, warnings=(BypassKind.EXEC_WRAPPER,)
    ),
    _bash("attack", "git diff --output=/root/.bashrc", "ask", note="--output writes a file"),
    _bash("attack", "which $(id)", "ask", note="argument computed by a substitution"),
    _bash("attack", "which $(id)", "ask", deny=_RM),
    _bash(
        "attack",
        "echo hi > ~/.bashrc",
        "ask",
        allow=("Bash(echo:*)",),
        note="a redirect is a file write",
    ),
    _bash("attack", "git status $(rm x)", "ask", allow=("Bash(git status:*)",)),
    _bash("attack", "$CMD -rf /", "ask", note="variable in command position"),
    _bash(
        "attack", "eval 'rm -rf /'", "ask", allow=("Bash(eval:*)",), note="eval cannot be verified"
    ),
    _bash(
        "attack",
        "echo x > /etc/passwd",
        "deny",
        allow=("Bash(echo:*)",),
        deny=("Edit(//etc/**)",),
        note="redirect judged by Edit rules",
    ),
    _bash("attack", "sed -i 's/a/b/' f", "ask", note="sed -i is not a read"),
    _bash("attack", "sed 's/a/b/w out' f", "ask", note="sed w writes a file"),
    _bash(
        "attack",
        "watch ls",
        "ask",
        allow=("Bash(watch:*)",),
        note="exec wrappers ignore prefix rules",
    ),
    _bash("attack", "rm -rf /", "ask", mode="acceptEdits", note="outside the working dir"),
    _bash(
        "attack", "cp evil .git/hooks/pre-commit", "ask", mode="acceptEdits", note="protected path"
    ),
    _bash("attack", "rm -rf ../other", "ask", mode="acceptEdits"),
    _bash("attack", "touch ~/.profile", "ask", mode="acceptEdits"),
    _bash(
        "attack",
        "GIT_EXTERNAL_DIFF=./evil git diff",
        "ask",
        note="an assignment can change what a read runs",
    ),
    _bash("attack", "PATH=/tmp/evil && ls", "ask", note="a later read runs another ls"),
    _bash("attack", "export PATH=/tmp/evil; ls", "ask"),
    _bash(
        "attack",
        "cd ~/.ssh && echo k >> authorized_keys",
        "ask",
        mode="acceptEdits",
        deny=("Edit(~/.ssh/**)",),
        note="after cd a relative target is unknown",
    ),
    _bash("attack", "cd /etc && rm passwd", "ask", mode="acceptEdits"),
    PermissionCase(
        "attack",
        "Write",
        {"file_path": f"{HOME}/.ssh/id_rsa", "content": "k"},
        "deny",
        deny=("Edit(~/.ssh/**)",),
        mode="acceptEdits",
        note="~ is the real home",
    ),
    PermissionCase(
        "attack",
        "Write",
        {"file_path": f"{HOME}/notes.txt", "content": "x"},
        "ask",
        mode="acceptEdits",
        note="acceptEdits stays in the working dir",
    ),
    PermissionCase(
        "attack",
        "Grep",
        {"pattern": "KEY", "path": "secrets"},
        "deny",
        deny=("Read(./secrets/**)",),
        note="Read rules cover Grep on the folder",
    ),
    PermissionCase(
        "attack", "Glob", {"pattern": "secrets/**"}, "deny", deny=("Read(./secrets/**)",)
    ),
    PermissionCase(
        "attack",
        "Read",
        {"file_path": f"{PROJECT}/secrets/k.pem"},
        "deny",
        deny=("Read(./secrets/**)",),
        note="absolute path, same file",
    ),
    # --- issue 29: words the gate took for data that bash runs, options in spellings a word
    # match misses, builtin forms that assign or evaluate (observed in 2.1.332: each asked)
    _bash(
        "attack",
        "ls && [[ 'a[$(touch P)]' -eq 0 ]]",
        "ask",
        note="[[ ]] evaluates the quoted subscript as arithmetic",
    ),
    _bash("attack", "cat f && [[ -v 'a[$(touch P)]' ]]", "ask", note="-v evaluates a subscript"),
    _bash("attack", "test -v 'a[$(touch P)]'", "ask"),
    _bash("attack", "[ -v 'a[$(touch P)]' ]", "ask"),
    _bash("attack", "printf -v 'a[$(touch P)]' x", "ask", note="printf -v assigns"),
    _bash("attack", "printf -v PATH %s . && ls", "ask", note="re-points PATH: a planted ./ls runs"),
    _bash("attack", "sort -oFILE f", "ask", note="-o with its value attached"),
    _bash("attack", "sort --outp=FILE f", "ask", note="getopt_long takes a shortened --output"),
    _bash("attack", f"sort -o{HOME}/FILE f", "ask"),
    _bash("attack", "file -C -m m", "ask", note="-C writes m.mgc"),
    _bash(
        "attack",
        f"git diff --no-index f {HOME}/secret",
        "ask",
        note="--no-index reads a file outside",
    ),
    _bash("attack", "sed -n 1p *", "ask", note="a file named -i would make it edit every file"),
    _bash("attack", "grep -R key .", "ask", note="-R follows symbolic links out of the folder"),
    _bash(
        "attack",
        "echo f | xargs -0 grep -f /etc/shadow",
        "ask",
        note="what xargs runs reads a file outside",
    ),
    _bash("attack", "cat ~root/.bashrc", "ask", note="~user is another home"),
    _bash("attack", "cp -t/etc f", "ask", mode="acceptEdits", note="-t with its value attached"),
    _bash(
        "attack",
        "cp -v f g",
        "ask",
        mode="acceptEdits",
        note="observed in 2.1.332: cp with any option asks",
    ),
    # --- what must still pass
    _bash("control", "ls -la && git status", "allow"),
    _bash("control", "sed -n 1p f", "allow"),
    _bash("control", "echo ok 2>/dev/null", "allow", allow=("Bash(echo:*)",)),
    _bash("control", "npm test | grep ok", "allow", allow=("Bash(npm test:*)",)),
    _bash("control", "mkdir -p build && touch build/x", "allow", mode="acceptEdits"),
    _bash("control", "watch ls", "allow", allow=("Bash(watch ls)",), note="exact rule"),
    _bash("control", "timeout 5 rm -rf /", "deny", deny=_RM, note="wrapper stripped"),
    _bash("control", "FOO=1 rm -rf /", "deny", deny=_RM, note="assignment stripped"),
    # --- a Bash deny rule is not a security boundary. Documented: sudo, env, a program path,
    # quoting and exec wrappers sidestep it; observed in Claude Code 2.1.332: its matcher sees
    # through those (they are denied), while bash -c is asked and eval / xargs with flags
    # still slip past it, in bypassPermissions even run.
    _bash("bypass", "rm -rf /", "deny", deny=_RM),
    _bash("bypass", "sudo rm -rf /", "deny", deny=_RM, note=SEEN),
    _bash("bypass", "env rm -rf /", "deny", deny=_RM, note=SEEN),
    _bash("bypass", "bash -c 'rm -rf /'", "ask", deny=_RM, warnings=(BypassKind.SHELL_C,)),
    _bash("bypass", "/bin/rm -rf /", "deny", deny=_RM, note=SEEN),
    _bash("bypass", '"rm" -rf /', "deny", deny=_RM, note=SEEN),
    _bash("bypass", "ls | xargs -0 rm", "ask", deny=_RM, warnings=(BypassKind.XARGS,)),
    _bash("bypass", "setsid rm -rf /", "deny", deny=_RM, note=SEEN),
    _bash("bypass", "eval 'rm -rf /'", "ask", deny=_RM, warnings=(BypassKind.EVAL,)),
    _bash("bypass", "exec rm -rf /", "deny", deny=_RM, note=SEEN),
    _bash(
        "bypass",
        "cat .env",
        "deny",
        deny=("Read(.env)",),
        note="observed in 2.1.332: refused as a Read of .env "
        "(documented: path rules bind the file tools only)",
    ),
    _bash(
        "bypass",
        "eval 'rm -rf /'",
        "allow",
        deny=_RM,
        mode="bypassPermissions",
        warnings=(BypassKind.EVAL,),
        note="bypass mode runs what the deny misses",
    ),
    _bash(
        "bypass",
        "bash -c 'rm -rf /'",
        "ask",
        deny=_RM,
        mode="bypassPermissions",
        warnings=(BypassKind.SHELL_C,),
        note="observed in 2.1.332: asked even in bypass mode",
    ),
    _bash(
        "bypass",
        "sudo rm -rf /",
        "deny",
        deny=_RM,
        allow=("Bash(sudo:*)",),
        note="observed in 2.1.332: the deny still wins over a broad allow",
    ),
    # --- issue 29, in bypassPermissions (it runs what no deny rule catches): layers Claude
    # Code 2.1.332 sees through are denied; the ones it misses keep its verdict, warned
    *(
        _bash("layers", command, "deny", allow=_ALL, deny=_RM_SPACE, mode=_BYPASS, note=SEEN_29)
        for command in (
            "sudo -nu root rm x",
            "sudo -iu bob rm x",
            "sudo nohup rm x",
            "sudo timeout 5 rm x",
            "env nohup rm x",
            "env -S 'rm x'",
            "nohup -- rm x",
            "command -- rm x",
            "time -- rm x",
            "chrt 1 rm x",
            "taskset 1 rm x",
            "ionice -c3 rm x",
            "strace rm x",
            "script -c 'rm x'",
        )
    ),
    *(
        _bash(
            "layers",
            command,
            "allow",
            allow=_ALL,
            deny=_RM_SPACE,
            mode=_BYPASS,
            warnings=(kind,),
            note=MISSED_29,
        )
        for command, kind in (
            ("numactl rm x", BypassKind.EXEC_WRAPPER),
            ("unbuffer rm x", BypassKind.EXEC_WRAPPER),
            ("fakeroot rm x", BypassKind.EXEC_WRAPPER),
            ("chroot / rm x", BypassKind.EXEC_WRAPPER),
            ("runuser -u bob rm x", BypassKind.EXEC_WRAPPER),
            ("parallel rm ::: x", BypassKind.EXEC_WRAPPER),
            ("su -c 'rm x'", BypassKind.SUDO),
            ("nice sudo rm x", BypassKind.SUDO),
            ("bash <<< 'rm x'", BypassKind.SHELL_INPUT),
            ("echo 'rm x' | bash", BypassKind.SHELL_INPUT),
            ("${X:-rm} x", BypassKind.COMPUTED),
            ("rm${IFS}-rf x", BypassKind.COMPUTED),
        )
    ),
)


def run_case(case: PermissionCase) -> GateResult:
    """Put ``case`` through :func:`~mcpmini.permissions.gate` with its rules, mode, home, cwd."""
    rules = PermissionRules(case.allow, case.ask, case.deny)
    return gate(
        case.tool, case.tool_input, rules=rules, mode=case.mode, cwd=case.cwd, home=case.home
    )


def case_rows(group: str | None = None) -> list[dict[str, str]]:
    """One row per case (``group`` filters), computed live: call, rules, mode, the expected
    and actual decision, the step that decided, and the bypass warnings found."""
    rows = []
    for case in PERMISSION_CASES:
        if group is not None and case.group != group:
            continue
        result = run_case(case)
        rules = [
            *(f"allow {r}" for r in case.allow),
            *(f"ask {r}" for r in case.ask),
            *(f"deny {r}" for r in case.deny),
        ]
        rows.append(
            {
                "group": case.group,
                "call": case.call,
                "rules": ", ".join(rules),
                "mode": case.mode,
                "expected": case.expected,
                "actual": result.final.value,
                "decided_by": result.decided_by.value,
                "warnings": ", ".join(w.kind.value for w in result.warnings),
                "note": case.note,
            }
        )
    return rows


# --- how chapter 07b shows the rows: labels in the learner's language -----------------------

#: The Japanese of each row's ``note`` (the English is the note itself). A note missing here is
#: shown as it is; ``tests/test_attacks_permissions.py`` asks for every note of the table.
_NOTES_JA: dict[str, str] = {
    "substitution in an argument": "引数の中の置換",
    "deny sees the nested rm": "deny は入れ子の rm を見つける",
    "find -delete always prompts": "find -delete は毎回確認",
    "find -exec always prompts": "find -exec は毎回確認",
    "--output writes a file": "--output はファイルを書く",
    "argument computed by a substitution": "置換で作られる引数",
    "a redirect is a file write": "リダイレクトはファイルへの書き込み",
    "variable in command position": "コマンドの位置にある変数",
    "eval cannot be verified": "eval は中身を確かめられない",
    "redirect judged by Edit rules": "リダイレクトは Edit の規則で判定",
    "sed -i is not a read": "sed -i は読み取りではない",
    "sed w writes a file": "sed の w はファイルを書く",
    "exec wrappers ignore prefix rules": "実行を包むコマンドには前方一致の規則が効かない",
    "outside the working dir": "作業フォルダの外",
    "protected path": "保護されたパス",
    "an assignment can change what a read runs": "代入で読み取りのコマンドの動きが変わりうる",
    "a later read runs another ls": "あとの読み取りが別の ls を走らせる",
    "after cd a relative target is unknown": "cd のあとでは相対パスの行き先が分からない",
    "~ is the real home": "~ は本当のホーム",
    "acceptEdits stays in the working dir": "acceptEdits は作業フォルダの中だけ",
    "Read rules cover Grep on the folder": "Read の規則はそのフォルダへの Grep にも効く",
    "absolute path, same file": "絶対パスでも同じファイル",
    "exact rule": "完全一致の規則",
    "wrapper stripped": "前置きのコマンドは取り除かれる",
    "assignment stripped": "代入は取り除かれる",
    SEEN: "2.1.332 で観察: deny 規則はこれを見通す（文書では、すり抜ける形）",
    "observed in 2.1.332: refused as a Read of .env "
    "(documented: path rules bind the file tools only)": (
        "2.1.332 で観察: .env の Read として拒否"
        "（文書では、パスの規則はファイルのツールにだけ効く）"
    ),
    "bypass mode runs what the deny misses": "bypassPermissions では deny が見落としたものが走る",
    "observed in 2.1.332: asked even in bypass mode": (
        "2.1.332 で観察: bypassPermissions でも確認"
    ),
    "observed in 2.1.332: the deny still wins over a broad allow": (
        "2.1.332 で観察: 広い allow があっても deny が勝つ"
    ),
    # the rows of issue 29 (the gate that approves only what it fully understands)
    "[[ ]] evaluates the quoted subscript as arithmetic": (
        "[[ ]] は引用符の中の添字も算術式として評価する"
    ),
    "-v evaluates a subscript": "-v は添字を評価する",
    "printf -v assigns": "printf -v は代入する",
    "re-points PATH: a planted ./ls runs": "PATH を向け直す: 置かれた ./ls が走る",
    "-o with its value attached": "値をくっつけた -o",
    "getopt_long takes a shortened --output": "getopt_long は短くした --output も受け付ける",
    "-C writes m.mgc": "-C は m.mgc を書く",
    "--no-index reads a file outside": "--no-index は外のファイルを読む",
    "a file named -i would make it edit every file": (
        "-i という名前のファイルがあると、すべてのファイルを書き換える"
    ),
    "-R follows symbolic links out of the folder": (
        "-R はシンボリックリンクをたどってフォルダの外へ出る"
    ),
    "what xargs runs reads a file outside": "xargs が走らせるコマンドが外のファイルを読む",
    "~user is another home": "~user は別の利用者のホーム",
    "-t with its value attached": "値をくっつけた -t",
    "observed in 2.1.332: cp with any option asks": (
        "2.1.332 で観察: オプション付きの cp はどれも確認"
    ),
    SEEN_29: "2.1.332 で観察: deny の検査はこの層を見通す。mcpmini も剥がす",
    MISSED_29: "2.1.332 で観察: そのまま走る。mcpmini も同じ判定にして、この層を警告する",
}
#: Every note of :data:`PERMISSION_CASES` in both languages (``Text(ja, en)``).
NOTES: dict[str, Text] = {en: Text(ja, en) for en, ja in _NOTES_JA.items()}

#: The bypass kinds a warning names (the runtime's :class:`~mcpmini.permissions.BypassKind`
#: values) in words; a kind missing here is shown by its value.
BYPASS_WORDS: dict[str, Text] = {
    "sudo": Text("sudo", "sudo"),
    "env": Text("env", "env"),
    "shell -c": Text("シェルの -c", "shell -c"),
    "eval": Text("eval", "eval"),
    "program path": Text("プログラムのパス", "program path"),
    "quoting": Text("引用符", "quoting"),
    "exec wrapper": Text("実行を包むコマンド", "exec wrapper"),
    "xargs with flags": Text("オプション付きの xargs", "xargs with flags"),
    "file named to a Bash command": Text(
        "Bash のコマンドに渡されたファイル", "file named to a Bash command"
    ),
    "line continuation": Text("行の継続", "line continuation"),
    "ANSI-C quoting": Text("ANSI-C の引用符", "ANSI-C quoting"),
    "brace expansion": Text("波括弧の展開", "brace expansion"),
    "a shell reading its input": Text("入力を読むシェル", "a shell reading its input"),
    "computed command word": Text("計算で作られるコマンド名", "computed command word"),
}

#: The columns and fixed texts of chapter 07b's tables.
CASE_WORDS: dict[str, Text] = {
    "group": Text("組", "group"),
    "call": Text("呼び出し", "call"),
    "rules": Text("規則", "rules"),
    "mode": Text("モード", "mode"),
    "expected": Text("期待", "expected"),
    "actual": Text("mcpmini の判定", "mcpmini"),
    "decided_by": Text("決めた関門", "decided at"),
    "warnings": Text("警告", "warnings"),
    "note": Text("注", "note"),
    "agree": Text("一致", "agree"),
    "yes": Text("はい", "yes"),
    "no": Text("いいえ", "no"),
    "summary": Text(
        "{n} 件。期待どおり {ok} 件、自動で通ったもの（allow）{auto} 件",
        "{n} cases: {ok} as expected, {auto} auto-approved (allow)",
    ),
    "agreement": Text(
        "本物に送った {n} 行のうち {k} 行で一致", "agree on {k} of the {n} rows sent to it"
    ),
}

#: Claude Code's column where it holds words, not a verdict: a tool the binary lacks, and
#: the case not sent to it (``claude_code.NOT_RUN``, kept in the recording as written).
VERDICT_WORDS: dict[str, Text] = {
    "no such tool": Text("ツールが無い (no such tool)", "no such tool"),
    "not run: allowed, it never ends": Text(
        "送っていない（許可されると終わらない）", "not run: allowed, it never ends"
    ),
}

#: The groups of :data:`PERMISSION_CASES`, as the comparison table names them.
GROUP_WORDS: dict[str, Text] = {
    "attack": Text("攻撃", "attack"),
    "control": Text("対照", "control"),
    "bypass": Text("すり抜け", "bypass"),
    "layers": Text("層", "layers"),
}

_STATION_WORDS: dict[str, Text] = {
    GateStage.HOOKS.value: Text("フック", "hooks"),
    GateStage.DENY_RULES.value: Text("deny 規則", "deny rules"),
    GateStage.ASK_RULES.value: Text("ask 規則", "ask rules"),
    GateStage.SAFETY_CHECK.value: Text("削除の検査", "removal check"),
    GateStage.HOOK_DECISION.value: Text("フックの決定", "hook decision"),
    GateStage.MODE.value: Text("権限モード", "permission mode"),
    GateStage.ALLOW_RULES.value: Text("allow 規則", "allow rules"),
    GateStage.FALLBACK.value: Text("どれにも当たらない", "nothing matched"),
}


def _shown(row: dict[str, Any]) -> dict[str, Any]:
    """A row of :func:`case_rows` with its words in the learner's language."""
    kinds = [k.strip() for k in row["warnings"].split(",") if k.strip()]
    return {
        **row,
        "decided_by": _STATION_WORDS.get(row["decided_by"], row["decided_by"]),
        "warnings": ", ".join(str(BYPASS_WORDS.get(k, k)) for k in kinds),
        "note": NOTES.get(row["note"], row["note"]) if row["note"] else "",
    }


def case_table(
    group: str | None = None,
    columns: tuple[str, ...] = ("call", "rules", "mode", "expected", "actual", "decided_by"),
) -> Any:
    """:func:`case_rows` (``group`` filters) as a ``DataFrame`` of ``columns`` (keys of a row)
    labelled in the learner's language, with the deciding station, the warnings and the notes
    in words."""
    from .tables import frame

    rows = [_shown(r) for r in case_rows(group)]
    return frame(rows, {key: CASE_WORDS[key] for key in columns})


def case_summary(group: str | None = None) -> str:
    """One line on :func:`case_rows`: how many cases, how many decided as expected, how many
    auto-approved."""
    rows = case_rows(group)
    ok = sum(r["expected"] == r["actual"] for r in rows)
    auto = sum(r["actual"] == "allow" for r in rows)
    return str(CASE_WORDS["summary"].format(n=len(rows), ok=ok, auto=auto))


def comparison_table(
    rows: list[dict[str, str]],
    version: str,
    columns: tuple[str, ...] = ("group", "call", "rules", "mode", "actual"),
) -> Any:
    """The rows of :func:`~.claude_code.attack_rows` (each case with Claude Code ``version``'s
    verdict and whether the two agree) as a ``DataFrame``: ``columns`` of each case, then
    Claude Code's verdict and the agreement, labelled in the learner's language (``—`` where
    the case was not sent)."""
    from .tables import frame

    claude = f"Claude Code {version}"
    shown = []
    for row in rows:
        agree = {"yes": CASE_WORDS["yes"], "NO": CASE_WORDS["no"]}.get(row["agree"], row["agree"])
        verdict = row[claude]
        word = VERDICT_WORDS.get(verdict, verdict)
        group = GROUP_WORDS.get(row["group"], row["group"])
        shown.append({**_shown(row), "group": group, claude: word, "agree": agree})
    labels: dict[str, Text | str] = {key: CASE_WORDS[key] for key in columns}
    labels[claude] = claude
    labels["agree"] = CASE_WORDS["agree"]
    return frame(shown, labels)


def comparison_summary(rows: list[dict[str, str]]) -> str:
    """How many of the cases of :func:`~.claude_code.attack_rows` sent to Claude Code got
    mcpmini's verdict."""
    sent = [r for r in rows if r["agree"] in ("yes", "NO")]
    agreeing = sum(r["agree"] == "yes" for r in sent)
    return str(CASE_WORDS["agreement"].format(n=len(sent), k=agreeing))
