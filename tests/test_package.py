"""Package-wide rules: explicit exports, and a runtime that never pulls in the course layer."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys

import mcpmini

RUNTIME = sorted(m.name for m in pkgutil.iter_modules(mcpmini.__path__)
                 if not m.name.startswith("_") and m.name != "course")


def test_every_runtime_module_declares_all_and_exports_exist():
    for name in RUNTIME:
        module = importlib.import_module(f"mcpmini.{name}")
        exported = getattr(module, "__all__", None)
        assert exported is not None, f"mcpmini.{name} has no __all__"
        missing = [n for n in exported if not hasattr(module, n)]
        assert missing == [], f"mcpmini.{name}.__all__ names missing objects: {missing}"


def test_the_runtime_never_imports_the_course_layer_or_its_heavy_libraries():
    code = ("import json, sys\n"
            + "".join(f"import mcpmini.{name}\n" for name in RUNTIME if name != "cli")
            + "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
              "('matplotlib', 'pandas', 'ipywidgets') or m.startswith('mcpmini.course'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []


def test_lazy_top_level_names_resolve():
    assert mcpmini.Server.__name__ == "Server" and mcpmini.Client.__name__ == "Client"
    assert callable(mcpmini.serve_stdio) and callable(mcpmini.memory_pair)
