#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the PostgreSQL store's tests.
#
#   scripts/postgres-cluster.sh start    make and start one (or reuse the running one); prints its URL
#   scripts/postgres-cluster.sh url      prints the running cluster's URL
#   scripts/postgres-cluster.sh status   says whether it runs; exit 0 if it does, 1 if not
#   scripts/postgres-cluster.sh stop     stops it and removes its folder
#
# The URL, the only thing written to standard output, is
# postgresql://folio@127.0.0.1:PORT/folio_test: the role `folio`, a superuser, is trusted on
# loopback, so any local process (root's tests included) connects without a password. Progress
# and errors go to standard error. Without the server binaries `start` says so and exits 3, so
# callers can skip the PostgreSQL tests.
#
# The cluster lives in .build/postgres (data/, socket/ for the Unix socket, server.log). It is
# initdb'd in UTF8 with the C.UTF-8 locale (byte-order collation, Unicode character classes),
# listens on 127.0.0.1 only, on the first free port from 54320 up, and keeps fsync,
# synchronous_commit and full_page_writes on: the store's durability tests need a commit to be
# on disk when it returns, as on a real server. Starting takes 1 to 2 seconds on an idle 2-core
# machine (initdb most of it), up to 6 while it builds; `start` on a running cluster takes
# 0.1 s. `stop` uses an immediate shutdown, since the folder is removed anyway.
#
# initdb and postgres refuse to run as root. As root the server runs as the `postgres` system
# user that Debian's packages create (FOLIO_POSTGRES_OS_USER names another), through runuser;
# as anyone else it runs as that user. A server user that cannot reach the build folder (a tree
# under /root, which is 0700) or a socket path past the kernel's 107 bytes moves the cluster to
# /tmp/folio-postgres.XXXXXX, with .build/postgres a symbolic link to it.
#
# The server binaries are looked for in FOLIO_POSTGRES_BINDIR, then in Debian's
# /usr/lib/postgresql/VERSION/bin (newest first; Debian keeps them off PATH), then on PATH.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd -P)"
cluster="$root/.build/postgres"
lock="$root/.build/postgres.lock"
role=folio
database=folio_test
first_port=54320
last_port=54399

# Every client call below names its host, port, role and database; these would only confuse them.
unset PGHOST PGHOSTADDR PGPORT PGUSER PGDATABASE PGDATA PGOPTIONS PGSERVICE PGSERVICEFILE \
  PGSSLMODE PGTARGETSESSIONATTRS PGCONNECT_TIMEOUT

say() { echo "postgres-cluster: $*" >&2; }
die() {
  say "$*"
  exit 1
}

# The folder holding initdb, pg_ctl and postgres, or nothing.
find_bindir() {
  local dir found
  if [[ -n "${FOLIO_POSTGRES_BINDIR:-}" ]]; then
    dir="$FOLIO_POSTGRES_BINDIR"
    [[ -x "$dir/initdb" && -x "$dir/pg_ctl" && -x "$dir/postgres" ]] && echo "$dir"
    return 0
  fi
  for dir in $(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V -r); do
    if [[ -x "$dir/initdb" && -x "$dir/pg_ctl" && -x "$dir/postgres" ]]; then
      echo "$dir"
      return 0
    fi
  done
  # Elsewhere (Fedora, Homebrew, a symbolic link in /usr/local/bin) initdb is on PATH; its real
  # folder holds the rest.
  found="$(command -v initdb 2>/dev/null)" || return 0
  dir="$(dirname "$(readlink -f "$found")")"
  [[ -x "$dir/pg_ctl" && -x "$dir/postgres" ]] && echo "$dir"
  return 0
}

if [[ "$(id -u)" == 0 ]]; then
  server_user="${FOLIO_POSTGRES_OS_USER:-postgres}"
  as_server() { (cd / && runuser -u "$server_user" -- "$@"); }
else
  server_user="$(id -un)"
  as_server() { "$@"; }
fi

# The cluster's real folder (through the link to /tmp when there is one), or nothing.
cluster_folder() {
  if [[ -L "$cluster" ]]; then
    readlink "$cluster"
  elif [[ -d "$cluster" ]]; then
    echo "$cluster"
  fi
}

