#!/usr/bin/env python3
"""Writes the inflated BODY section of each .folio file given as `<out>/<name>.body`.

Usage: extract-bodies.py OUT-FOLDER FILE.folio...   (layout: Formats/binary-store.md)
"""
import os
import struct
import sys
import zlib

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for path in sys.argv[2:]:
    data = open(path, "rb").read()
    (count,) = struct.unpack_from("<I", data, 48)
    for index in range(count):
        kind, flags, _, offset, stored, _, _ = struct.unpack_from("<4sHHQQQI", data, 56 + 36 * index)
        if kind == b"BODY":
            body = data[offset:offset + stored]
            name = os.path.splitext(os.path.basename(path))[0] + ".body"
            with open(os.path.join(out, name), "wb") as file:
                file.write(zlib.decompress(body) if flags & 2 else body)
