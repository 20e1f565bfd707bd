#!/usr/bin/env bash
# install-clis.sh - install the pinned agent CLIs that the end-to-end tests drive
# (e2e/, internal/fakemodel) into a cache folder, with npm.
#
#   @anthropic-ai/claude-code@$CLAUDE_VERSION  -> $cache/node_modules/.bin/claude
#   @openai/codex@$CODEX_VERSION               -> $cache/node_modules/.bin/codex
#
# Idempotent: npm runs only when a CLI is missing or `--version` does not report the
# pinned version (~0.5 s when both are current). Logs go to stderr; stdout is only
#
#   export LAZULI_CLAUDE=<path>
#   export LAZULI_CODEX=<path>
#
# so CI can run:  eval "$(scripts/install-clis.sh)"
#
# Usage: scripts/install-clis.sh [--check]
#   --check  install nothing; exit 1 if a CLI is missing or has the wrong version
# Env: LAZULI_CLI_CACHE (default ~/.cache/lazuli/cli), CLAUDE_VERSION, CODEX_VERSION,
#      NPM (default: npm). Needs node and npm; the claude package is a native binary
#      (its package asks for node >= 22, which only matters to its postinstall), codex
#      runs its launcher with node.
# Exit status: 0 ok, 1 missing (--check) or install failed, 2 usage error.
#
# npm 11 warns that claude's postinstall ("node install.cjs", which copies the native
# binary from @anthropic-ai/claude-code-linux-x64 over the bin/claude.exe placeholder)
# is "not yet covered by allowScripts". npm 11.19 still runs it; should a later npm
# skip it, the placeholder fails `--version` and this script runs install.cjs itself.
set -euo pipefail

CLAUDE_VERSION=${CLAUDE_VERSION:-2.1.328}
CODEX_VERSION=${CODEX_VERSION:-0.169.0}
NPM=${NPM:-npm}
cache=${LAZULI_CLI_CACHE:-${HOME:?HOME is not set}/.cache/lazuli/cli}

check_only=0
for arg in "$@"; do
  case "$arg" in
    --check) check_only=1 ;;
    -h|--help) awk 'NR>1 && /^#/ {sub(/^# ?/, ""); print; next} NR>1 {exit}' "$0"; exit 0 ;;
    *) echo "install-clis: unknown option: $arg" >&2; exit 2 ;;
  esac
done

log() { echo "install-clis: $*" >&2; }

claude="$cache/node_modules/.bin/claude"
codex="$cache/node_modules/.bin/codex"

# has_version BIN VERSION: BIN runs and its --version output names VERSION
# ("2.1.328 (Claude Code)", "codex-cli 0.169.0"). No network: autoupdaters are off.
has_version() {
  local out
  [ -x "$1" ] || return 1
  out=$(DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
        timeout 60 "$1" --version 2>/dev/null </dev/null) || return 1
  [[ " $out " =~ [^0-9.]${2//./\\.}[^0-9.] ]]
}

current() {
  has_version "$claude" "$CLAUDE_VERSION" && has_version "$codex" "$CODEX_VERSION"
}

if current; then
  log "claude $CLAUDE_VERSION and codex $CODEX_VERSION current in $cache"
elif [ "$check_only" = 1 ]; then
  has_version "$claude" "$CLAUDE_VERSION" || log "missing or stale: claude $CLAUDE_VERSION ($claude)"
  has_version "$codex" "$CODEX_VERSION" || log "missing or stale: codex $CODEX_VERSION ($codex)"
  exit 1
else
  command -v "$NPM" >/dev/null 2>&1 || { log "'$NPM' not found on PATH (install Node.js and npm)"; exit 1; }
  command -v node >/dev/null 2>&1 || { log "node not found on PATH"; exit 1; }
  mkdir -p "$cache"
  [ -f "$cache/package.json" ] || echo '{"private": true}' >"$cache/package.json"
  log "installing @anthropic-ai/claude-code@$CLAUDE_VERSION and @openai/codex@$CODEX_VERSION into $cache"
  # Both every time, so npm never prunes the other one. --include=optional: the
  # native binaries are optional dependencies.
  "$NPM" install --prefix "$cache" --save-exact --no-audit --no-fund --include=optional \
    --loglevel=warn "@anthropic-ai/claude-code@$CLAUDE_VERSION" "@openai/codex@$CODEX_VERSION" >&2
  if ! has_version "$claude" "$CLAUDE_VERSION"; then
    pkg="$cache/node_modules/@anthropic-ai/claude-code"
    if [ -f "$pkg/install.cjs" ]; then
      log "claude does not run (postinstall skipped?); running its install.cjs"
      (cd "$pkg" && node install.cjs) >&2
    fi
  fi
  has_version "$claude" "$CLAUDE_VERSION" || { log "claude --version does not report $CLAUDE_VERSION: $claude"; exit 1; }
  has_version "$codex" "$CODEX_VERSION" || { log "codex --version does not report $CODEX_VERSION: $codex"; exit 1; }
  log "installed claude $CLAUDE_VERSION and codex $CODEX_VERSION"
fi

printf 'export LAZULI_CLAUDE=%q\n' "$claude"
printf 'export LAZULI_CODEX=%q\n' "$codex"
