#!/usr/bin/env python3
"""Document a chart's values from their `# --` comments, helm-docs style.

Usage: chart-values-doc.py CHART_DIR [--write | --check]

Reads CHART_DIR/values.yaml. A `# -- text` comment (continued by following
`#` lines) documents the key right below it. A documented key is one row of
the table, its default shown whole; a key without such a comment must be a
map whose keys are all documented. Anything else is an error.

--write replaces the table between `<!-- values:start -->` and
`<!-- values:end -->` in CHART_DIR/README.md; --check (the default) fails when
a value is undocumented or README.md is not up to date.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import yaml

START, END = "<!-- values:start -->", "<!-- values:end -->"
KEY_RE = re.compile(r"^(?P<indent> *)(?P<key>[A-Za-z0-9_.\-]+|\"[^\"]+\"):(?:\s|$)")


def parse(text: str) -> tuple[list[tuple[str, str]], list[str]]:
    """Return ([(dotted key, description)], [errors]) from the values text."""
    lines = text.splitlines()
    docs: dict[str, str] = {}
    keys: list[tuple[str, int, int]] = []  # (path, indent, line number)
    stack: list[tuple[int, str]] = []
    pending: list[str] | None = None
    for no, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped or stripped == "---":
            continue
        indent = len(line) - len(line.lstrip(" "))
        if stripped.startswith("#"):
            body = stripped[1:].strip()
            if body.startswith("-- "):
                pending = [body[3:].strip()]
            elif pending is not None and body:
                pending.append(body)
            continue
        m = KEY_RE.match(line)
        if not m or stripped.startswith("- "):
            continue  # list items and continuation lines belong to a key above
        while stack and stack[-1][0] >= indent:
            stack.pop()
        key = m.group("key").strip('"')
        path = ".".join([k for _, k in stack] + [key])
        stack.append((indent, key))
        keys.append((path, indent, no))
        if pending is not None:
            docs[path] = " ".join(pending)
            pending = None

    values = yaml.safe_load(text) or {}
    rows: list[tuple[str, str]] = []
    errors: list[str] = []

    def lookup(path: str):
        node = values
        for part in path.split("."):
            node = node[part]
        return node

    def documented_below(path: str) -> bool:
        return any(k.startswith(path + ".") for k in docs)

    for path, _, no in keys:
        parent_documented = any(path.startswith(p + ".") for p in docs)
        try:
            value = lookup(path)
        except (KeyError, TypeError):
            continue  # a key inside a list item
        if path in docs:
            rows.append((path, docs[path]))
        elif isinstance(value, dict) and value:
            if not parent_documented and not documented_below(path):
                errors.append(f"values.yaml:{no}: map '{path}' has no documented key")
        elif not parent_documented:
            errors.append(f"values.yaml:{no}: '{path}' has no '# --' comment")
    return rows, errors


def table(rows: list[tuple[str, str]], values: dict) -> str:
    def lookup(path: str):
        node = values
        for part in path.split("."):
            node = node[part]
        return node

    def kind(v) -> str:
        return {dict: "object", list: "list", bool: "bool", int: "int", float: "float",
                str: "string", type(None): "null"}.get(type(v), type(v).__name__)

    out = ["| Key | Type | Default | Description |", "|-----|------|---------|-------------|"]
    for path, desc in rows:
        v = lookup(path)
        default = json.dumps(v, ensure_ascii=False, separators=(",", ":"))
        default = default.replace("|", "\\|")
        desc = desc.replace("|", "\\|")
        out.append(f"| `{path}` | {kind(v)} | `{default}` | {desc} |")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    chart = Path(argv[1])
    mode = argv[2] if len(argv) > 2 else "--check"
    if mode not in ("--check", "--write"):
        print(__doc__, file=sys.stderr)
        return 2
    text = (chart / "values.yaml").read_text()
    rows, errors = parse(text)
    for e in errors:
        print(f"{chart}/{e}", file=sys.stderr)
    if errors:
        return 1

    readme_path = chart / "README.md"
    readme = readme_path.read_text() if readme_path.exists() else ""
    if START not in readme or END not in readme:
        print(f"{readme_path}: needs the markers {START} and {END}", file=sys.stderr)
        return 1
    head, rest = readme.split(START, 1)
    _, tail = rest.split(END, 1)
    new = f"{head}{START}\n{table(rows, yaml.safe_load(text))}\n{END}{tail}"
    if new == readme:
        return 0
    if mode == "--write":
        readme_path.write_text(new)
        return 0
    print(f"{readme_path}: the values table is out of date; run {argv[0]} {chart} --write",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
