"""The JSON Schemas of the files the project writes and reads, and one-line validation.

The schemas (`*.schema.json` beside this file, draft 2020-12, shipped as package data) are
the documentation of each format and the first check of every reader: a file is validated
against its schema before use, and refused with one line naming the JSON path (a JSON
Pointer, "/throw/captain/0/1") and what the entry there must be. The readers keep the
checks a schema cannot state (shapes that depend on the rules, sums to 1, bounded exact
numbers: solver/hand/strategy.py).

Each schema's leaves carry an "x-must" annotation, the short phrase a refusal quotes ("a
probability: a number from 0 to 1"), so the message says what the entry must look like
rather than what the validator tried.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

# The schemas by name: the file `NAME.schema.json`, its "$id" `urn:bidou-solver:schemas:NAME`.
NAMES = ("common", "strategy", "exact-strategy", "cheatsheet-strategy", "round", "summary",
         "sweep-row", "exploit", "manche", "round-cheatsheet", "bidu-solution",
         "montevideo-heads-up")
ID_PREFIX = "urn:bidou-solver:schemas:"


class SchemaViolation(ValueError):
    """A document does not match its schema; the message is one line, "POINTER: what"."""

    def __init__(self, pointer: str, what: str) -> None:
        super().__init__(f"{pointer}: {what}")
        self.pointer, self.what = pointer, what


def schema_text(name: str) -> str:
    """The schema file's text, from the installed package."""
    if name not in NAMES:
        raise KeyError(name)
    return resources.files(__name__).joinpath(f"{name}.schema.json").read_text("utf-8")


@functools.lru_cache(maxsize=None)
def schema(name: str) -> dict[str, Any]:
    """The schema `name` as a dict (cached: callers must not modify it)."""
    loaded = json.loads(schema_text(name))
    assert isinstance(loaded, dict)
    return loaded


@functools.lru_cache(maxsize=None)
def _validator(name: str, pointer: str = "") -> Any:
    """A Draft 2020-12 validator of `name` (or of its subschema at `pointer`, such as
    "/$defs/state"): the schema with every "$ref" replaced by what it names (`inlined`), and
    the arrays of plain leaves checked in one pass (`fast_items`)."""
    # jsonschema (and its dependencies) imported only when a file is read
    import jsonschema
    from jsonschema import validators

    target, base = _resolve(f"{ID_PREFIX}{name}#{pointer}", name)
    standard = jsonschema.Draft202012Validator
    items = standard.VALIDATORS["items"]

    def fast_items(validator: Any, item_schema: Any, instance: Any, parent: Any) -> Any:
        """The "items" keyword; an array whose every entry passes the leaf's test at once
        has no error to report, any other goes through the standard keyword (the same
        errors, the same paths)."""
        test = _leaf_test(item_schema) if validator.is_type(instance, "array") else None
        if test is not None and "prefixItems" not in parent and all(map(test, instance)):
            return
        yield from items(validator, item_schema, instance, parent)

    fast = validators.extend(standard, {"items": fast_items})
    return fast(inlined(target, base))


# Keywords a leaf's fast test understands (the rest of a leaf are annotations).
_PLAIN = {"type", "minimum", "maximum", "pattern", "description", "x-must"}
_ANNOTATIONS = {"description", "x-must", "title", "$comment"}


@functools.lru_cache(maxsize=None)
def _pattern(text: str) -> Any:
    import re

    return re.compile(text)


def _leaf_test(leaf: Any) -> Any:
    """For a schema of a number with bounds or of a string with a pattern: a test with
    exactly that schema's verdict (JSON Schema's "number" excludes true and false); else
    None."""
    if not isinstance(leaf, dict) or not set(leaf) <= _PLAIN:
        return None
    low, high, pattern = leaf.get("minimum"), leaf.get("maximum"), leaf.get("pattern")
    if leaf.get("type") == "number" and pattern is None:
        return lambda x: ((type(x) is float or type(x) is int) and (low is None or x >= low)
                          and (high is None or x <= high))
    if leaf.get("type") == "string" and low is None and high is None:
        search = _pattern(pattern).search if pattern is not None else None
        return lambda x: type(x) is str and (search is None or search(x) is not None)
    return None


