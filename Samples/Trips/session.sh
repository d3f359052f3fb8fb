#!/bin/sh
# A session with the Trips sample's commands, in a new folder: `make test` compares what it
# prints (errors and exit statuses included) with session.expected.
# Usage: session.sh PATH-TO-TripsSample
given=${1:?usage: session.sh PATH-TO-TripsSample}
trips=$(cd "$(dirname "$given")" && pwd)/$(basename "$given")
folder=$(mktemp -d)
trap 'rm -rf "$folder"' EXIT
cd "$folder" || exit 1
run() {
  echo "\$ trips $*"
  "$trips" "$@" 2>&1
  status=$?
  [ $status -eq 0 ] || echo "(exit $status)"
}
run add-trip ALP Alps --start 2027-01-10 --transport train:TGV
run add-stop ALP Chamonix --nights 3
run add-stop ALP Zermatt --nights 2
run add-trip WRK "Client visit" --start 2027-02-01 --company Acme --per-diem 80
run join ALP ada@example.com --name Ada
run join WRK ada@example.com
run join ALP grace@example.com
run join ALP grace@example.com --name Grace
run add-stop NOPE Paris
run add-trip BAD Nowhere --start 2027-02-30
run add-trip BAD Nowhere --start 2027-03-01 --per-diem 10
run list
run list --traveler grace@example.com
run list --before 2027-01-31 --search Al
run add-trip ALP "Alps and lakes" --start 2027-01-10 --transport flight:LX1
run list --search lakes
run remove ALP
run list
run add-trip FJD Fjords --start 2027-06-01 --store log.xml
run list --store log.xml
