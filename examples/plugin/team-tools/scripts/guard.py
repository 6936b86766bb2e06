#!/usr/bin/env python3
"""PreToolUse hook: exit 2 (block) when a Bash command contains `rm -rf`."""

import json
import sys

try:
    payload = json.load(sys.stdin)
except ValueError:
    print("guard: input is not JSON", file=sys.stderr)
    sys.exit(2)  # fail closed: a guard that cannot read its input blocks
command = str(payload.get("tool_input", {}).get("command", ""))
if "rm -rf" in command:
    print("guard: recursive force delete is blocked", file=sys.stderr)
    sys.exit(2)
sys.exit(0)
