#!/usr/bin/env bash
# vet-cross.sh - go vet of every package for the systems CI does not run on
# (issue 33): windows/amd64 with the headless tag (CGO_ENABLED=0) and with the
# window (cgo through Debian's mingw-w64 for Fyne's GLFW), and darwin/amd64 with
# the headless tag for every package whose code or tests do not reach Fyne's
# widgets or driver: those need cgo on macOS, and there is no macOS SDK here.
# Needs x86_64-w64-mingw32-gcc (scripts/install-deps.sh --windows).
#
# Usage: scripts/vet-cross.sh [windows|darwin]...   (default: both)
set -euo pipefail
cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.."
GO=${GO:-go}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(windows darwin)

for t in "${targets[@]}"; do
  case "$t" in
    windows)
      # Without cgo, packages that link Fyne's driver (app) cannot build: the next run vets them.
      mapfile -t pkgs < <(GOOS=windows CGO_ENABLED=0 "$GO" list -tags nowindow -e \
        -f '{{if not .DepsErrors}}{{.ImportPath}}{{end}}' ./...)
      echo "vet-cross: windows/amd64, headless (-tags nowindow, CGO_ENABLED=0): ${#pkgs[@]} packages"
      GOOS=windows GOARCH=amd64 CGO_ENABLED=0 "$GO" vet -tags nowindow "${pkgs[@]}"
      echo "vet-cross: windows/amd64, with the window (mingw-w64)"
      GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=${WINDOWS_CC:-x86_64-w64-mingw32-gcc} "$GO" vet ./...
      ;;
    darwin)
      # Fyne's widgets and driver (internal/widget, widget, test, app, driver/…) have
      # cgo-only files on macOS; packages that reach them, in code or tests, are skipped.
      mapfile -t pkgs < <(GOOS=darwin CGO_ENABLED=0 "$GO" list -tags nowindow -e \
        -f '{{.ImportPath}} {{join .Deps " "}} {{join .TestImports " "}} {{join .XTestImports " "}} ' ./... |
        awk '$0 !~ / fyne\.io\/fyne\/v2\/(internal\/widget|internal\/driver|widget|test|app|driver)[ \/]/ {print $1}')
      skipped=$(( $("$GO" list ./... | wc -l) - ${#pkgs[@]} ))
      echo "vet-cross: darwin/amd64, headless (-tags nowindow): ${#pkgs[@]} packages ($skipped with Fyne's widgets skipped)"
      GOOS=darwin GOARCH=amd64 CGO_ENABLED=0 "$GO" vet -tags nowindow "${pkgs[@]}"
      ;;
    *) echo "vet-cross: unknown target $t (windows or darwin)" >&2; exit 2 ;;
  esac
done
