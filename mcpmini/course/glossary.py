"""The course's glossary: one Japanese term per concept, read from ``data/glossary.yaml``.

Each section (``course``, ``exam``) lists entries ``{ja, en, note, avoid}``; ``avoid`` holds
the variants ``tests/test_glossary.py`` rules out of every notebook and course module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["GLOSSARY", "load_glossary"]

#: The glossary file shipped with the package.
GLOSSARY = Path(__file__).with_name("data") / "glossary.yaml"


def load_glossary(path: Path = GLOSSARY) -> dict[str, list[dict[str, Any]]]:
    """The glossary's sections, each a list of entries. Raises ``OSError`` when the file
    cannot be read and ``yaml.YAMLError`` when it is not YAML."""
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return {str(section): list(items or []) for section, items in data.items()}