def _resolve(reference: str, base: str) -> tuple[Any, str]:
    """The subschema a "$ref" names (an "$id" of NAMES, or "" for `base`, then "#" and a
    JSON Pointer), and the name of the schema it lies in."""
    uri, _, fragment = reference.partition("#")
    name = uri[len(ID_PREFIX):] if uri else base
    if uri and (not uri.startswith(ID_PREFIX) or name not in NAMES):
        raise KeyError(f"unknown schema {uri!r}")
    node: Any = schema(name)
    for part in (p for p in fragment.split("/") if p):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node, name


def inlined(node: Any, base: str, depth: int = 0) -> Any:
    """`node` with every "$ref" replaced by the subschema it names (the project's schemas
    are not recursive), its siblings kept: merged when they only annotate, else beside it
    in an "allOf"."""
    if depth > 50:
        raise ValueError("the schemas refer to one another in a cycle")
    if isinstance(node, list):
        return [inlined(item, base, depth + 1) for item in node]
    if not isinstance(node, dict):
        return node
    own = {key: value if key in ("const", "enum") else inlined(value, base, depth + 1)
           for key, value in node.items() if key not in ("$ref", "$defs", "$id", "$schema")}
    if "$ref" not in node:
        return own
    target, name = _resolve(node["$ref"], base)
    resolved = inlined(target, name, depth + 1)
    if not isinstance(resolved, dict) or (set(own) - _ANNOTATIONS) & set(resolved):
        return {"allOf": [resolved], **own}
    return {**resolved, **own}


def validate(document: Any, name: str, pointer: str = "", at: str = "") -> None:
    """SchemaViolation (one line naming the JSON path) unless `document` matches schema
    `name` (or its subschema at `pointer`); `at` is the document's own path in the file it
    comes from ("/exact"), put before the paths named."""
    from jsonschema.exceptions import best_match

    error = best_match(_validator(name, pointer).iter_errors(document))
    if error is not None:
        path = json_pointer(error.absolute_path)
        raise SchemaViolation(at + path if at and path != "/" else at or path,
                              describe(error))


def json_pointer(path: Any) -> str:
    """The RFC 6901 pointer of a path of keys and indices ("/" for the document itself)."""
    parts = [str(part).replace("~", "~0").replace("/", "~1") for part in path]
    return "/" + "/".join(parts) if parts else "/"


def describe(error: Any) -> str:
    """What is wrong at the error's place, as a reader of the file would say it."""
    keyword, found = error.validator, error.instance
    if keyword == "required":
        missing = [key for key in error.validator_value if key not in found]
        return f"the key {missing[0]!r} is missing" if missing else error.message
    if keyword == "additionalProperties":
        known = set(error.schema.get("properties", {}))
        extra = sorted(str(key) for key in found if key not in known)
        allowed = ", ".join(sorted(known))
        return (f"unknown key {extra[0]!r:.40}" + (f" (allowed: {allowed})" if allowed else "")
                if extra else error.message)
    if keyword in ("minItems", "maxItems"):
        return (f"{len(found)} entries, {'at least' if keyword == 'minItems' else 'at most'} "
                f"{error.validator_value} expected")
    node = error                  # an anyOf's branch: say what the alternatives' parent says
    while node is not None and "x-must" not in node.schema:
        node = node.parent
    if node is None:
        return str(error.message)
    return f"must be {node.schema['x-must']}, got {shown(node.instance)}"


def shown(value: Any) -> str:
    """A value as JSON, cut to 40 characters ("[1.0, 0.5, ...]")."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):        # nested too deeply to show
        text = f"a JSON {type(value).__name__}"
    return text if len(text) <= 40 else text[:36] + " ..." + ("]" if text[0] == "[" else
                                                              "}" if text[0] == "{" else "")
