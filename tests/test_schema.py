"""Tool schemas from signatures, and validation with a fast path and full messages."""

from __future__ import annotations

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpmini.mcp import Validator, check_schema, docstring_parts


def test_valid_arguments_have_no_errors_and_invalid_ones_name_the_path():
    v = Validator(
        {
            "type": "object",
            "properties": {"a": {"type": "number"}},
            "required": ["a"],
            "additionalProperties": False,
        }
    )
    assert v.errors({"a": 1}) == []
    assert v.errors({"a": "x"}) == ["a: 'x' is not of type 'number'"]
    assert len(v.errors({"b": 1})) == 2  # missing a, unexpected b: every violation is listed


def test_a_2020_12_schema_the_fast_path_cannot_compile_still_validates():
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "array",
        "prefixItems": [{"type": "integer"}, {"type": "string"}],
    }
    v = Validator(schema)
    assert v.errors([1, "a"]) == []
    assert v.errors([1, 2]) != []


def test_an_invalid_schema_is_refused():
    with pytest.raises(jsonschema.SchemaError):
        check_schema({"type": 12})
    with pytest.raises(jsonschema.SchemaError):
        Validator({"type": "nonsense"})


def test_docstring_parts_split_description_and_arguments():
    text, params = docstring_parts("""Sum.

    Args:
        a: first
        b (float): second
    Returns:
        the sum
    """)
    assert text.startswith("Sum.") and params == {"a": "first", "b": "second"}


SCHEMAS = [
    {"type": "integer"},
    {"type": "number", "minimum": 0, "exclusiveMaximum": 10},
    {"type": "string", "minLength": 2, "pattern": "^a"},
    {"enum": [1, "x", None]},
    {"const": 1},
    {"type": "array", "items": {"type": "integer"}, "uniqueItems": True, "maxItems": 3},
    {
        "type": "object",
        "properties": {"a": {"type": "boolean"}},
        "required": ["a"],
        "additionalProperties": False,
    },
    {"anyOf": [{"type": "string"}, {"type": "null"}]},
    {"not": {"type": "number"}},
    {"type": "string", "format": "email"},  # not on the fast path
    {"$defs": {"n": {"type": "integer"}}, "$ref": "#/$defs/n", "minimum": 3},  # $ref: nor this
]


@given(
    st.sampled_from(SCHEMAS),
    st.recursive(
        st.none() | st.booleans() | st.integers(-3, 12) | st.floats(-3, 12) | st.text(max_size=3),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["a", "b"]), inner)
        ),
        max_leaves=6,
    ),
)
def test_the_fast_path_never_disagrees_with_jsonschema(schema, instance):
    full = jsonschema.validators.validator_for(schema)(schema)
    assert (Validator(schema).errors(instance) == []) == full.is_valid(instance)
