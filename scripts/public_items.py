#!/usr/bin/env python3
"""Counts the public API items of a crate from its rustdoc JSON.

Usage:
    cargo +nightly rustdoc -p typed-mcp --lib -- -Z unstable-options --output-format json
    python3 scripts/public_items.py target/doc/typed_mcp.json [--list]

Walks the public module tree from the crate root as rustdoc documents it with the default
features (rustdoc already leaves out private and `#[doc(hidden)]` items) and counts each item
of the crate once: modules, structs, enums and their variants, public fields, functions,
inherent methods, traits and their items, constants, statics, type aliases and macros.
Not counted: `impl` blocks themselves and the items of trait impls (`impl Display for X`'s
`fmt`). A `pub use` of an item of the crate counts the item once, where it is defined or
first reached. The total is given per top-level module, and without `generated` (the
protocol types generated from the MCP schema).
"""
import json
import sys
from collections import Counter


def main() -> None:
    doc = json.load(open(sys.argv[1]))
    listing = "--list" in sys.argv
    index = doc["index"]
    seen = set()
    per_module = Counter()
    names = []

    def item(id_):
        return index.get(str(id_))

    def count(entry, top, path):
        key = entry["id"]
        if key in seen or entry["crate_id"] != 0:
            return
        seen.add(key)
        kind = next(iter(entry["inner"]))
        per_module[top] += 1
        names.append((top, kind, path))
        inner = entry["inner"][kind]
        if kind == "module":
            for child in inner["items"]:
                visit(child, top, path)
        elif kind in ("struct", "enum", "union"):
            if kind == "struct":
                fields = inner["kind"].get("plain", {}).get("fields", []) if isinstance(inner["kind"], dict) else []
                tuple_fields = inner["kind"].get("tuple", []) if isinstance(inner["kind"], dict) else []
                for field in list(fields) + [f for f in tuple_fields if f is not None]:
                    sub = item(field)
                    if sub and sub["visibility"] == "public":
                        count(sub, top, path + "." + str(sub["name"]))
            if kind == "enum":
                for variant in inner["variants"]:
                    sub = item(variant)
                    if sub:
                        count(sub, top, path + "::" + sub["name"])
            for impl_id in inner.get("impls", []):
                impl = item(impl_id)
                if not impl or impl["inner"]["impl"].get("trait") is not None:
                    continue
                for assoc in impl["inner"]["impl"]["items"]:
                    sub = item(assoc)
                    if sub and sub["visibility"] in ("public", "default"):
                        count(sub, top, path + "::" + str(sub["name"]))
        elif kind == "trait":
            for assoc in inner["items"]:
                sub = item(assoc)
                if sub:
                    count(sub, top, path + "::" + str(sub["name"]))

    def visit(id_, top, path):
        entry = item(id_)
        if entry is None:
            return
        kind = next(iter(entry["inner"]))
        if kind == "use":
            target = entry["inner"]["use"].get("id")
            if target is not None and item(target):
                name = entry["inner"]["use"]["name"]
                target_entry = item(target)
                if next(iter(target_entry["inner"])) == "module" and entry["inner"]["use"]["is_glob"]:
                    for child in target_entry["inner"]["module"]["items"]:
                        visit(child, top, path)
                else:
                    count(target_entry, top or name, path + "::" + name)
            return
        if kind == "impl":
            return
        name = entry.get("name") or ""
        count(entry, top or name, path + "::" + name)

    root = item(doc["root"])
    for child in root["inner"]["module"]["items"]:
        visit(child, None, "crate")

    if listing:
        for top, kind, path in sorted(names):
            print(kind, path)
    for top, number in sorted(per_module.items()):
        print(f"{top:20} {number}")
    total = sum(per_module.values())
    print(f"{'total':20} {total}")
    print(f"{'total w/o generated':20} {total - per_module.get('generated', 0)}")


if __name__ == "__main__":
    main()
