#!/usr/bin/env bash
# `make test-fresh-loadgen`: issue 47's promise to reviewers checked for real: the Debian
# package of `make loadgen-dist` installs on a fresh Debian 12, and `loadgen run --quick ...
# --upload` from it reaches a running site.
#
#   1. the release is built on the host, by `make loadgen-dist` (of the committed HEAD) into a
#      folder of this run's own;
#   2. a minimal Debian bookworm (debootstrap --variant=minbase, as `make test-fresh` makes
#      it; made once in DIR/minbase and never entered, copied afresh for every run) gets the
#      package with `apt-get install --no-install-recommends ./bench-loadgen_*.deb`: what
#      loadgen needs besides libc (libcurl) must come from Debian's mirror through the
#      package's Depends alone; `loadgen --version` must name the release;
#   3. the site runs on the host, on a free loopback port: the production server
#      (benchsite.serve) on the project's embedded PostgreSQL, in a throw-away folder under
#      var/; a trusted reviewer's token is made (manage.py reviewer_token, as `make reviewer`);
#   4. in the fresh root, loadgen runs its quickest run (one 4KB random read test, --quick,
#      one data pattern) on a 16 MiB file and uploads it with the token;
#   5. on the host, the API serves the run: its tool and version the release's, its results
#      the document's.
# On exit, whatever happened: the server and its database stopped, the root unmounted and
# removed, the throw-away folder removed (its logs kept when something failed).
#
#   tests/fresh_loadgen.sh [DIR]   DIR as make test-fresh's (default /var/tmp/bench-fresh);
#                                  KEEP=0 makes DIR/minbase anew; ALLOW_DIRTY=1 as for
#                                  make loadgen-dist (the package is the commit's all the same)
# Needs root (debootstrap, chroot) and the network to reach Debian's mirror.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/fresh_machine.sh
source "$HERE/fresh_machine.sh" # its functions only

[ "$(id -u)" = 0 ] || { echo "tests/fresh_loadgen.sh needs root (debootstrap, chroot)" >&2; exit 77; }
SRC=$(cd "$HERE/.." && pwd)
DIR=${1:-/var/tmp/bench-fresh}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
PRISTINE=$DIR/minbase
ROOT=$DIR/loadgen-root
WORK=$SRC/var/fresh-loadgen # the release, the site's database and static files, the logs
PY=$SRC/.venv/bin/python
REVIEWER=fresh-reviewer
STARTED=$(date +%s)
SERVER=""

say() { echo "== [$(($(date +%s) - STARTED)) s] $*"; }
fail() { echo "test-fresh-loadgen: FAILED: $*" >&2; exit 1; }

cleanup() {
  local status=$?
  set +e
  if [ -n "$SERVER" ] && kill -0 "$SERVER" 2>/dev/null; then
    kill -TERM "$SERVER" # benchsite.embedded_pg passes it on to gunicorn, then stops PostgreSQL
    wait "$SERVER"
  fi
  if unmount_root "$ROOT"; then
    rm -rf --one-file-system "$ROOT"
  else
    echo "test-fresh-loadgen: $ROOT is still mounted: left as it is" >&2
  fi
  rm -rf "$WORK/pg" "$WORK/static" "$WORK/dist" "$WORK/secret_key"
  if [ "$status" = 0 ]; then
    rm -rf "$WORK"
  else
    echo "test-fresh-loadgen: logs kept in $WORK" >&2
  fi
  echo "== test-fresh-loadgen: $(($(date +%s) - STARTED)) s in all, exit $status"
}
trap cleanup EXIT

[ -x "$PY" ] || make --no-print-directory -C "$SRC" install
unmount_root "$ROOT" || fail "$ROOT is mounted (another run?)"
rm -rf --one-file-system "$ROOT" "$WORK"
mkdir -p "$WORK"
chmod 755 "$WORK" # as root, PostgreSQL runs as an unprivileged user who must reach its folder

say "the release of $(git -C "$SRC" rev-parse --short HEAD), by make loadgen-dist"
make --no-print-directory -C "$SRC" loadgen-dist LOADGEN_DIST="$WORK/dist" \
  ${ALLOW_DIRTY:+ALLOW_DIRTY=1} >"$WORK/loadgen-dist.log" 2>&1 ||
  { cat "$WORK/loadgen-dist.log" >&2; fail "make loadgen-dist"; }
RELEASE=$(find "$WORK/dist" -mindepth 1 -maxdepth 1 -type d -name '[0-9]*')
VERSION=$(basename "$RELEASE")
DEB=$(find "$RELEASE" -name 'bench-loadgen_*.deb')
[ -f "$DEB" ] || fail "no package in $RELEASE"
(cd "$RELEASE" && sha256sum --quiet -c "$(basename "$DEB").sha256") || fail "$DEB's SHA-256"
echo "$(basename "$DEB"): Depends: $(dpkg-deb --field "$DEB" Depends)"

if [ "${KEEP:-1}" = 0 ]; then rm -rf --one-file-system "$PRISTINE"; fi
if [ ! -x "$PRISTINE/usr/bin/apt-get" ]; then
  say "a minimal bookworm, once, in $PRISTINE"
  rm -rf --one-file-system "$PRISTINE.tmp"
  debootstrap_root "$PRISTINE.tmp" "$MIRROR" "$DIR/debootstrap-minbase.log"
  mv "$PRISTINE.tmp" "$PRISTINE"
fi
say "a fresh root: a copy of the minimal bookworm in $PRISTINE"
cp -a "$PRISTINE" "$ROOT"
configure_root "$ROOT"
mount_root "$ROOT"
if in_root "$ROOT" 'dpkg-query -W -f="\${Status}" libcurl4 2>/dev/null | grep -q installed'; then
  fail "the fresh root has libcurl4 already: it proves nothing of the package's Depends"
