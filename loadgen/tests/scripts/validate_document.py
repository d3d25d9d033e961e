#!/usr/bin/env python3
"""Validate result documents against the JSON Schema.

usage: validate_document.py SCHEMA DOCUMENT...
Exit 0 when every document is valid, 1 when one is not, 77 (skip) when the
jsonschema package is not installed.
"""

import json
import sys


def main() -> int:
    try:
        import jsonschema
    except ImportError:
        print("jsonschema is not installed: skipping", file=sys.stderr)
        return 77
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    bad = 0
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        for e in errors:
            print(f"{path}: {'/'.join(map(str, e.path)) or '(root)'}: {e.message}", file=sys.stderr)
        if errors:
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