# The postmaster's process ID and port, from postmaster.pid, when it is alive.
server_pid() { sed -n 1p "$(cluster_folder)/data/postmaster.pid" 2>/dev/null; }
server_port() { sed -n 4p "$(cluster_folder)/data/postmaster.pid" 2>/dev/null; }
is_running() {
  local pid
  pid="$(server_pid)"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
  # After a reboot a stale postmaster.pid may name another process; and a server that exited
  # stays a zombie where the init process does not reap orphans.
  [[ ! -r "/proc/$pid/stat" ]] && return 0
  [[ "$(cat "/proc/$pid/comm")" == postgres && "$(awk '{ print $3 }' "/proc/$pid/stat")" != Z ]]
}
url() { echo "postgresql://$role@127.0.0.1:$(server_port)/$database"; }

# Something already accepts connections on 127.0.0.1:PORT.
port_in_use() { (: <"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Serialises start and stop: two `make test` runs in one tree share one cluster.
take_lock() {
  mkdir -p "$root/.build"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$lock"
    flock 9
  fi
}

remove_folder() {
  local folder
  folder="$(cluster_folder)"
  if [[ -L "$cluster" ]]; then
    # Only ever a folder this script made.
    case "$folder" in /tmp/folio-postgres.*) rm -rf "$folder" ;; esac
    rm -f "$cluster"
  elif [[ -n "$folder" ]]; then
    rm -rf "$folder"
  fi
}

stop_server() {
  local pid bindir waited=0
  is_running || return 0
  pid="$(server_pid)"
  bindir="$(find_bindir)"
  # Without pg_ctl (the server uninstalled since), SIGQUIT is the same immediate shutdown.
  if [[ -z "$bindir" ]] ||
    ! as_server "$bindir/pg_ctl" stop -D "$(cluster_folder)/data" -m immediate -w -t 30 -s; then
    kill -QUIT "$pid" 2>/dev/null || true
  fi
  while is_running; do
    ((waited++ < 300)) || die "the server (process $pid) did not stop in 30 s"
    sleep 0.1
  done
}

# Makes the cluster's folder, owned by the server's user: in the build folder when that user
# can reach it, else in /tmp.
make_folder() {
  local folder="$cluster" socket_path="$cluster/socket/.s.PGSQL.$last_port"
  mkdir -p "$folder/socket"
  own "$folder"
  if ((${#socket_path} > 107)) || ! as_server test -w "$folder/socket" 2>/dev/null; then
    rm -rf "$cluster"
    folder="$(mktemp -d /tmp/folio-postgres.XXXXXX)"
    ln -s "$folder" "$cluster"
    mkdir "$folder/socket"
    own "$folder"
    if ((${#socket_path} > 107)); then
      say "a socket in $cluster would have a path over 107 bytes: the cluster is in $folder"
    else
      say "$server_user cannot reach $cluster: the cluster is in $folder"
    fi
  fi
}

own() {
  if [[ "$(id -u)" == 0 ]]; then
    chown -R "$server_user:" "$1"
  fi
  chmod 700 "$1" "$1/socket"
}

start() {
  local bindir folder started port version locale=() attempts
  bindir="$(find_bindir)"
  if [[ -z "$bindir" ]]; then
    say "no PostgreSQL server here (initdb, pg_ctl and postgres are in neither FOLIO_POSTGRES_BINDIR, /usr/lib/postgresql/*/bin nor PATH): install it with 'make deps' or 'apt-get install postgresql'"
    exit 3
  fi
  if [[ "$(id -u)" == 0 ]] && ! id "$server_user" >/dev/null 2>&1; then
    die "initdb and postgres refuse to run as root, and there is no '$server_user' user to run them: create one (adduser --system $server_user) or name another with FOLIO_POSTGRES_OS_USER"
  fi
  take_lock
  if is_running; then
    if "$bindir/psql" -X -q -At -d "$(url)" -c 'select 1' >/dev/null 2>&1; then
      say "reusing the cluster running in $(cluster_folder) (process $(server_pid))"
      url
      return 0
    fi
    say "the cluster running in $(cluster_folder) does not answer: making a new one"
    stop_server
  fi
  if [[ -e "$cluster" || -L "$cluster" ]]; then
    say "removing the stopped cluster left in $(cluster_folder)"
    remove_folder
  fi
  started="$(date +%s%N)"
  make_folder
  folder="$(cluster_folder)"
  if locale -a 2>/dev/null | grep -qix 'c\.utf-\?8'; then
    locale=(--locale=C.UTF-8)
  else
    locale=(--no-locale)
  fi
  # The bootstrap superuser is the role the URL names, so there is no `postgres` role to trust.
  as_server "$bindir/initdb" -D "$folder/data" -U "$role" --auth=trust --encoding=UTF8 \
    "${locale[@]}" >"$folder/initdb.log" 2>&1 || {
    cat "$folder/initdb.log" >&2
    die "initdb failed (its output is above)"
  }
  as_server tee "$folder/data/pg_hba.conf" >/dev/null <<'EOF'
# Folio's throwaway test cluster: anyone on this machine is trusted, from nowhere else.
# TYPE  DATABASE  USER  ADDRESS       METHOD
local   all       all                 trust
host    all       all   127.0.0.1/32  trust
EOF
  as_server tee -a "$folder/data/postgresql.conf" >/dev/null <<EOF

# Folio's throwaway test cluster (scripts/postgres-cluster.sh).
listen_addresses = '127.0.0.1'
unix_socket_directories = '$folder/socket'
# The store's durability tests need real fsync semantics: a commit is on disk when it returns.
fsync = on
synchronous_commit = on
full_page_writes = on
EOF
  # A port that looks free may still be taken before the server binds it: then the next one.
  port=$first_port
  attempts=0
  while :; do
    ((port <= last_port)) || die "no free port on 127.0.0.1 from $first_port to $last_port"
    if port_in_use "$port"; then
      port=$((port + 1))
      continue
    fi
    if as_server "$bindir/pg_ctl" start -D "$folder/data" -l "$folder/server.log" -o "-p $port" \
      -w -t 60 -s >/dev/null 2>&1 9>&-; then
      break
    fi
    if grep -q "Is another postmaster already running on port $port?" "$folder/server.log" &&
      ((attempts++ < 10)); then
      port=$((port + 1))
      continue
    fi
    tail -n 20 "$folder/server.log" >&2
    die "the server did not start (the end of $folder/server.log is above)"
  done
  "$bindir/createdb" -h 127.0.0.1 -p "$port" -U "$role" "$database" ||
    die "could not create the database $database"
  version="$("$bindir/postgres" --version | awk '{ print $3 }')"
  say "PostgreSQL $version in $folder, on 127.0.0.1:$port, started in $((($(date +%s%N) - started) / 1000000)) ms"
  url
}

case "${1:-}" in
start) start ;;
url)
  is_running || die "no cluster is running (scripts/postgres-cluster.sh start starts one)"
  url
  ;;
status)
  if is_running; then
    echo "running: $(url) (process $(server_pid), folder $(cluster_folder))"
  else
    echo "not running"
    exit 1
  fi
  ;;
restart)
  # For the tests of clients that outlive a server restart: the same cluster, port and data.
  is_running || die "no cluster is running (scripts/postgres-cluster.sh start starts one)"
  bindir="$(find_bindir)"
  [[ -n "$bindir" ]] || die "no pg_ctl here to restart the server with"
  as_server "$bindir/pg_ctl" restart -D "$(cluster_folder)/data" -l "$(cluster_folder)/server.log" \
    -m fast -w -t 60 -s >/dev/null 2>&1 9>&- || die "the server did not restart"
  ;;
stop)
  take_lock
  if [[ -e "$cluster" || -L "$cluster" ]]; then
    stop_server
    remove_folder
    say "stopped and removed the cluster"
  fi
  ;;
*)
  echo "usage: $0 start|url|status|restart|stop" >&2
  exit 64
  ;;
esac
