"""A compiled fast path for the JSON Schemas: accept a valid file in about a millisecond.

`jsonschema` (files.py) stays the judge: it lists every error of a file that fails. A file this
fast path accepts is one `jsonschema` accepts too; whatever it rejects (or cannot compile) goes to
`jsonschema`, whose answer is the one given. So the fast path may be stricter, never laxer. It is
fastjsonschema (draft-07 code generation) on each schema rewritten to its draft-07 meaning:

- ``prefixItems`` with ``items`` becomes ``items`` (a list) with ``additionalItems``, and
  ``dependentSchemas`` becomes ``dependencies``: draft 2020-12 words that fastjsonschema ignores;
- a ``$ref`` beside other keywords becomes ``allOf`` of both (draft-07 ignores a ``$ref``'s siblings);
- a ``pattern`` gets its ECMA-262 meaning, as files.ecma_pattern gives it (``$`` the end of the
  text, ``\\d`` ASCII digits);
- a ``const`` or ``enum`` of numbers or booleans gets their type (``True == 1`` in Python, not in
  JSON Schema).

A schema with a keyword not in ``KNOWN``, or a ``$ref`` to another file, has no fast path.

The generated code of a schema is compiled once per process; its byte code is kept between
processes in the cache folder (``$PBEM_HOME/cache``, else ``$XDG_CACHE_HOME/pbem``, else
``~/.cache/pbem``), under the SHA-256 of everything it is made from (the rewritten schema, the
fastjsonschema and Python versions): a changed schema is another file. Byte code is run: a cache
file is used only if it is a regular file of this user's, with no other name, that nobody else can
write, in this user's folders that nobody else can write, none of them a link (privatedir.py); one
that does not load is made again. ``PBEM_NO_CACHE=1``: none is read or written. Deleting the folder
loses nothing but time.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import marshal
import os
import re
import sys
from collections.abc import Callable
from typing import Any

from . import privatedir
from .privatedir import cache_dir

FORMAT = "pbem-fastschema-1"  # changes when the rewriting does
CACHE_ENV = "PBEM_HOME"
CODE_LIMIT = 16 * 1024 * 1024  # bytes of a compiled schema read
SCHEMA_BYTES = 64 * 1024 * 1024  # the folder of compiled schemas, at most (one version's take about 3.4 MB)

# Keywords the rewritten schema may use, with the same meaning in draft-07 and fastjsonschema.
KNOWN = {
    "type", "properties", "additionalProperties", "required", "items", "additionalItems", "maxItems", "minItems",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "enum", "const", "propertyNames",
    "maxLength", "minLength", "pattern", "patternProperties", "uniqueItems", "if", "then", "else", "oneOf", "anyOf",
    "allOf", "not", "minProperties", "maxProperties", "dependencies", "$ref", "$defs",
    "description", "title", "$comment", "default", "examples",  # annotations
}
SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "dependencies")  # keyword -> {name: schema}
ANNOTATIONS = {"description", "title", "$comment", "default", "examples"}


class Unsupported(Exception):
    """The schema uses something the fast path does not take: jsonschema alone checks it."""


def strict_pattern(pattern: str) -> str:
    """``pattern`` as a Python regular expression with its ECMA-262 meaning (files.ecma_regex), ASCII-only."""
    from .files import ecma_regex

    return "(?a)" + ecma_regex(pattern)


def _typed(values: list[Any]) -> str | None:
    """The JSON type that keeps ``values`` (of const or enum) apart from equal values of another
    type, where Python's equality mixes them (1 == 1.0 == True); None for strings and such."""
    kinds = {"boolean" if isinstance(v, bool) else "integer" if isinstance(v, int) else "number" if isinstance(v, float)
             else "other" for v in values}
    if kinds == {"other"} or not kinds:
        return None
    if len(kinds) > 1:
        raise Unsupported("const or enum of mixed types")
    (kind,) = kinds
    if kind == "number":
        raise Unsupported("const or enum of floats")
    return kind


