#!/usr/bin/env bash
# windows-resource.sh - make rsrc_windows_amd64.syso at the repository root: the
# Windows resources `go build` links into lazuli.exe and lazuli-window.exe when
# GOOS=windows GOARCH=amd64 (Go links every *_windows_amd64.syso of package main):
# the icon (assets/icon.png, 16 to 256 px) and the version resource (FyneApp.toml's
# Version and Build, the name, the description). Made with Debian's mingw-w64
# binutils (x86_64-w64-mingw32-windres) and ImageMagick (the .ico); nothing is
# committed (.gitignore), so the version in the file always is FyneApp.toml's.
#
# Usage: scripts/windows-resource.sh [OUT.syso]   (default: rsrc_windows_amd64.syso)
set -euo pipefail

root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/rsrc_windows_amd64.syso}
windres=${WINDRES:-x86_64-w64-mingw32-windres}
command -v "$windres" >/dev/null || { echo "windows-resource: $windres not found (apt-get install binutils-mingw-w64-x86-64)" >&2; exit 1; }
command -v convert >/dev/null || { echo "windows-resource: convert not found (apt-get install imagemagick)" >&2; exit 1; }

field() { # field KEY: the value of KEY in FyneApp.toml's [Details]
  awk -F' *= *' -v k="$1" '$1 == k {gsub(/^"|"$/, "", $2); print $2; exit}' "$root/FyneApp.toml"
}
version=$(field Version) build=$(field Build) name=$(field Name)
desc=$(awk -F' *= *' '$1 == "Description" {gsub(/^"|"$/, "", $2); print $2; exit}' "$root/FyneApp.toml")
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "windows-resource: FyneApp.toml Version '$version' is not N.N.N" >&2; exit 1; }
[[ $build =~ ^[0-9]+$ ]] || { echo "windows-resource: FyneApp.toml Build '$build' is not a number" >&2; exit 1; }
rcver="${version//./,},$build"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lazuli-rsrc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
convert "$root/assets/icon.png" -background none -define icon:auto-resize=256,128,64,48,32,16 "$tmp/lazuli.ico"
# The strings hold no quote or backslash (FyneApp.toml's own); windres reads UTF-8 with -c 65001.
cat > "$tmp/lazuli.rc" <<RC
#pragma code_page(65001)
1 ICON "lazuli.ico"
1 VERSIONINFO
FILEVERSION $rcver
PRODUCTVERSION $rcver
FILEOS 0x40004
FILETYPE 0x1
BEGIN
  BLOCK "StringFileInfo"
  BEGIN
    BLOCK "040904b0"
    BEGIN
      VALUE "FileDescription", "$desc"
      VALUE "FileVersion", "$version.$build"
      VALUE "InternalName", "lazuli"
      VALUE "ProductName", "$name"
      VALUE "ProductVersion", "$version"
    END
  END
  BLOCK "VarFileInfo"
  BEGIN
    VALUE "Translation", 0x409, 1200
  END
END
RC
(cd "$tmp" && "$windres" -c 65001 -O coff -i lazuli.rc -o "$tmp/out.syso")
mv "$tmp/out.syso" "$out"
echo "windows-resource: $out (icon, version $version.$build)"
