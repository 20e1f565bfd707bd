#!/usr/bin/env bash
# headless-smoke.sh - the static headless lazuli in a root with nothing else (CI).
#
# Usage: scripts/headless-smoke.sh [BINARY]   (default bin/lazuli: make build)
# Why an empty chroot (not debootstrap): a root holding only the binary, the fixtures and
# empty folders has no libc, no loader, no GL/X/Wayland library and no /etc, /usr or
# /dev; a binary that needed any shared object could not even start there. It is stricter
# than a Debian minbase tree (which has libc), needs no mirror and no cache, and takes
# seconds. The environment is empty too: env -i with HOME, USER (sync push names the
# user), PATH=/bin and LD_LIBRARY_PATH=''.
# Runs, on the real-CLI fixtures of ../shared (LAZULI_SHARED_DIR): --version; the window
# refused in one line; import (Claude transcript B, Codex rollout D); import-native (the
# fixtures' ~/.claude and ~/.codex); ls, search, stats, export; sync push to a real
# PostgreSQL server started here (initdb, pg_ctl; its socket inside the root, no TCP), then
# team ls through it. Also: ldd says "not a dynamic executable". Prints each step's time.
# Needs root (chroot) or unprivileged user namespaces (unshare -r), and PostgreSQL's
# server binaries (scripts/install-deps.sh --pg).
set -euo pipefail

root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(realpath -- "${1:-$root/bin/lazuli}")
shared=${LAZULI_SHARED_DIR:-$root/../shared}
fx=$shared/fixtures/real-cli
start=$SECONDS
fail() { echo "headless-smoke: FAIL: $*" >&2; exit 1; }
step() { echo "headless-smoke: $* ($((SECONDS - start)) s)"; }
[ -x "$bin" ] || fail "$bin missing (make build)"
[ -d "$fx/claude-a-multitool" ] && [ -d "$fx/codex-a-multitool" ] || fail "the fixtures are missing: $fx"

