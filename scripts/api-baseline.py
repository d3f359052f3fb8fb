#!/usr/bin/env python3
"""The public API of each library module, one line per symbol, from SwiftPM's symbol graphs.

    scripts/api-baseline.py write   # refresh API/<Module>.txt after a deliberate change
    scripts/api-baseline.py check   # fail, showing the difference, when the API changed

Run `swift package dump-symbol-graph --minimum-access-level public` first (`make api` and
`make lint` do). Each line is the symbol's kind, its path and its declaration, so a changed
signature shows as one removed and one added line.
"""
import glob
import json
import os
import sys
import difflib

MODULES = ["FolioDiagnostics", "FolioModel", "FolioUndo", "FolioQuery", "FolioStores", "FolioXMLStore",
           "FolioBinaryStore", "FolioSQLiteStore", "FolioPostgresStore", "FolioMigration",
           "FolioCodegen",
           "FolioGraph", "Folio", "FolioScript", "FolioData"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRAPHS = glob.glob(os.path.join(ROOT, ".build", "*", "symbolgraph"))


STAMP = os.path.join(ROOT, ".build", "symbol-graph-stamp")


def lines(module):
    if not GRAPHS:
        sys.exit("no symbol graphs: run swift package dump-symbol-graph first")
    main_graph = os.path.join(GRAPHS[0], module + ".symbols.json")
    if not os.path.exists(main_graph) or (
        os.path.exists(STAMP) and os.path.getmtime(main_graph) < os.path.getmtime(STAMP)):
        sys.exit(f"no fresh symbol graph for {module}: swift package dump-symbol-graph failed")
    files = [main_graph]
    files += glob.glob(os.path.join(GRAPHS[0], module + "@*.symbols.json"))
    result = set()
    for path in files:
        extended = os.path.basename(path)[len(module):].split(".")[0].lstrip("@")
        for symbol in json.load(open(path))["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            # A conformance added to another module's type lists every member the type
            # gets from that module's protocols too; only what this module declares counts.
            uri = symbol.get("location", {}).get("uri", "")
            if extended and f"/Sources/{module}/" not in uri:
                continue
            kind = symbol["kind"]["identifier"].removeprefix("swift.")
            name = ".".join(symbol["pathComponents"])
            if extended:
                name = extended + ":" + name
            declaration = "".join(f["spelling"] for f in symbol.get("declarationFragments", []))
            result.add(f"{kind}  {name}  {' '.join(declaration.split())}")
    return sorted(result)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "check"
    changed = False
    for module in MODULES:
        baseline = os.path.join(ROOT, "API", module + ".txt")
        now = lines(module)
        if mode == "write":
            os.makedirs(os.path.dirname(baseline), exist_ok=True)
            with open(baseline, "w") as out:
                out.write("\n".join(now) + "\n")
            print(f"{module}: {len(now)} public symbols")
            continue
        old = open(baseline).read().splitlines() if os.path.exists(baseline) else []
        if old != now:
            changed = True
            sys.stdout.writelines(
                line + "\n" for line in difflib.unified_diff(
                    old, now, f"API/{module}.txt", f"{module} now", lineterm="", n=0))
    if changed:
        sys.exit("The public API changed. If that is meant, run `make api` and commit API/.")


main()
