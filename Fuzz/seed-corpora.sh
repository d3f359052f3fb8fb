#!/bin/sh
# Builds the fuzz seed corpora in $1 (default .build-fuzz/seeds), one folder per target, from
# Samples/, the shared Core Data corpus ($FOLIO_CORPUS, default ../shared/corpus, skipped when
# missing), the test fixtures and Fuzz/Seeds/. Nothing here is committed: `make fuzz` runs it.
set -eu
out=${1:-.build-fuzz/seeds}
corpus=${FOLIO_CORPUS:-../shared/corpus}
rm -rf "$out"
mkdir -p "$out/FuzzXMLStore" "$out/FuzzBinaryStore" "$out/FuzzBinaryBody" "$out/FuzzXcodeModel" \
  "$out/FuzzPredicate" "$out/FuzzUndoScript" "$out/FuzzSQLiteStore" "$out/FuzzMappingModel" \
  "$out/FuzzUndoHistory" "$out/FuzzPasteboard" "$out/FuzzTransformer" \
  "$out/FuzzChangeJournal" "$out/FuzzCommitLog"

# copy FOLDER FILE...: copies each file under a name made from its path, so names never clash
# (and never start with ".", which libFuzzer skips as hidden).
copy() {
  folder=$1
  shift
  for file in "$@"; do
    [ -f "$file" ] || continue
    cp "$file" "$folder/$(printf '%s' "$file" | sed 's|^[./]*||' | tr -c 'A-Za-z0-9._-' '_')"
  done
}

copy "$out/FuzzXMLStore" Samples/*/*.xml Fuzz/Seeds/xml-store/* Tests/*/Fixtures/fuzz/xml-store-*
copy "$out/FuzzBinaryStore" Fuzz/Seeds/binary-store/* Tests/*/Fixtures/*.folio \
  Tests/*/Fixtures/fuzz/binary-store-*
copy "$out/FuzzBinaryBody" Fuzz/Seeds/binary-body/* Tests/*/Fixtures/fuzz/binary-body-*
copy "$out/FuzzXcodeModel" Samples/*/*.xcdatamodeld/*/contents \
  Fuzz/Seeds/*.xcdatamodel/contents Tests/FolioModelTests/Fixtures/*.xml \
  Tests/*/Fixtures/fuzz/xcode-model-*