fi
in_root "$ROOT" 'dpkg-query -W -f="\${Package}\n" | sort' >"$WORK/packages-before"

say "apt-get install --no-install-recommends ./$(basename "$DEB") in the fresh root"
install -m 644 "$DEB" "$ROOT/tmp/"
in_root "$ROOT" "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
  --no-install-recommends ./tmp/$(basename "$DEB")" >"$WORK/apt-get.log" 2>&1 ||
  { cat "$WORK/apt-get.log" >&2; fail "the package did not install"; }
in_root "$ROOT" 'dpkg-query -W -f="\${Package}\n" | sort' >"$WORK/packages-after"
echo "installed with it, from $MIRROR:" \
  "$(comm -13 "$WORK/packages-before" "$WORK/packages-after" | grep -vx bench-loadgen | tr '\n' ' ')"
printed=$(in_root "$ROOT" 'loadgen --version') || fail "loadgen --version"
echo "loadgen --version: $printed"
[ "$printed" = "loadgen $VERSION" ] || fail "loadgen --version printed '$printed', not loadgen $VERSION"

PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SITE=http://127.0.0.1:$PORT
say "the site at $SITE (production server, embedded PostgreSQL in $WORK/pg)"
(
  cd "$SRC"
  unset DATABASE_URL DATABASE_REPLICA_URLS DJANGO_SETTINGS_MODULE REDIS_URL
  export BENCH_STATIC_ROOT=$WORK/static BENCH_SECRET_KEY_FILE=$WORK/secret_key WEB_CONCURRENCY=2
  exec "$PY" -m benchsite.embedded_pg run --data-dir "$WORK/pg" -- \
    "$PY" -m benchsite.serve --bind "127.0.0.1:$PORT"
) >"$WORK/site.log" 2>&1 &
SERVER=$!
for _ in $(seq 300); do
  curl -sf -o /dev/null "$SITE/api/v1/tests/" && break
  kill -0 "$SERVER" 2>/dev/null || { cat "$WORK/site.log" >&2; fail "the site did not start"; }
  sleep 1
done
curl -sf -o /dev/null "$SITE/api/v1/tests/" || { cat "$WORK/site.log" >&2; fail "the site never answered"; }
TOKEN=$(cd "$SRC" && env -u DATABASE_URL -u DJANGO_SETTINGS_MODULE "$PY" -m benchsite.embedded_pg \
  run --data-dir "$WORK/pg" -- "$PY" manage.py reviewer_token --create --trusted -- "$REVIEWER" \
  2>>"$WORK/site.log") || fail "no reviewer token (manage.py reviewer_token)"
(umask 077 && printf '%s\n' "$TOKEN" >"$ROOT/root/bench-token")

say "loadgen run --quick ... --upload $SITE in the fresh root"
in_root "$ROOT" "cd /root && loadgen run --quick --tests randread-4k-qd3 --pattern incompressible \
  --target /root/bench-target.bin --size 16M --output /root/run.json --quiet \
  --drive 'manufacturer=Fresh Debian,model=chroot file' \
  --upload $SITE --token-file /root/bench-token" >"$WORK/loadgen.out" 2>"$WORK/loadgen.err" ||
  { cat "$WORK/loadgen.out" "$WORK/loadgen.err" >&2; fail "loadgen run --upload"; }
cat "$WORK/loadgen.out"
RUN=$(sed -n 's|^uploaded /root/run.json: .*/bench/runs/\([0-9]*\)/.*|\1|p' "$WORK/loadgen.out")
[ -n "$RUN" ] || fail "loadgen printed no uploaded run"

say "the run as the site's API serves it"
curl -sf "$SITE/api/v1/runs/$RUN/" >"$WORK/run-api.json" || fail "GET /api/v1/runs/$RUN/"
curl -sf -H "Authorization: Token $TOKEN" "$SITE/api/v1/me/runs/" >"$WORK/me-runs.json" ||
  fail "GET /api/v1/me/runs/"
"$PY" - "$WORK/run-api.json" "$WORK/me-runs.json" "$ROOT/root/run.json" "$VERSION" "$REVIEWER" <<'PY' ||
import json
import sys

served, mine, sent = (json.load(open(path)) for path in sys.argv[1:4])
version, reviewer = sys.argv[4:6]
problems = []
if served["tool"] != {**served["tool"], "name": "loadgen", "version": version}:
    problems.append(f"tool {served['tool']}, not loadgen {version}")
if (served["status"], served["submitter"]) != ("published", reviewer):
    problems.append(f"{served['status']} by {served['submitter']}")
if [r["id"] for r in mine["results"]] != [served["id"]]:
    problems.append(f"the reviewer's runs: {[r['id'] for r in mine['results']]}")
if sent["tool"]["version"] != version:
    problems.append(f"the document says loadgen {sent['tool']['version']}")
measured = sorted((r["test"], r["pattern"], r["bytes_per_second"]) for r in sent["results"])
shown = sorted((r["test"], r["pattern"], r["bytes_per_second"]) for r in served["results"])
if measured != shown:
    problems.append(f"results {shown}, the document's {measured}")
if problems:
    sys.exit("the run on the site: " + "; ".join(problems))
for test, pattern, rate in shown:
    print(f"run {served['id']}: loadgen {version}, {test} {pattern}: {rate / 1e6:,.1f} MB/s")
PY
  fail "the run the site serves is not the one loadgen uploaded"
say "test-fresh-loadgen passed: bench-loadgen $VERSION installed on a fresh bookworm and uploaded run $RUN to $SITE"
