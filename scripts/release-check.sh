#!/usr/bin/env bash
# release-check.sh - check what `make release` (scripts/release.sh) produced.
#
# Usage: scripts/release-check.sh [OUTDIR]   (default out/release)
# Fails unless: every archive of RELEASE_HEADLESS (as release.sh), the linux/amd64 window
# archive (and the windows/amd64 one when scripts/windows-resource.sh exists) is there and nothing else; SHA256SUMS lists exactly them and
# `sha256sum -c` verifies it; each archive's one top folder holds README.md,
# THIRD_PARTY_NOTICES.txt (naming modernc.org/sqlite), LICENSE when the repository has
# one, and binaries that `file` shows built for the archive's OS and architecture (the
# Linux headless ones statically linked, the window dynamically), and each binary's
# --version (read from the file, not run) names VERSION.
# Needs file, tar, unzip, sha256sum.
set -euo pipefail

root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
out=$(cd -- "${1:-$root/out/release}" && pwd)
version=$(awk -F'"' '/^Version *=/ {print $2; exit}' "$root/FyneApp.toml")
headless=${RELEASE_HEADLESS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}
fail=0
bad() { echo "release-check: $*" >&2; fail=1; }

# What `file` says of each OS/arch (file 5.44, Debian 12).
pattern() {
  case "$1" in
    linux/amd64) echo 'ELF 64-bit LSB executable, x86-64' ;;
    linux/arm64) echo 'ELF 64-bit LSB executable, ARM aarch64' ;;
    darwin/amd64) echo 'Mach-O 64-bit x86_64 executable' ;;
    darwin/arm64) echo 'Mach-O 64-bit arm64 executable' ;;
    windows/amd64) echo 'PE32+ executable (console) x86-64' ;;
    windows/amd64-gui) echo 'PE32+ executable (GUI) x86-64' ;;
    windows/arm64) echo 'PE32+ executable (console) Aarch64' ;;
    *) echo "release-check: no file pattern for $1" >&2; exit 2 ;;
  esac
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/release-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# checkbin PATH OS/ARCH LINKING: file's OS/arch (and static/dynamic) and the version inside.
checkbin() {
  local desc
  [ -f "$1" ] || { bad "${1#"$tmp"/}: missing"; return; }
  desc=$(file -b "$1")
  case "$desc" in *"$(pattern "$2")"*) ;; *) bad "${1#"$tmp"/}: file says \"$desc\", want $2" ;; esac
  case "$3" in
    static) case "$desc" in *"statically linked"*) ;; *) bad "${1#"$tmp"/}: not statically linked: $desc" ;; esac ;;
    dynamic) case "$desc" in *"dynamically linked"*) ;; *) bad "${1#"$tmp"/}: not dynamically linked: $desc" ;; esac ;;
  esac
  grep -qa "Version = \"$version\"" "$1" || bad "${1#"$tmp"/}: does not embed Version = \"$version\""
}

# checkdocs DIR: the documents every archive carries.
checkdocs() {
  [ -s "$1/README.md" ] || bad "${1#"$tmp"/}/README.md missing"
  grep -q 'modernc.org/sqlite' "$1/THIRD_PARTY_NOTICES.txt" 2>/dev/null || bad "${1#"$tmp"/}/THIRD_PARTY_NOTICES.txt missing or without modernc.org/sqlite"
  if [ -f "$root/LICENSE" ]; then cmp -s "$root/LICENSE" "$1/LICENSE" || bad "${1#"$tmp"/}/LICENSE missing or different"; fi
}

want=()
for target in $headless; do
  os=${target%/*} arch=${target#*/} name=lazuli-$version-${target/\//-}
  if [ "$os" = windows ]; then
    want+=("$name.zip")
    [ -f "$out/$name.zip" ] || { bad "$name.zip missing"; continue; }
    unzip -q "$out/$name.zip" -d "$tmp" || { bad "$name.zip: unzip failed"; continue; }
    checkbin "$tmp/$name/lazuli.exe" "$target" any
  else
    want+=("$name.tar.gz")
    [ -f "$out/$name.tar.gz" ] || { bad "$name.tar.gz missing"; continue; }
    tar -xzf "$out/$name.tar.gz" -C "$tmp" || { bad "$name.tar.gz: tar failed"; continue; }
    link=any; [ "$os" = linux ] && link=static
    checkbin "$tmp/$name/lazuli" "$target" "$link"
  fi
  checkdocs "$tmp/$name"
done
name=lazuli-window-$version-linux-amd64
if [ "${RELEASE_WINDOW:-1}" = 1 ]; then
  want+=("$name.tar.gz")
  if [ -f "$out/$name.tar.gz" ] && tar -xzf "$out/$name.tar.gz" -C "$tmp"; then
    checkbin "$tmp/$name/bin/lazuli-window" linux/amd64 dynamic
    checkbin "$tmp/$name/bin/lazuli" linux/amd64 static
    checkdocs "$tmp/$name"
    [ -f "$tmp/$name/share/applications/io.github.lazuli_app.lazuli.desktop" ] || bad "$name: no desktop entry"
  else
    bad "$name.tar.gz missing or unreadable"
  fi
fi

# The Windows window, when the tree can build it (scripts/windows-resource.sh, as release.sh).
if [ -f "$root/scripts/windows-resource.sh" ] && [ "${RELEASE_WINDOW:-1}" = 1 ]; then
  name=lazuli-window-$version-windows-amd64
  want+=("$name.zip")
  if [ -f "$out/$name.zip" ] && unzip -q "$out/$name.zip" -d "$tmp"; then
    checkbin "$tmp/$name/lazuli-window.exe" windows/amd64-gui any
    checkbin "$tmp/$name/lazuli.exe" windows/amd64 any
    checkdocs "$tmp/$name"
  else
    bad "$name.zip missing or unreadable"
  fi
fi

got=$(cd "$out" && shopt -s nullglob && for f in *.tar.gz *.zip; do echo "$f"; done | LC_ALL=C sort)
expect=$(printf '%s\n' "${want[@]}" | LC_ALL=C sort)
[ "$got" = "$expect" ] || bad "archives in $out differ from the expected ones:$(diff <(echo "$expect") <(echo "$got") | sed -n 's/^[<>]/\n  &/p' | tr -d '\n')"
if [ -f "$out/SHA256SUMS" ]; then
  listed=$(awk '{print $2}' "$out/SHA256SUMS" | sed 's/^\*//' | LC_ALL=C sort)
  [ "$listed" = "$expect" ] || bad "SHA256SUMS does not list exactly the archives"
  (cd "$out" && sha256sum --quiet -c SHA256SUMS) || bad "sha256sum -c SHA256SUMS failed"
else
  bad "SHA256SUMS missing"
fi
[ "$fail" = 0 ] || exit 1
echo "release-check: ${#want[@]} archives in $out: binaries, documents and SHA256SUMS verified"
