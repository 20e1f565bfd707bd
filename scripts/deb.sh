#!/usr/bin/env bash
# deb.sh - build the Debian package out/lazuli_VERSION_ARCH.deb (make deb), offline.
#
# Usage: scripts/deb.sh [OUTDIR]   (default out; needs bin/lazuli and bin/lazuli-window: make build)
# The package holds:
#   /usr/bin/lazuli (headless, static) and /usr/bin/lazuli-window (the window; lazuli hands
#     the window over to it, package launch)
#   /usr/share/applications/io.github.lazuli_app.lazuli.desktop (Exec=/usr/bin/lazuli %u; it
#     handles lazuli:// links: MimeType=x-scheme-handler/lazuli)
#   /usr/share/icons/hicolor/{512x512,scalable}/apps/io.github.lazuli_app.lazuli.{png,svg}
#   /usr/share/man/man1/lazuli.1.gz, written by `bin/lazuli help --man` (the command table
#     `lazuli help` prints)
#   /usr/share/doc/lazuli/{README.md.gz,copyright} (copyright: LICENSE when the repository
#     has one, then the third-party notices of the window build, internal/thirdparty)
# No maintainer scripts: dpkg's triggers of desktop-file-utils and hicolor-icon-theme
# refresh the desktop's caches when those are installed, and dpkg -r removes every file.
# Depends: the libraries lazuli-window links (readelf NEEDED) and those GLFW opens at run
# time (dlopen: X11, Wayland, xkbcommon); scripts/deb-check.sh checks the list against ldd.
set -euo pipefail

root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd -- "$root"
outdir=${1:-out}
GO=${GO:-go}
version=$(awk -F'"' '/^Version *=/ {print $2; exit}' FyneApp.toml)
arch=$(dpkg --print-architecture)
id=io.github.lazuli_app.lazuli
for b in bin/lazuli bin/lazuli-window; do
  [ -x "$b" ] || { echo "deb: $b missing (run make build)" >&2; exit 1; }
done

# Depends (Debian 12 names): NEEDED of lazuli-window (libGL, libwayland-client, libc/libm),
# then GLFW's dlopen()ed X11 and Wayland libraries.
depends="libc6, libgl1, libwayland-client0, libx11-6, libx11-xcb1, libxcursor1, libxrandr2, libxinerama1, libxi6, libxext6, libxrender1, libxxf86vm1, libxkbcommon0, libwayland-cursor0, libwayland-egl1"
# Software OpenGL for machines without a GPU driver; xdg-open for links and files.
recommends="libgl1-mesa-dri, xdg-utils"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lazuli-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tree=$tmp/lazuli_${version}_$arch
LAZULI_EXEC=/usr/bin/lazuli bash scripts/install.sh "$tree/usr" bin/lazuli >/dev/null
# Caches the desktop builds for itself (install.sh refreshes them when it can): not ours to ship.
rm -f "$tree/usr/share/applications/mimeinfo.cache" "$tree/usr/share/icons/hicolor/icon-theme.cache"

mkdir -p "$tree/usr/share/man/man1" "$tree/usr/share/doc/lazuli" "$tree/DEBIAN"
bin/lazuli help --man | gzip -n -9 > "$tree/usr/share/man/man1/lazuli.1.gz"
gzip -n -9 -c README.md > "$tree/usr/share/doc/lazuli/README.md.gz"
{
  echo "Lazuli $version"
  echo "https://github.com/lazuli-app/lazuli"
  echo
  if [ -f LICENSE ]; then cat LICENSE; echo; fi
  $GO run ./internal/thirdparty -tags "${WINDOW_TAGS:-no_animations}"
} > "$tree/usr/share/doc/lazuli/copyright"

size=$(du -sk --exclude=DEBIAN "$tree" | cut -f1)
description=$(awk -F'"' '/^Description *=/ {print $2; exit}' FyneApp.toml)
cat > "$tree/DEBIAN/control" <<CONTROL
Package: lazuli
Version: $version
Architecture: $arch
Maintainer: Lazuli developers <https://github.com/lazuli-app/lazuli>
Installed-Size: $size
Depends: $depends
Recommends: $recommends
Section: devel
Priority: optional
Homepage: https://github.com/lazuli-app/lazuli
Description: home of coding-agent sessions (Claude Code, Codex)
 $description
 Lazuli keeps every session of a worktree in one portable SQLite file in
 AZUREAL's v3 format: a desktop window to browse, search and continue them,
 and a headless command line (import, search, stats, export, team sync).
CONTROL
find "$tree" -type d -exec chmod 755 {} +
find "$tree" -type f -exec chmod 644 {} +
chmod 755 "$tree/usr/bin/lazuli" "$tree/usr/bin/lazuli-window"
epoch=$(git log -1 --format=%ct 2>/dev/null || date +%s)
find "$tree" -exec touch -h -d "@$epoch" {} +

mkdir -p "$outdir"
deb=$outdir/lazuli_${version}_$arch.deb
SOURCE_DATE_EPOCH=$epoch dpkg-deb --root-owner-group -Zxz --build "$tree" "$deb" >/dev/null
echo "deb: $deb ($(du -h "$deb" | cut -f1))"
