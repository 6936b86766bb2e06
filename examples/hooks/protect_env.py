#!/usr/bin/env python3
"""PreToolUse hook: refuse writes to .env files (fail-closed).

Reads the hook input (JSON on stdin) and answers with its exit code:
2 = blocking error (the write is refused, stderr is the reason), 0 = no objection.
Anything it cannot understand is refused too, so a malformed input can never slip
through; register it with "onFailure": "block" so a crash or a wrong path also refuses.
"""

import json
import sys

PATH_KEYS = ("file_path", "notebook_path")


def is_env_file(path: str) -> bool:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name == ".env" or name.startswith(".env.")


def main() -> int:
    try:
        data = json.load(sys.stdin)
        tool_input = data["tool_input"]
        paths = [tool_input[k] for k in PATH_KEYS if isinstance(tool_input.get(k), str)]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        print(f"protect_env: cannot read the hook input ({exc!r}); refusing", file=sys.stderr)
        return 2
    for path in paths:
        if is_env_file(path):
            print(f"protect_env: {path} is a secrets file and may not be written", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