def draft7(schema: Any) -> Any:
    """``schema`` (draft 2020-12, as pbem writes them) rewritten to its meaning in draft-07."""
    if isinstance(schema, bool):
        return schema
    if not isinstance(schema, dict):
        raise Unsupported(f"a schema that is not an object: {schema!r}")
    out: dict[str, Any] = {}
    for k, v in schema.items():
        if k in ("$schema", "$id"):
            continue
        if k == "prefixItems":
            out["items"] = [draft7(x) for x in v]
            if "items" in schema:
                out["additionalItems"] = draft7(schema["items"])
        elif k == "items":
            if "prefixItems" not in schema:
                out["items"] = [draft7(x) for x in v] if isinstance(v, list) else draft7(v)
        elif k == "dependentSchemas":
            out["dependencies"] = {name: draft7(x) for name, x in v.items()}
        elif k in SCHEMA_MAPS:
            if k == "dependencies" and any(isinstance(x, list) for x in v.values()):
                out[k] = {name: (list(x) if isinstance(x, list) else draft7(x)) for name, x in v.items()}
            else:
                out[k] = {name: draft7(x) for name, x in v.items()}
        elif k in ("additionalProperties", "additionalItems", "propertyNames", "if", "then", "else", "not"):
            out[k] = draft7(v)
        elif k in ("oneOf", "anyOf", "allOf"):
            out[k] = [draft7(x) for x in v]
        elif k == "pattern":
            out[k] = strict_pattern(v)
        elif k == "$ref":
            if not isinstance(v, str) or not v.startswith("#"):
                raise Unsupported(f"a $ref to another schema: {v!r}")
            out[k] = v
        elif k in ("const", "enum"):
            kind = _typed([v] if k == "const" else list(v))
            out[k] = v
            if kind is not None:
                out.setdefault("allOf", []).append({"type": kind})
        elif k in KNOWN:
            out[k] = v
        else:
            raise Unsupported(f"keyword {k!r}")
    if "$ref" in out and len(set(out) - ANNOTATIONS - {"$defs"}) > 1:
        ref = out.pop("$ref")
        rest = {k: x for k, x in out.items() if k != "$defs"}
        out = {"allOf": [{"$ref": ref}, rest], **({"$defs": out["$defs"]} if "$defs" in out else {})}
    return out


def _code(rewritten: dict[str, Any]) -> Any:
    """The compiled code of the validator of ``rewritten``, from the cache or made (and kept)."""
    import fastjsonschema

    material = json.dumps({"format": FORMAT, "fastjsonschema": fastjsonschema.VERSION, "python": sys.version,
                           "magic": importlib.util.MAGIC_NUMBER.hex(), "schema": rewritten},
                          sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    key = hashlib.sha256(material.encode("utf-8")).hexdigest()
    name = f"{key}.code"
    folder = privatedir.open_folder(cache_dir() / "schemas")
    if folder is not None:
        try:
            content = privatedir.read(folder, name, CODE_LIMIT)
        finally:
            os.close(folder)
        if content is not None:
            try:
                return marshal.loads(content)
            except (ValueError, EOFError, TypeError):
                pass  # made again below
    source = fastjsonschema.compile_to_code(rewritten)
    code = compile(source, f"<schema {key[:12]}>", "exec")
    folder = privatedir.open_folder(cache_dir() / "schemas", create=True)
    if folder is not None:  # else no cache: the next process compiles it again
        try:
            if privatedir.write(folder, name, marshal.dumps(code)):
                privatedir.prune(folder, SCHEMA_BYTES)
        finally:
            os.close(folder)
    return code


def compile_validator(schema: dict[str, Any]) -> Callable[[Any], bool] | None:
    """A function telling whether a value is valid against ``schema`` (True is certain; False means
    "ask jsonschema"), or None if the schema has no fast path."""
    try:
        import fastjsonschema
    except ImportError:
        return None
    try:
        rewritten = draft7(schema)
        namespace: dict[str, Any] = {"re": re}
        exec(_code(rewritten), namespace)  # code generated by fastjsonschema from pbem's own schema
    except (Unsupported, fastjsonschema.JsonSchemaDefinitionException, RecursionError):
        return None
    validate = namespace["validate"]
    error = fastjsonschema.JsonSchemaException

    def valid(data: Any) -> bool:
        try:
            validate(data)
        except error:
            return False
        except (TypeError, ValueError, RecursionError, KeyError, AttributeError):
            return False  # whatever the generated code trips on: jsonschema says what is wrong
        return True

    return valid
