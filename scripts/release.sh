#!/usr/bin/env bash
# release.sh - cross-build Lazuli's release archives (make release).
#
# Usage: scripts/release.sh [OUTDIR]   (default out/release; emptied first)
# Writes into OUTDIR, for VERSION from FyneApp.toml:
#   lazuli-VERSION-OS-ARCH.tar.gz (.zip for Windows): the headless lazuli (-tags nowindow,
#     CGO_ENABLED=0, static) for each of $RELEASE_HEADLESS (default: linux/amd64 linux/arm64
#     darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)
#   lazuli-window-VERSION-linux-amd64.tar.gz: the window build (cgo, Fyne) with the headless
#     lazuli beside it, laid out as a prefix (bin/, share/applications, share/icons) as
#     `make package` does: extract it with --strip-components=1 into ~/.local or /usr/local
#   lazuli-window-VERSION-windows-amd64.zip: lazuli-window.exe (cgo with mingw-w64, -H windowsgui)
#     and lazuli.exe, when the tree has scripts/windows-resource.sh (the icon and version
#     resource it links into both; RELEASE_WINDOW=0 skips both window archives)
#   SHA256SUMS over the archives (sha256sum -c SHA256SUMS checks them)
# Each archive has one top folder of its own name holding the binary (or bin/), README.md,
# LICENSE (when the repository has one) and THIRD_PARTY_NOTICES.txt, generated for that
# build from the module graph by internal/thirdparty (offline: GOPROXY=off).
# Archives are reproducible: sorted names, owner 0, the commit's time as mtime, -trimpath.
# Needs go, tar, gzip, zip (scripts/install-deps.sh --release).
# scripts/release-check.sh checks the result.
set -euo pipefail

root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd -- "$root"
out=${1:-out/release}
GO=${GO:-go}
version=$(awk -F'"' '/^Version *=/ {print $2; exit}' FyneApp.toml)
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || true)
epoch=$(git log -1 --format=%ct 2>/dev/null || date +%s)
ldflags="-s -w${commit:+ -X main.commit=$commit}"
headless=${RELEASE_HEADLESS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}
window_tags=${WINDOW_TAGS:-no_animations}
[ -n "$version" ] || { echo "release: no Version in FyneApp.toml" >&2; exit 1; }
for tool in tar gzip zip sha256sum; do
  command -v "$tool" >/dev/null || { echo "release: $tool not found (bash scripts/install-deps.sh --release)" >&2; exit 1; }
done

rm -rf -- "$out"
mkdir -p -- "$out/stage"
out=$(cd -- "$out" && pwd)
stage=$out/stage
notices=$stage/thirdparty
$GO build -o "$notices" ./internal/thirdparty

# docs DIR TAGS: README, LICENSE and the build's notices (GOOS/GOARCH/CGO_ENABLED exported).
docs() {
  cp README.md "$1/"
  if [ -f LICENSE ]; then cp LICENSE "$1/"; fi
  "$notices" -tags "$2" -o "$1/THIRD_PARTY_NOTICES.txt"
}

# archive NAME: tar.gz (zip for a windows- name) of stage/NAME, reproducibly.
archive() {
  find "$stage/$1" -exec touch -h -d "@$epoch" {} +
  case "$1" in
    *-windows-*) (cd "$stage" && find "$1" -print | LC_ALL=C sort | zip -q -X -@ "$out/$1.zip") ;;
    *) tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -cf - "$1" \
         | gzip -n -9 > "$out/$1.tar.gz" ;;
  esac
  echo "release: $(basename -- "$(ls "$out/$1".*)")"
}

# The Windows resource (icon, version) is linked into every windows/amd64 build of main.
windows_window=0
if [ -f scripts/windows-resource.sh ] && [ "${RELEASE_WINDOW:-1}" = 1 ]; then
  bash scripts/windows-resource.sh >/dev/null
  windows_window=1
fi

for target in $headless; do
  os=${target%/*} arch=${target#*/}
  name=lazuli-$version-$os-$arch exe=
  [ "$os" = windows ] && exe=.exe
  mkdir -p "$stage/$name"
  export GOOS=$os GOARCH=$arch CGO_ENABLED=0
  $GO build -trimpath -tags nowindow -ldflags "$ldflags" -o "$stage/$name/lazuli$exe" .
  docs "$stage/$name" nowindow
  unset GOOS GOARCH CGO_ENABLED
  archive "$name"
done

# The window for linux/amd64: both binaries in a prefix tree (scripts/install.sh).
if [ "$($GO env GOOS)/$($GO env GOARCH)" = linux/amd64 ] && [ "${RELEASE_WINDOW:-1}" = 1 ]; then
  name=lazuli-window-$version-linux-amd64
  bin=$stage/bin-linux-amd64
  mkdir -p "$bin"
  CGO_ENABLED=1 $GO build -trimpath -tags "$window_tags" -ldflags "$ldflags" -o "$bin/lazuli-window" .
  CGO_ENABLED=0 $GO build -trimpath -tags nowindow -ldflags "$ldflags" -o "$bin/lazuli" .
  LAZULI_EXEC=lazuli bash scripts/install.sh "$stage/$name" "$bin/lazuli" >/dev/null
  rm -f "$stage/$name/share/applications/mimeinfo.cache"  # the desktop's cache, not ours to ship
  # The window build links every module the headless one does (main imports app, app imports cli).
  CGO_ENABLED=1 docs "$stage/$name" "$window_tags"
  archive "$name"
fi

# The window for windows/amd64, cross-built with mingw-w64 (as make windows does).
if [ "$windows_window" = 1 ]; then
  name=lazuli-window-$version-windows-amd64
  mkdir -p "$stage/$name"
  export GOOS=windows GOARCH=amd64
  CGO_ENABLED=1 CC=${WINDOWS_CC:-x86_64-w64-mingw32-gcc} $GO build -trimpath -tags "$window_tags" \
    -ldflags "$ldflags -H windowsgui" -o "$stage/$name/lazuli-window.exe" .
  CGO_ENABLED=0 $GO build -trimpath -tags nowindow -ldflags "$ldflags" -o "$stage/$name/lazuli.exe" .
  CGO_ENABLED=1 docs "$stage/$name" "$window_tags"
  unset GOOS GOARCH
  archive "$name"
fi

rm -rf -- "$stage"
(cd "$out" && shopt -s nullglob && sha256sum -- *.tar.gz *.zip > SHA256SUMS)
echo "release: $out/SHA256SUMS ($(wc -l < "$out/SHA256SUMS") archives)"
