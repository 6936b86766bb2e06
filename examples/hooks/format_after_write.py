#!/usr/bin/env python3
"""PostToolUse hook: tidy a file after Claude wrote it (fail-open by design).

Strips trailing spaces and makes the file end with exactly one newline, then reports
what it did as additionalContext. The tool has already run, so this hook cannot block;
when something goes wrong it exits 1 (a non-blocking error) and work simply goes on.
"""

import json
import sys
from pathlib import Path


def main() -> int:
    data = json.load(sys.stdin)
    path = Path(data["tool_input"]["file_path"])
    if not path.is_file() or path.suffix not in {".py", ".md", ".txt", ".json", ".toml"}:
        return 0
    before = path.read_text(encoding="utf-8")
    after = "\n".join(line.rstrip() for line in before.splitlines()).rstrip("\n") + "\n"
    if after != before:
        path.write_text(after, encoding="utf-8")
    note = f"format_after_write: {path.name} {'tidied' if after != before else 'already tidy'}"
    print(
        json.dumps(
            {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": note}}
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
