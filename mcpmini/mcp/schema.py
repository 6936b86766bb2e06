"""JSON Schema for tools: a schema from a function's signature, and fast validation.

:func:`schema_from_function` reads type hints and an ``Args:`` docstring section into an
input schema. :class:`Validator` checks arguments against a schema: when the schema uses
only keywords both libraries read alike, valid arguments take a fast path through a
validator compiled by :mod:`fastjsonschema` (about 20× quicker than interpreting the
schema on every call); otherwise, and whenever the fast path rejects them, :mod:`jsonschema`
decides and produces the full list of messages. ``bench/schema.py`` measures what the fast
path is worth end to end over stdio (1.3x-1.8x calls per second, half the server CPU per call,
on a busy 2-core machine), which is why the second dependency stays.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import fastjsonschema
import jsonschema

from ..errors import json_path

__all__ = [
    "Validator",
    "check_schema",
    "docstring_parts",
    "schema_from_function",
]

_JSON_TYPES: dict[Any, str] = {
    int: "integer",
    float: "number",
    str: "string",
    bool: "boolean",
    dict: "object",
    list: "array",
    type(None): "null",
}


def _type_schema(annotation: Any) -> dict[str, Any]:
    """JSON Schema for one parameter annotation (best effort; unknown types are unconstrained)."""
    if annotation is inspect.Parameter.empty or annotation is Any:
        return {}
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [_type_schema(a) for a in typing.get_args(annotation)]
        return {"anyOf": options} if all(options) else {}
    if origin is typing.Literal:
        return {"enum": list(typing.get_args(annotation))}
    if origin in (list, tuple, Sequence):
        args = typing.get_args(annotation)
        return {"type": "array", "items": _type_schema(args[0])} if args else {"type": "array"}
    if origin in (dict, Mapping):
        return {"type": "object"}
    if annotation in _JSON_TYPES:
        return {"type": _JSON_TYPES[annotation]}
    return {}


_PARAM_LINE = re.compile(r"^\s*(?::param\s+)?(\w+)\s*(?:\([^)]*\))?\s*:\s*(.+)$")


def docstring_parts(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a docstring into its description and per-parameter texts.

    Parameter texts are read from an ``Args:`` / ``Parameters:`` section written as
    ``name: text`` (or ``name (type): text``) lines.
    """
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    description: list[str] = []
    params: dict[str, str] = {}
    in_args = False
    for line in lines:
        if line.strip().lower() in ("args:", "arguments:", "parameters:"):
            in_args = True
            continue
        if in_args:
            match = _PARAM_LINE.match(line)
            if match:
                params[match.group(1)] = match.group(2).strip()
            elif line.strip() and not line.startswith((" ", "\t")):
                in_args = False
        if not in_args:
            description.append(line)
    return "\n".join(description).strip(), params


def schema_from_function(fn: Callable[..., object]) -> dict[str, Any]:
    """The JSON Schema of ``fn``'s keyword arguments, from its type hints and docstring.

    Parameters without a default are required; ``additionalProperties`` is false so a
    misspelt argument is reported rather than ignored.
    """
    hints = typing.get_type_hints(fn)
    _, texts = docstring_parts(fn.__doc__)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, param in inspect.signature(fn).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        prop = _type_schema(hints.get(name, param.annotation))
        if name in texts:
            prop["description"] = texts[name]
        if param.default is param.empty:
            required.append(name)
        elif param.default is None or isinstance(param.default, (int, float, str, bool)):
            prop["default"] = param.default
        properties[name] = prop
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = required
    return schema


# Keywords that mean the same in fastjsonschema (draft-07 rules) and in jsonschema's
# default draft (2020-12). Anything else - $ref (siblings differ), array-form items,
# prefixItems, dependencies, format (fastjsonschema asserts it, jsonschema only annotates),
# draft-04 (boolean exclusiveMinimum) - is left to jsonschema alone.
_SAFE_KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "title",
        "description",
        "default",
        "examples",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$schema",
    }
)
_SAFE_DRAFTS = (
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-06/schema",
)


def _same_in_both(schema: Any) -> bool:
    """Whether the compiled fast path gives exactly jsonschema's verdict for ``schema``."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, Mapping) or not set(schema) <= _SAFE_KEYWORDS:
        return False
    if "$schema" in schema and str(schema["$schema"]).rstrip("#") not in _SAFE_DRAFTS:
        return False
    children: list[Any] = []
    for key in ("properties",):
        if isinstance(schema.get(key), Mapping):
            children.extend(schema[key].values())
    for key in ("additionalProperties", "items", "not"):
        if key in schema:
            if key == "items" and not isinstance(schema[key], (Mapping, bool)):
                return False  # array-form items is a tuple in draft-07, invalid in 2020-12
            children.append(schema[key])
    for key in ("anyOf", "oneOf", "allOf"):
        children.extend(schema.get(key) or [])
    return all(_same_in_both(child) for child in children)


def check_schema(schema: Mapping[str, Any]) -> None:
    """Raise ``jsonschema.SchemaError`` when ``schema`` is not a valid JSON Schema."""
    jsonschema.validators.validator_for(schema).check_schema(schema)


class Validator:
    """Checks instances against one JSON Schema (checked itself on construction).

    Raises ``jsonschema.SchemaError`` for an invalid schema.
    """

    def __init__(self, schema: Mapping[str, Any]) -> None:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        self._full = cls(schema)
        self._fast: Callable[[Any], Any] | None = None
        if _same_in_both(schema):
            try:
                self._fast = fastjsonschema.compile(dict(schema))
            except fastjsonschema.JsonSchemaDefinitionException:
                self._fast = None

    def problems(self, instance: object) -> list[tuple[tuple[str | int, ...], str]]:
        """``(path, message)`` for each violation, the path as keys and list indexes; empty
        when valid."""
        if self._fast is not None:
            try:
                self._fast(instance)
                return []
            except fastjsonschema.JsonSchemaValueException:
                pass
        return [(tuple(e.absolute_path), e.message) for e in self._full.iter_errors(instance)]

    def errors(self, instance: object) -> list[str]:
        """Messages for each violation, prefixed with the path in :func:`json_path` form
        (``items[0].name: …``); empty when valid."""
        return [(f"{json_path(p)}: " if p else "") + m for p, m in self.problems(instance)]