copy "$out/FuzzUndoScript" Samples/*/*.undo Fuzz/Seeds/*.undo Tests/*/Fixtures/*.undo Tests/*/Fixtures/fuzz/undo-script-*
copy "$out/FuzzPredicate" Fuzz/Seeds/predicate/* Tests/*/Fixtures/fuzz/predicate-*
# The SQLite target's first byte says what the rest is: 0 a metadata property list, 1 a
# Z_MODELCACHE blob, 2 an Xcode model.
prefixed() {
  mode=$1
  shift
  for file in "$@"; do
    [ -f "$file" ] || continue
    name=$(printf '%s' "$file" | sed 's|^[./]*||' | tr -c 'A-Za-z0-9._-' '_')
    { printf "\\$(printf '%03o' "$mode")"; cat "$file"; } >"$out/FuzzSQLiteStore/$name"
  done
}
prefixed 0 Tests/FolioStoresTests/Fixtures/SQLiteMetadata/* Tests/FolioStoresTests/Fixtures/PropertyLists/*
prefixed 1 Tests/FolioStoresTests/Fixtures/SQLiteModelCache/*.bin
# The same caches (every Z_MODELCACHE of the shared corpus's SQLite stores, byte for byte)
# inflated: the harness deflates an input of mode 1 that starts "bplist00", so mutations reach
# the archive's reader instead of breaking the DEFLATE stream.
for file in Tests/FolioStoresTests/Fixtures/SQLiteModelCache/*.bin; do
  [ -f "$file" ] || continue
  name=inflated-$(basename "$file")
  { printf '\001'; python3 -c 'import sys, zlib
sys.stdout.buffer.write(zlib.decompress(open(sys.argv[1], "rb").read(), -15))' "$file"; } \
    >"$out/FuzzSQLiteStore/$name"
done
prefixed 2 Samples/*/*.xcdatamodeld/*/contents Tests/*/Fixtures/fuzz/sqlite-store-*
# The mapping model target's first byte says what the rest is too (0 an xcmapping.xml, 1 format
# text, 2 an archived expression); its seeds and findings have theirs. `Fuzz/mapping-seeds.py`
# made the seeds from the mapping fixtures.
copy "$out/FuzzMappingModel" Fuzz/Seeds/mapping-model/* Tests/*/Fixtures/fuzz/mapping-model-*
copy "$out/FuzzUndoHistory" Fuzz/Seeds/undo-history/* Tests/*/Fixtures/fuzz/undo-history-*
# Pasteboards and transformer archives: `FuzzPasteboard --write-seeds` and
# `FuzzTransformer --write-seeds` (normal build) wrote Fuzz/Seeds/pasteboard/ and the
# transformer's own archives; `apple-*.bplist` are Core Data's, from CareKit's sample store.
copy "$out/FuzzPasteboard" Fuzz/Seeds/pasteboard/* Tests/*/Fixtures/fuzz/pasteboard-*
copy "$out/FuzzTransformer" Fuzz/Seeds/transformer/* Tests/*/Fixtures/fuzz/transformer-*
# Change journal entries: `FuzzChangeJournal --write-seeds` (normal build) wrote them.
copy "$out/FuzzChangeJournal" Fuzz/Seeds/change-journal/* Tests/*/Fixtures/fuzz/change-journal-*
# Commit log commits: `FuzzCommitLog --write-seeds` (normal build) wrote them.
copy "$out/FuzzCommitLog" Fuzz/Seeds/commit-log/* Tests/*/Fixtures/fuzz/commit-log-*
if [ -d "$corpus/models" ]; then
  copy "$out/FuzzXcodeModel" "$corpus"/models/*
  # The third-party stores run to 3.6 MB; libFuzzer's -max_len would cut them anyway, so only
  # the small ones seed the XML store target.
  find "$corpus/stores" -type f -size -64k | while read -r file; do copy "$out/FuzzXMLStore" "$file"; done
fi
# The keyed archives Core Data wrote in the shared corpus's SQLite stores (transformable
# attributes, NSSecureUnarchiveFromData's and apps' own classes alike), up to 8 per column.
# Each store is read from a copy: SQLite writes a WAL store's -shm even when opened read-only,
# and the corpus's files must stay as they are.
if [ -d "$corpus/sqlite" ]; then
  python3 - "$corpus/sqlite" "$out/FuzzTransformer" <<'PYTHON'
import glob, os, shutil, sqlite3, sys, tempfile
corpus, out = sys.argv[1], sys.argv[2]
stores = [path for path in sorted(glob.glob(os.path.join(corpus, "*", "*")))
          if os.path.isfile(path) and not path.endswith(("-wal", "-shm"))
          and open(path, "rb").read(16) == b"SQLite format 3\0"]
for store in stores:
    with tempfile.TemporaryDirectory() as scratch:
        copy = os.path.join(scratch, "store")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(store + suffix):
                shutil.copyfile(store + suffix, copy + suffix)
        try:
            database = sqlite3.connect(copy)
            tables = [row[0] for row in database.execute(
                "select name from sqlite_master where type = 'table'")]
            for table in tables:
                for column in [row[1] for row in database.execute(f'pragma table_info("{table}")')]:
                    blobs = database.execute(
                        f'select distinct "{column}" from "{table}" where typeof("{column}") = \'blob\''
                        f' and substr("{column}", 1, 8) = X\'62706C6973743030\' limit 64').fetchall()
                    kept = [blob for (blob,) in blobs if b"NSKeyedArchiver" in blob][:8]
                    for index, blob in enumerate(kept):
                        name = "corpus-%s-%s-%s-%d.bplist" % (
                            os.path.basename(os.path.dirname(store)).split("__")[-1],
                            os.path.basename(store).replace(".", "_"), column, index)
                        with open(os.path.join(out, name), "wb") as file:
                            file.write(blob)
            database.close()
        except sqlite3.Error as error:
            print("skipped %s: %s" % (store, error), file=sys.stderr)
PYTHON
fi

# Predicates: the format strings of the predicate tests, of the corpus gathered from public
# code, and the `where` clauses of the samples.
python3 - "$out/FuzzPredicate" Tests/FolioQueryTests/*.swift Tests/FolioGraphTests/*.swift \
  Samples/*/*.undo Tests/FolioQueryTests/Fixtures/predicate-corpus.txt <<'PYTHON'
import re, sys, os
out = sys.argv[1]
formats = set()

def unescape(literal):
    """A Swift string literal's text: \\u{…} and the one-character escapes; others kept as written."""
    simple = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}
    def replace(match):
        if match.group(1):
            code = int(match.group(1), 16)
            return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else match.group(0)
        return simple.get(match.group(2), match.group(0))
    return re.sub(r"\\u\{([0-9A-Fa-f]{1,8})\}|\\(.)", replace, literal)

for path in sys.argv[2:]:
    text = open(path, encoding="utf-8").read()
    if path.endswith(".txt"):
        formats.update(line for line in text.split("\n") if line and not line.startswith("#"))
    elif path.endswith(".undo"):
        formats.update(m.group(1) for m in re.finditer(r"\bwhere (.*?)(?: sort | limit |$)", text, re.M))
    else:
        for m in re.finditer(r'(?:\.init\(|format: )"((?:[^"\\]|\\.)*)"', text):
            formats.add(unescape(m.group(1)))
for index, format in enumerate(sorted(formats)):
    with open(os.path.join(out, "predicate-%03d.txt" % index), "w", encoding="utf-8") as file:
        file.write(format)
PYTHON

for folder in "$out"/*; do
  echo "$(ls "$folder" | wc -l) seeds in $folder"
done