out=$(ldd "$bin" 2>&1 || true)
grep -q 'not a dynamic executable' <<<"$out" || fail "ldd $bin: $out"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lazuli-smoke.XXXXXX")
chmod 755 "$tmp"
pgctl=
cleanup() {
  if [ -n "$pgctl" ]; then $pgctl -D "$tmp/pgdata" -m immediate stop >/dev/null 2>&1 || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# The root: the binary, the fixtures, empty folders. Nothing else.
r=$tmp/root
mkdir -p "$r/bin" "$r/home" "$r/work" "$r/tmp" "$r/pg" "$r/fx"
chmod 1777 "$r/tmp"
cp "$bin" "$r/bin/lazuli"
cp -r "$fx/claude-a-multitool/transcripts/claude" "$r/fx/claude"
cp -r "$fx/codex-a-multitool/transcripts/codex" "$r/fx/codex"
claude_jsonl=$(cd "$r" && find fx/claude -name '*.jsonl' | sed -n 1p)
codex_jsonl=$(cd "$r" && find fx/codex -name 'rollout-*.jsonl' | sed -n 1p)
libs=$(find "$r" -name '*.so*' | wc -l)
[ "$libs" = 0 ] || fail "the root holds shared objects"
step "root: $(find "$r" -type f | wc -l) files, no shared object, no /etc, /usr, /lib or /dev"

chroot=$(command -v chroot) || fail "no chroot"
if [ "$(id -u)" = 0 ]; then jail=("$chroot" "$r"); else jail=("$(command -v unshare)" --map-root-user "$chroot" "$r"); fi
# lz ARGS...: lazuli in the root with an empty environment; stdout to $tmp/out.
lz() {
  env -i HOME=/home USER=smoke PATH=/bin LD_LIBRARY_PATH= TMPDIR=/tmp "${jail[@]}" /bin/lazuli "$@" >"$tmp/out" 2>"$tmp/err"
}
must() { lz "$@" || fail "lazuli $*: exit $?: $(cat "$tmp/err")"; }

must --version
grep -q '^Lazuli ' "$tmp/out" || fail "lazuli --version printed: $(cat "$tmp/out")"
set +e; lz /work; rc=$?; set -e
[ "$rc" = 2 ] && grep -q 'no window' "$tmp/err" || fail "lazuli PATH (the window): exit $rc: $(cat "$tmp/err")"
step "--version, and the window refused in one line"

must import --store /work/s.azs "/$claude_jsonl" "/$codex_jsonl"
must ls --store /work/s.azs --json
[ "$(grep -o '"id"' "$tmp/out" | wc -l)" = 2 ] || fail "lazuli ls after importing two transcripts: $(cat "$tmp/out")"
step "import: a Claude Code transcript and a Codex rollout"

must import-native --store /work/claude/.azureal/sessions.azs --claude-dir /fx/claude --codex-dir /fx/codex \
  --project /tmp/fakemodel-scratch/claude-a-multitool/work
must import-native --store /work/codex/.azureal/sessions.azs --claude-dir /fx/claude --codex-dir /fx/codex \
  --project /tmp/fakemodel-scratch/codex-a-multitool/work
for w in claude codex; do
  must ls --store "/work/$w" --json
  [ "$(grep -o '"id"' "$tmp/out" | wc -l)" = 1 ] || fail "lazuli ls after import-native ($w): $(cat "$tmp/out")"
done
step "import-native: the fixtures' ~/.claude and ~/.codex"

must search --store /work/s.azs --store /work/claude --json Howdy
grep -q '"store":"/work/claude/.azureal/sessions.azs"' "$tmp/out" && grep -q '"store":"/work/s.azs"' "$tmp/out" || fail "lazuli search Howdy did not find both stores: $(cat "$tmp/out")"
must stats --store /work/s.azs --json
grep -q 'tokens' "$tmp/out" || fail "lazuli stats: $(cat "$tmp/out")"
must export --store /work/s.azs 1 --format md -o /work/s1.md
[ -s "$r/work/s1.md" ] && grep -q 'greet' "$r/work/s1.md" || fail "lazuli export wrote no Markdown of the session"
step "search, stats, export"

# PostgreSQL: a server of our own, its socket in the root's /pg.
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$pgbin/initdb" ] || fail "no PostgreSQL server (scripts/install-deps.sh --pg)"
as=()
if [ "$(id -u)" = 0 ]; then
  chown postgres "$r/pg"; mkdir "$tmp/pgdata"; chown postgres "$tmp/pgdata"
  as=(runuser -u postgres --)
fi
"${as[@]}" "$pgbin/initdb" -D "$tmp/pgdata" -U lazuli --auth=trust --no-sync -E UTF8 --locale=C.UTF-8 >"$tmp/pg.log" 2>&1 \
  || { cat "$tmp/pg.log" >&2; fail "initdb"; }
printf "listen_addresses = ''\nunix_socket_directories = '%s'\nfsync = off\n" "$r/pg" >> "$tmp/pgdata/postgresql.conf"
pgctl="${as[*]} $pgbin/pg_ctl"
$pgctl -D "$tmp/pgdata" -w -l "$tmp/pgdata/log" start >/dev/null || { cat "$tmp/pgdata/log" >&2; fail "pg_ctl start"; }
pg='postgres://lazuli@/postgres?host=/pg&sslmode=disable'
must sync push --pg "$pg" --store /work/s.azs --machine smoke
must team ls --pg "$pg" --json
[ "$(grep -o '"machine": *"smoke"' "$tmp/out" | wc -l)" = 2 ] || fail "lazuli team ls after sync push: $(cat "$tmp/out")"
step "sync push to PostgreSQL, team ls"
echo "headless-smoke: ok: $bin ran every command in an empty root in $((SECONDS - start)) s"
