#!/usr/bin/env python3
"""Every module a target imports from this package is one it declares as a dependency.

SwiftPM's --explicit-target-dependency-import-check accepts a module reached through another
dependency; this asks for the direct declaration, so Package.swift shows every arrow the code
draws. Reads `swift package dump-package`; prints each target's undeclared imports and exits 1
when there are any.
"""
import json
import os
import re
import subprocess
import sys

package = json.loads(
    subprocess.run(
        ["swift", "package", "dump-package"], capture_output=True, text=True, check=True
    ).stdout
)
targets = {target["name"]: target for target in package["targets"]}
IMPORT = re.compile(
    r"^\s*(?:@testable |@_exported |@preconcurrency |internal |public |package )*import (\w+)",
    re.M,
)


def declared(target):
    names = set()
    for dependency in target.get("dependencies", []):
        for kind, value in dependency.items():
            if kind in ("byName", "target", "product"):
                names.add(value[0])
    return names


def folder(target):
    if target.get("path"):
        return target["path"]
    return ("Tests/" if target["type"] == "test" else "Sources/") + target["name"]


problems = 0
for name, target in sorted(targets.items()):
    imported = set()
    for root, _, files in os.walk(folder(target)):
        for file in files:
            if file.endswith(".swift"):
                with open(os.path.join(root, file), encoding="utf-8") as source:
                    imported.update(IMPORT.findall(source.read()))
    missing = sorted(module for module in imported - declared(target) - {name} if module in targets)
    if missing:
        problems += 1
        print(f"{name} imports {', '.join(missing)} without declaring it in Package.swift")
sys.exit(1 if problems else 0)
