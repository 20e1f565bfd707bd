#!/usr/bin/env bash
# install.sh - install Lazuli like a desktop app under a prefix.
#
# Usage: scripts/install.sh PREFIX [BINARY]
#   PREFIX   where to install (make install: PREFIX=~/.local by default)
#   BINARY   the lazuli binary to install (default bin/lazuli, built by make)
# Writes, creating folders as needed:
#   PREFIX/bin/lazuli
#   PREFIX/bin/lazuli-window, when a lazuli-window is beside BINARY (make build's
#     headless bin/lazuli hands the window over to it)
#   PREFIX/share/applications/io.github.lazuli_app.lazuli.desktop
#     (Exec is "PREFIX/bin/lazuli" %u, or $LAZULI_EXEC %u when set, e.g. lazuli for
#     an archive extracted anywhere; it also handles lazuli:// links)
#   PREFIX/share/icons/hicolor/512x512/apps/io.github.lazuli_app.lazuli.png
#   PREFIX/share/icons/hicolor/scalable/apps/io.github.lazuli_app.lazuli.svg
# Name, comment, categories and keywords come from FyneApp.toml. Each file is
# written beside its place and renamed into it, so a failed install leaves no
# half-written file. Refreshes the desktop and icon caches when the tools exist.
set -euo pipefail

root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -ge 1 ] && [ $# -le 2 ] || { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
prefix=$1 bin=${2:-$root/bin/lazuli}
[ -x "$bin" ] || { echo "install: $bin is not an executable (run make build)" >&2; exit 1; }
prefix=$(mkdir -p -- "$prefix" && cd -- "$prefix" && pwd)
case "$prefix" in *[\"\`\$\\]*) echo "install: PREFIX must not contain \", \`, \$ or \\: $prefix" >&2; exit 1 ;; esac
exec_cmd=\"$prefix/bin/lazuli\"
[ -z "${LAZULI_EXEC:-}" ] || exec_cmd=$LAZULI_EXEC

id=io.github.lazuli_app.lazuli
toml=$root/FyneApp.toml
# field TABLE KEY: a string value of FyneApp.toml; lists are joined with ";".
field() {
  awk -v table="[$1]" -v key="$2" '
    /^\[/ { in_t = ($0 == table); next }
    in_t && $1 == key {
      sub(/^[^=]*=[ \t]*/, ""); gsub(/^\[|\]$/, ""); gsub(/"[ \t]*,[ \t]*"/, ";"); gsub(/"/, ""); print; exit
    }' "$toml"
}
name=$(field Details Name) generic=$(field LinuxAndBSD GenericName) comment=$(field LinuxAndBSD Comment)
categories=$(field LinuxAndBSD Categories) keywords=$(field LinuxAndBSD Keywords)

# put SRC DEST MODE: copy into place atomically.
put() {
  mkdir -p -- "$(dirname -- "$2")"
  install -m "$3" -- "$1" "$2.tmp.$$"
  mv -f -- "$2.tmp.$$" "$2"
}

put "$bin" "$prefix/bin/lazuli" 755
window=$(dirname -- "$bin")/lazuli-window
if [ -x "$window" ]; then
  put "$window" "$prefix/bin/lazuli-window" 755
fi
put "$root/assets/icon.png" "$prefix/share/icons/hicolor/512x512/apps/$id.png" 644
put "$root/assets/icon.svg" "$prefix/share/icons/hicolor/scalable/apps/$id.svg" 644
desktop=$(mktemp)
trap 'rm -f "$desktop"' EXIT
cat > "$desktop" <<DESKTOP
[Desktop Entry]
Type=Application
Name=$name
GenericName=$generic
Comment=$comment
Exec=$exec_cmd %u
Icon=$id
Terminal=false
Categories=$categories;
Keywords=$keywords;
MimeType=x-scheme-handler/lazuli;
StartupWMClass=$name
DESKTOP
put "$desktop" "$prefix/share/applications/$id.desktop" 644

if command -v update-desktop-database >/dev/null 2>&1; then
  update-desktop-database -q "$prefix/share/applications" || true
fi
if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$prefix/share/icons/hicolor/index.theme" ]; then
  gtk-update-icon-cache -q "$prefix/share/icons/hicolor" || true
fi
echo "installed Lazuli into $prefix (bin/lazuli$([ -x "$window" ] && echo ", bin/lazuli-window"), share/applications/$id.desktop, share/icons/hicolor/…/$id.*)"
