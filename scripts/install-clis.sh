#!/usr/bin/env bash
# install-clis.sh - install the pinned agent CLIs that the end-to-end tests drive
# (e2e/, internal/fakemodel) into a cache folder, with npm.
#
#   @anthropic-ai/claude-code@$CLAUDE_VERSION  -> $cache/node_modules/.bin/claude
#   @openai/codex@$CODEX_VERSION               -> $cache/node_modules/.bin/codex
#   @google/gemini-cli@$GEMINI_VERSION         -> $cache/node_modules/.bin/gemini
#   @qwen-code/qwen-code@$QWEN_VERSION         -> $cache/node_modules/.bin/qwen
#   opencode-ai@$OPENCODE_VERSION              -> $cache/node_modules/.bin/opencode
#   @mariozechner/pi-coding-agent@$PI_VERSION  -> $cache/node_modules/.bin/pi
#   @github/copilot@$COPILOT_VERSION           -> $cache/node_modules/.bin/copilot
#
# The CLIs are one table (clis below): adding an agent is adding its line.
# Idempotent: npm runs only when a CLI is missing or `--version` does not report the
# pinned version (~0.5 s per CLI when all are current). Logs go to stderr; stdout is only
#
#   export LAZULI_CLAUDE=<path>
#   export LAZULI_CODEX=<path>
#   export LAZULI_GEMINI=<path>
#   export LAZULI_QWEN=<path>
#   export LAZULI_OPENCODE=<path>, LAZULI_PI=<path>, LAZULI_COPILOT=<path>
#
# so CI can run:  eval "$(scripts/install-clis.sh)"
#
# Usage: scripts/install-clis.sh [--check]
#   --check  install nothing; exit 1 if a CLI is missing or has the wrong version
# Env: LAZULI_CLI_CACHE (default ~/.cache/lazuli/cli), CLAUDE_VERSION, CODEX_VERSION,
#      GEMINI_VERSION, QWEN_VERSION, OPENCODE_VERSION, PI_VERSION, COPILOT_VERSION, NPM (default: npm). Needs node and npm; the claude
#      package is a native binary (its package asks for node >= 22, which only matters to
#      its postinstall), codex runs its launcher with node, gemini and qwen are node
#      programs (node >= 20), opencode and copilot native binaries (optional
#      dependencies, like codex's), pi a node program (node >= 20).
# Exit status: 0 ok, 1 missing (--check) or install failed, 2 usage error.
#
# npm 11 warns that claude's postinstall ("node install.cjs", which copies the native
# binary from @anthropic-ai/claude-code-linux-x64 over the bin/claude.exe placeholder)
# is "not yet covered by allowScripts". npm 11.19 still runs it; should a later npm
# skip it, the placeholder fails `--version` and this script runs install.cjs itself.
set -euo pipefail

CLAUDE_VERSION=${CLAUDE_VERSION:-2.1.328}
CODEX_VERSION=${CODEX_VERSION:-0.169.0}
GEMINI_VERSION=${GEMINI_VERSION:-0.61.0}
QWEN_VERSION=${QWEN_VERSION:-0.24.4}
OPENCODE_VERSION=${OPENCODE_VERSION:-1.18.33}
PI_VERSION=${PI_VERSION:-0.73.1}
COPILOT_VERSION=${COPILOT_VERSION:-1.0.102}
NPM=${NPM:-npm}
cache=${LAZULI_CLI_CACHE:-${HOME:?HOME is not set}/.cache/lazuli/cli}

# clis: one line per CLI: its name (the bin and the LAZULI_<NAME> variable), npm
# package and pinned version.
clis=(
  "claude @anthropic-ai/claude-code $CLAUDE_VERSION"
  "codex @openai/codex $CODEX_VERSION"
  "gemini @google/gemini-cli $GEMINI_VERSION"
  "qwen @qwen-code/qwen-code $QWEN_VERSION"
  "opencode opencode-ai $OPENCODE_VERSION"
  "pi @mariozechner/pi-coding-agent $PI_VERSION"
  "copilot @github/copilot $COPILOT_VERSION"
)

check_only=0
for arg in "$@"; do
  case "$arg" in
    --check) check_only=1 ;;
    -h|--help) awk 'NR>1 && /^#/ {sub(/^# ?/, ""); print; next} NR>1 {exit}' "$0"; exit 0 ;;
    *) echo "install-clis: unknown option: $arg" >&2; exit 2 ;;
  esac
done

log() { echo "install-clis: $*" >&2; }

bin_of() { echo "$cache/node_modules/.bin/$1"; }

# has_version BIN VERSION: BIN runs and its --version output names VERSION
# ("2.1.328 (Claude Code)", "codex-cli 0.169.0", "0.61.0", "GitHub Copilot CLI 1.0.102."). No network: autoupdaters
# and telemetry are off.
has_version() {
  local out
  [ -x "$1" ] || return 1
  out=$(DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
        GEMINI_CLI_NO_RELAUNCH=true NO_UPDATE_NOTIFIER=1 \
        timeout 60 "$1" --version 2>&1 </dev/null) || return 1
  # pi prints its version on stderr; the version may end a sentence
  # ("GitHub Copilot CLI 1.0.102.").
  [[ " $out " =~ [^0-9.]${2//./\\.}([^0-9.]|\.[^0-9]) ]]
}

# stale: the names of the CLIs missing or at another version.
stale() {
  local name pkg version
  for line in "${clis[@]}"; do
    read -r name pkg version <<<"$line"
    has_version "$(bin_of "$name")" "$version" || echo "$name"
  done
}

missing=$(stale)
if [ -z "$missing" ]; then
  log "all current in $cache: $(for l in "${clis[@]}"; do read -r n _ v <<<"$l"; printf '%s %s  ' "$n" "$v"; done)"
elif [ "$check_only" = 1 ]; then
  for name in $missing; do log "missing or stale: $name ($(bin_of "$name"))"; done
  exit 1
else
  command -v "$NPM" >/dev/null 2>&1 || { log "'$NPM' not found on PATH (install Node.js and npm)"; exit 1; }
  command -v node >/dev/null 2>&1 || { log "node not found on PATH"; exit 1; }
  mkdir -p "$cache"
  [ -f "$cache/package.json" ] || echo '{"private": true}' >"$cache/package.json"
  specs=()
  for line in "${clis[@]}"; do
    read -r name pkg version <<<"$line"
    specs+=("$pkg@$version")
  done
  log "installing ${specs[*]} into $cache (stale: $(echo $missing))"
  # All every time, so npm never prunes another one. --include=optional: the
  # native binaries are optional dependencies.
  "$NPM" install --prefix "$cache" --save-exact --no-audit --no-fund --include=optional \
    --loglevel=warn "${specs[@]}" >&2
  claude=$(bin_of claude)
  if ! has_version "$claude" "$CLAUDE_VERSION"; then
    pkg="$cache/node_modules/@anthropic-ai/claude-code"
    if [ -f "$pkg/install.cjs" ]; then
      log "claude does not run (postinstall skipped?); running its install.cjs"
      (cd "$pkg" && node install.cjs) >&2
    fi
  fi
  missing=$(stale)
  [ -z "$missing" ] || { log "--version does not report the pinned version: $(echo $missing)"; exit 1; }
  log "installed ${specs[*]}"
fi

for line in "${clis[@]}"; do
  read -r name pkg version <<<"$line"
  printf 'export LAZULI_%s=%q\n' "$(echo "$name" | tr a-z A-Z)" "$(bin_of "$name")"
done
