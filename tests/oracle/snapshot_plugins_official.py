"""Rebuild ``tests/fixtures/plugins-official/`` from a clone of anthropics/claude-plugins-official.

Usage: ``python tests/oracle/snapshot_plugins_official.py CLONE_DIR`` (a git clone at the commit
to pin). What ``claude plugin validate`` reads is kept: the top-level ``LICENSE``, every
``.claude-plugin/`` file, ``hooks.json``, ``.mcp.json``, ``.lsp.json``, ``settings.json`` and the
front matter of every Markdown file (bodies cut to a short line). Every other file of
``plugins/`` and ``external_plugins/`` stays as an empty file, so the folder structure (a skill
folder without ``SKILL.md``, a hook script a command names) is the real one. A Markdown file
larger than ``KEEP_SIZE_ABOVE`` bytes keeps its length (its body is refilled to the same size),
so the SKILL.md size cap sees the real size.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "fixtures" / "plugins-official"
KEEP = {"plugin.json", "marketplace.json", "hooks.json", ".mcp.json", ".lsp.json", "settings.json"}
KEEP_SIZE_ABOVE = 64 * 1024
BODY = "(body trimmed from the snapshot)\n"


def _trim_markdown(text: str) -> str:
    lines = text.splitlines(keepends=True)
    head = ""
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() in ("---", "..."):
                head = "".join(lines[: i + 1])
                break
        else:
            head = text
    out = head + BODY
    size = len(text.encode("utf-8"))
    if size > KEEP_SIZE_ABOVE:
        out += "x" * (size - len(out.encode("utf-8")) - 1) + "\n"
    return out


def main(clone: Path) -> None:
    commit = subprocess.run(
        ["git", "-C", str(clone), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    tracked = subprocess.run(
        ["git", "-C", str(clone), "ls-files"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    for child in OUT.iterdir() if OUT.exists() else ():
        if child.name != "README.md":
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    OUT.mkdir(parents=True, exist_ok=True)
    for rel in tracked:
        src = clone / rel
        top = rel.split("/", 1)[0]
        if rel != "LICENSE" and top not in (".claude-plugin", "plugins", "external_plugins"):
            continue
        dst = OUT / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.name in KEEP or rel == "LICENSE" or src.name == "LICENSE":
            shutil.copyfile(src, dst)
        elif src.suffix.lower() == ".md" and src.name != "README.md":
            dst.write_text(_trim_markdown(src.read_text(encoding="utf-8")), encoding="utf-8")
        else:
            dst.write_bytes(b"")
        if src.stat().st_mode & 0o111:
            dst.chmod(0o755)
    (OUT / "COMMIT").write_text(commit + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
