#!/usr/bin/env bash
# A clean-room check of `make install` (not part of `make test`: it builds folio in release).
#
#   Tests/install/clean-room.sh              install into an empty folder, check it with env -i
#   Tests/install/clean-room.sh --chroot DIR also check it inside a minimal Debian bookworm at
#                                            DIR, made with debootstrap if DIR is empty (root)
#
# The installed tree is checked as a user would meet it: an environment holding nothing but
# HOME and a PATH without the Swift toolchain, a bash without start-up files that loads only the
# installed completion file, and the installed binary, man page and completions. In the chroot
# there is no toolchain at all: the installed folio runs on Debian's libraries alone.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
chroot_dir=""
if [[ "${1:-}" == "--chroot" ]]; then
  chroot_dir="${2:?--chroot needs a folder}"
fi

work="$(mktemp -d /tmp/folio-clean-room.XXXXXX)"
trap 'rm -rf "$work"' EXIT
stage="$work/stage"
prefix=/usr/local

echo "== make install DESTDIR=$stage PREFIX=$prefix"
make -C "$root" --no-print-directory install DESTDIR="$stage" PREFIX="$prefix" >"$work/install.log" 2>&1 || {
  tail -n 30 "$work/install.log"
  exit 1
}
tail -n 1 "$work/install.log"
(cd "$stage" && find . -type f | sort)
version="$(cat "$root/VERSION")"

# The checks, run by a bash without start-up files: $1 is the installed prefix, $2 a home
# folder holding Samples/Expenses, $3 the version the binary must print.
cat >"$work/checks.sh" <<'CHECKS'
set -u
prefix="$1" home="$2" version="$3"
failures=0
check() { # NAME PATTERN ACTUAL
  if [[ "$3" == $2 ]]; then
    echo "ok: $1"
  else
    echo "FAILED: $1: expected [$2], got [$3]"
    failures=$((failures + 1))
  fi
}
complete_words() { # WORD…: bash's completion of `folio WORD…` at the end of the line
  COMP_WORDS=(folio "$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE="${COMP_WORDS[*]}"
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  _folio folio "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>&1
  ((${#COMPREPLY[@]} == 0)) || printf '%s\n' "${COMPREPLY[@]}" | sort -u | tr '\n' ' '
}

check "folio is the installed one" "$prefix/bin/folio" "$(command -v folio)"
check "no Swift toolchain on PATH" "" "$(command -v swift)"
check "folio --version" "$version" "$(folio --version)"
check "folio info runs" "Format: XML" "$(cd "$home" && folio info Samples/Expenses/Expenses.xml | sed -n 2p)"
if command -v man >/dev/null; then
  check "man page NAME" "folio*Core Data's object graph, stores and undo, on Linux." \
    "$(MANWIDTH=200 man -l "$prefix/share/man/man1/folio.1" 2>/dev/null | sed -n '/^NAME/{n;p;}' | sed 's/^ *//')"
  check "man folio through MANPATH" "FOLIO(1)" \
    "$(MANPATH="$prefix/share/man" man folio 2>/dev/null | head -n 1 | awk '{print $1}')"
else
  echo "skipped: man is not installed"
fi
for file in share/zsh/site-functions/_folio share/fish/vendor_completions.d/folio.fish; do
  check "$file names folio" "yes" "$(grep -q folio "$prefix/$file" && echo yes)"
done
bash_completion=/usr/share/bash-completion/bash_completion
if [[ -f "$bash_completion" ]]; then
  check "bash-completion finds the completion file" "complete -o filenames -F _folio folio" \
    "$(XDG_DATA_DIRS="$prefix/share" && source "$bash_completion" && __load_completion folio && complete -p folio)"
else
  echo "skipped: the bash-completion package is not installed"
fi
source "$prefix/share/bash-completion/completions/folio"
cd "$home/Samples/Expenses"
check "complete: folio info Exp" "Expenses.xcdatamodeld Expenses.xml " "$(complete_words info Exp)"
cd "$home"
check "complete: folio query Samples/Expenses/Expenses.xml " "Person Spending " \
  "$(complete_words query Samples/Expenses/Expenses.xml '')"
check "complete: folio query Samples/Expenses/Missing.xml (silent)" "" \
  "$(complete_words query Samples/Expenses/Missing.xml '')"
echo "$failures failed"
exit $((failures > 0))
CHECKS

home_samples() { # DIR: a home folder with the Expenses sample, without files a demo left
  mkdir -p "$1/Samples/Expenses"
  cp -R "$root/Samples/Expenses/Expenses.xml" "$root/Samples/Expenses/Expenses.xcdatamodeld" \
    "$1/Samples/Expenses/"
}

echo "== env -i: HOME and a PATH without the toolchain, bash --norc --noprofile"
home_samples "$work/home"
env -i HOME="$work/home" PATH="$stage$prefix/bin:/usr/bin:/bin" \
  bash --norc --noprofile "$work/checks.sh" "$stage$prefix" "$work/home" "$version"
echo "== uninstall"
make -C "$root" --no-print-directory uninstall DESTDIR="$stage" PREFIX="$prefix" >/dev/null
left="$(cd "$stage" && find . -type f | wc -l)"
[[ "$left" == 0 ]] && echo "ok: make uninstall removed every file" || {
  echo "FAILED: make uninstall left $left files"
  exit 1
}

[[ -n "$chroot_dir" ]] || exit 0

echo "== chroot: Debian bookworm at $chroot_dir"
if [[ ! -x "$chroot_dir/bin/bash" ]]; then
  command -v debootstrap >/dev/null || { echo "debootstrap is not installed (apt-get install debootstrap)"; exit 1; }
  start=$SECONDS
  debootstrap --variant=minbase --include=libxml2,libsqlite3-0,man-db,bash-completion bookworm "$chroot_dir" \
    http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 || { tail -n 20 "$work/debootstrap.log"; exit 1; }
  echo "debootstrap took $((SECONDS - start)) s"
fi
make -C "$root" --no-print-directory install DESTDIR="$chroot_dir" PREFIX="$prefix" >/dev/null 2>&1
rm -rf "$chroot_dir/root/clean-room"
home_samples "$chroot_dir/root/clean-room"
cp "$work/checks.sh" "$chroot_dir/root/clean-room/checks.sh"
echo "Swift in the chroot: $(ls -d "$chroot_dir/opt/swift" 2>/dev/null || echo none)"
# What every system has: /proc (where Swift reads a program's arguments) and /dev.
mount -t proc proc "$chroot_dir/proc"
mount --bind /dev "$chroot_dir/dev"
trap 'umount "$chroot_dir/dev" "$chroot_dir/proc"; rm -rf "$work"' EXIT
chroot "$chroot_dir" /usr/bin/env -i HOME=/root/clean-room PATH="$prefix/bin:/usr/bin:/bin" \
  bash --norc --noprofile /root/clean-room/checks.sh "$prefix" /root/clean-room "$version"
