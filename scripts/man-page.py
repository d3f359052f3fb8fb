#!/usr/bin/env python3
"""Finishes the man page swift-argument-parser's generate-manual plugin writes from folio's help.

    python3 scripts/man-page.py GENERATED.1 FINISHED.1

The plugin writes each help paragraph as one text line and keeps the help's blank lines and
indented examples as they are, which mdoc reads as empty input lines (a warning each) and fills
into running text. This script:

- sets each block of indented lines that follows a line ending in "Example:" or "Examples:"
  as a literal display, so every example stays one command per line, as in `folio --help`;
- turns each other blank line into a paragraph break (`.Pp`), or drops it before a macro;
- keeps the progress paragraph, which every command that reads a store repeats, once, in a
  PROGRESS section (a command's own sentences after it stay where they were);
- writes EXIT STATUS with folio's statuses (0, 1, 64, 130) instead of the generic sentence,
  and adds ENVIRONMENT.
"""

import sys

PROGRESS_START = "On a terminal, a store of 8 MB or more shows the progress"

EXIT_STATUS = """.Sh "EXIT STATUS"
.Bl -tag -width Ds
.It 0
Success.
.It 1
An error, named on standard error with its place (file and line, entity and key, byte offset):
a file that is not a store, a model or store that does not load, a refusal, a script or
validation that failed, or output that could not be written.
.It 64
Bad usage: a command line of the wrong shape (a missing argument, an unknown command or option,
options that exclude each other), with the command's usage; or an option value that does not
parse, in one line naming the column.
.It 130
.Nm folio Cm migrate
was interrupted (Control-C); the store is as it was.
.El"""

ENVIRONMENT = """.Sh ENVIRONMENT
.Bl -tag -width Ds
.It Ev NO_COLOR
Set and not empty: the progress line is drawn without bold.
.It Ev TERM
.Ql dumb :
no progress line, and
.Nm folio Cm shell
reads plain lines, without line editing.
.It Ev FOLIO_PROGRESS_THRESHOLD
The store size in bytes from which the progress line is drawn, instead of 8 MB.
.It Ev FOLIO_PROGRESS_INTERVAL
The milliseconds between redraws of the progress line, instead of 100.
.It Ev FOLIO_SHELL_HISTORY
The file
.Nm folio Cm shell
keeps the lines typed in; by default
.Pa $XDG_STATE_HOME/folio/shell_history
or
.Pa ~/.local/state/folio/shell_history .
.It Ev TMPDIR
Where a store read from standard input
.Pq Ql -
is kept while
.Nm folio
runs.
.El"""


def finish(lines):
    out = []
    progress = None
    in_examples = False
    in_display = False
    for index, line in enumerate(lines):
        if in_examples:
            if line.startswith("  ") and line.strip():
                if not in_display:
                    out.append(".Bd -literal -offset indent")
                    in_display = True
                out.append(line[2:])
                continue
            if in_display:
                out.append(".Ed")
                in_display = False
            in_examples = False
        if line.startswith(PROGRESS_START):
            # The paragraph is one line; a command may add its own sentences after it.
            if progress is None:
                progress = line
            rest = line[len(progress):].strip() if line.startswith(progress) else ""
            if rest:
                out.append(rest)
            continue
        if line.rstrip().endswith(("Example:", "Examples:")):
            in_examples = True
            out.append(line)
            continue
        if line == ".Ex -std":
            continue
        if line == '.Sh "EXIT STATUS"':
            if progress is not None:
                out.append(".Sh PROGRESS")
                out.append(progress)
            out.append(EXIT_STATUS)
            out.append(ENVIRONMENT)
            continue
        if not line.strip():
            following = next((l for l in lines[index + 1:] if l.strip()), "")
            if out and out[-1] != ".Pp" and not following.startswith(".") and not out[-1].startswith("."):
                out.append(".Pp")
            continue
        out.append(line)
    if in_display:
        out.append(".Ed")
    # A paragraph break left before a list item or the end of a list says nothing.
    cleaned = []
    for index, line in enumerate(out):
        if line == ".Pp" and index + 1 < len(out) and out[index + 1].startswith((".It", ".El", ".Sh", ".Bd", ".Pp")):
            continue
        cleaned.append(line)
    return cleaned


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: man-page.py GENERATED.1 FINISHED.1")
    with open(sys.argv[1], encoding="utf-8") as source:
        lines = source.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    with open(sys.argv[2], "w", encoding="utf-8") as target:
        target.write("\n".join(finish(lines)) + "\n")


if __name__ == "__main__":
    main()
