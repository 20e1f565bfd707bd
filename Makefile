# Lazuli developer and CI entry points. `make test` is the one command a fresh
# Debian machine with Go needs: it installs the apt packages and Go tools it uses.
#
#   make deps    apt packages (scripts/install-deps.sh) + Go tools in bin/ (scripts/install-tools.sh)
#                + the pinned claude/codex CLIs for the e2e tests (scripts/install-clis.sh)
#   make test    deps, go vet, staticcheck, go test -race; a banner at the end when the
#                PostgreSQL tests skipped (no server installed; under CI they fail instead)
#   make lint    deps, gofmt check, go vet, staticcheck
#   make build   bin/lazuli (the headless build: -tags nowindow, CGO_ENABLED=0, static; it runs
#                every command and hands the window to bin/lazuli-window) and bin/lazuli-window
#                (the full build with the window), with the commit for lazuli --version
#   make install install like a desktop app under PREFIX (default ~/.local): binary, .desktop, icon
#   make package out/lazuli-VERSION-OS-ARCH.tar.gz: the same tree, for extracting into a prefix
#   make release out/release/: the headless lazuli for Linux, macOS and Windows (amd64, arm64)
#                and the linux/amd64 window, as archives with README, licence and third-party
#                notices, and SHA256SUMS (scripts/release.sh), then checks them (release-check.sh)
#   make deb     out/lazuli_VERSION_ARCH.deb (scripts/deb.sh, dpkg-deb, offline): both binaries, the
#                desktop entry and lazuli:// handler, the icon, the man page (lazuli help --man)
#   make run     deps, build, bin/lazuli --demo with the CLIs of out/clis.env
#   make bench   benchmarks of BENCH_PKGS (override: make bench BENCH=Decode BENCH_PKGS=./store/)
#   make smoke   GUI smoke test: bin/lazuli --demo under Xvfb -> out/gui-smoke.png
#   make icon    re-render assets/icon.png from assets/icon.svg (needs librsvg2-bin)
#   make windows out/windows/lazuli.exe (headless) and lazuli-window.exe (the window, cross-built
#                with mingw-w64), both with the icon and version resource (scripts/windows-resource.sh)
#   make vet-cross  go vet of every package for darwin and windows (the window's packages for
#                windows with mingw-w64's cgo; for darwin only those without Fyne: no macOS SDK here)
#   make wine-test  make windows, then the Windows binaries under Wine (internal/winetest)
#   make clean   remove bin/, out/, testdata/failed/, *.test and coverage files
#
# Never runs `go mod tidy`: go.mod/go.sum are committed, builds use -mod=readonly
# (Go's default), and tidy needs -e with modernc.org/sqlite v1.61.x (TOOLCHAIN §2).

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

GO ?= go
STATICCHECK := bin/staticcheck
TESTFLAGS ?=
BENCH ?= .
BENCHFLAGS ?= -benchmem
# Packages `make bench` runs: every one of these folders that exists. Edit freely.
BENCH_DIRS ?= codec store agents agents/claude search export cli app views
BENCH_PKGS ?= $(foreach d,$(BENCH_DIRS),$(if $(wildcard $(d)/*.go),./$(d)/))

# Go needs a HOME (GOCACHE, GOPATH); give it one inside the repo only if it has none.
ifeq ($(strip $(HOME)),)
export HOME := $(CURDIR)/out/home
endif
# VCS stamping fails in some CI clones (e.g. git's "dubious ownership" as root).
export GOFLAGS := $(strip $(filter-out -buildvcs=%,$(GOFLAGS)) -buildvcs=false)
# Pin Go's cache and config file to where they are now, so the private XDG_* dirs
# that the tests get below do not move them (a cold cache costs ~3 min).
GO_ENV_PINNED := $(shell HOME='$(HOME)' $(GO) env GOCACHE GOENV 2>/dev/null)
export GOCACHE := $(or $(GOCACHE),$(word 1,$(GO_ENV_PINNED)))
export GOENV := $(or $(GOENV),$(word 2,$(GO_ENV_PINNED)))

# Run a command with private XDG_{CONFIG,CACHE,DATA,STATE}_HOME (only those that are
# unset) in a temp dir, removed afterwards, so tests never touch the user's Fyne
# preferences/caches. HOME itself is kept (set above when it was unset).
define with_test_env
t=$$(mktemp -d "$${TMPDIR:-/tmp}/lazuli-test.XXXXXX"); trap 'rm -rf "$$t"' EXIT; \
export XDG_CONFIG_HOME="$${XDG_CONFIG_HOME:-$$t/config}" XDG_CACHE_HOME="$${XDG_CACHE_HOME:-$$t/cache}" \
       XDG_DATA_HOME="$${XDG_DATA_HOME:-$$t/data}" XDG_STATE_HOME="$${XDG_STATE_HOME:-$$t/state}"; \
mkdir -p "$$HOME/.cache" "$$XDG_CONFIG_HOME" "$$XDG_CACHE_HOME" "$$XDG_DATA_HOME" "$$XDG_STATE_HOME"; \
$(1)
endef

.PHONY: deps sysdeps tools clis mod test lint fmt-check build install package release deb run bench smoke icon clean \
	windows windows-resource vet-cross wine-test

# Installing (scripts/install.sh). PREFIX is where `make install` puts the app.
PREFIX ?= $(HOME)/.local
VERSION := $(shell awk -F'"' '/^Version *=/ {print $$2; exit}' FyneApp.toml)
COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null)
LDFLAGS := $(if $(COMMIT),-X main.commit=$(COMMIT))
PACKAGE := lazuli-$(VERSION)-$(shell $(GO) env GOOS)-$(shell $(GO) env GOARCH)

deps: sysdeps tools clis mod

sysdeps:
	bash scripts/install-deps.sh

tools:
	bash scripts/install-tools.sh

# The pinned claude and codex CLIs for the end-to-end tests (npm, into a cache folder);
# out/clis.env holds their LAZULI_CLAUDE / LAZULI_CODEX. Without Node.js and npm (and not
# root to install them), the e2e tests skip, unless LAZULI_E2E_REQUIRED=1 (CI).
clis:
	@mkdir -p out
	@if [ "$$(id -u)" = 0 ]; then bash scripts/install-deps.sh --node; fi
	@if bash scripts/install-clis.sh > out/clis.env.tmp; then mv out/clis.env.tmp out/clis.env; \
	else rm -f out/clis.env.tmp out/clis.env; echo "make: the agent CLIs are not installed; e2e tests will skip"; \
	  if [ "$${LAZULI_E2E_REQUIRED:-}" = 1 ]; then exit 1; fi; fi

mod:
	$(GO) mod download

# The PostgreSQL tests (teamsync, the team tests of cli, app and e2e) skip without a server
# outside CI (internal/pgtest; under CI they fail): each skip is noted in a file, and a
# banner after the tests says they did not run, so a pass without them does not look green.
test: deps
	$(GO) vet ./...
	$(STATICCHECK) ./...
	@echo '$(strip $(GO) test -race -timeout 40m $(TESTFLAGS) ./...)  # with private XDG_* dirs and out/clis.env'
	@$(call with_test_env,if [ -f out/clis.env ]; then . out/clis.env; fi; \
	export LAZULI_PG_SKIPPED_FILE="$$t/pg-skipped"; status=0; \
	$(GO) test -race -timeout 40m $(TESTFLAGS) ./... || status=$$?; \
	if [ -s "$$LAZULI_PG_SKIPPED_FILE" ]; then \
	  echo; echo '################################################################################'; \
	  echo "make test: $$(wc -l < "$$LAZULI_PG_SKIPPED_FILE") PostgreSQL tests SKIPPED: team sync is NOT tested"; \
	  head -n 5 "$$LAZULI_PG_SKIPPED_FILE" | sed 's/^/  /'; \
	  echo '  install the server (bash scripts/install-deps.sh or apt-get install postgresql)'; \
	  echo '  or set LAZULI_PG_REQUIRED=1 to make a missing server a failure'; \
	  echo '################################################################################'; \
	fi; \
	exit $$status)

lint: deps fmt-check
	$(GO) vet ./...
	$(STATICCHECK) ./...

fmt-check:
	@files=$$(find . -name '*.go' -not -path './.git/*' -not -path './out/*' -print0 | xargs -0 -r gofmt -l); \
	if [ -n "$$files" ]; then echo "gofmt needed on:"; echo "$$files"; exit 1; fi

# The window is built without Fyne's animations (the entry cursor's fade, the moving
# bars, the buttons' ripple): each animation frame repaints the whole window, which
# on a machine without a GPU (Mesa's llvmpipe) kept both cores busy while a text box
# had the focus, and made every action wait for a frame (BENCHMARKS.md, "Issue 31").
WINDOW_TAGS ?= no_animations

build:
	$(GO) build -tags '$(WINDOW_TAGS)' -ldflags '$(LDFLAGS)' -o bin/lazuli-window .
	CGO_ENABLED=0 $(GO) build -tags nowindow -ldflags '$(LDFLAGS)' -o bin/lazuli .

# Windows (amd64): the headless build (CGO_ENABLED=0) and the window, cross-built with
# Debian's mingw-w64 (-H windowsgui: no console window). rsrc_windows_amd64.syso (icon and
# version resource, made from assets/icon.png and FyneApp.toml) is linked into both.
WINDOWS_CC ?= x86_64-w64-mingw32-gcc
WINDOWS_OUT ?= out/windows

windows: windows-resource
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) build -tags nowindow -ldflags '$(LDFLAGS)' -o $(WINDOWS_OUT)/lazuli.exe .
	GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=$(WINDOWS_CC) $(GO) build -tags '$(WINDOW_TAGS)' \
	  -ldflags '$(LDFLAGS) -H windowsgui' -o $(WINDOWS_OUT)/lazuli-window.exe .

windows-resource:
	bash scripts/install-deps.sh --windows
	bash scripts/windows-resource.sh

# go vet for the other systems (scripts/vet-cross.sh): windows with and without the window
# (cgo through mingw-w64 for Fyne's GLFW), darwin for every package that does not reach
# Fyne's widgets (their cgo needs the macOS SDK).
vet-cross:
	bash scripts/install-deps.sh --windows
	bash scripts/vet-cross.sh

# The Windows binaries under Wine on Xvfb (internal/winetest): the headless smoke test on
# the shared fixtures and the window showing a session.
wine-test: windows
	bash scripts/install-deps.sh --wine
	@$(call with_test_env,LAZULI_WINDOWS_BIN='$(CURDIR)/$(WINDOWS_OUT)' LAZULI_WINE_SHOT='$(CURDIR)/$(WINDOWS_OUT)/wine-window.png' $(GO) test -count=1 -timeout 20m -v ./internal/winetest/)

install: build
	bash scripts/install.sh '$(PREFIX)' bin/lazuli

# The archive's .desktop entry runs `lazuli` from PATH: extract it into a prefix whose
# bin/ is on PATH, e.g. tar -xzf out/$(PACKAGE).tar.gz -C ~/.local --strip-components=1
package: build
	rm -rf out/package/$(PACKAGE)
	LAZULI_EXEC=lazuli bash scripts/install.sh out/package/$(PACKAGE) bin/lazuli
	tar -C out/package -czf out/$(PACKAGE).tar.gz $(PACKAGE)
	@echo "package: out/$(PACKAGE).tar.gz"

# Cross-builds every archive into out/release (emptied first); RELEASE_HEADLESS="linux/amd64 …"
# narrows the headless targets. Archives are reproducible for one commit and toolchain.
release:
	bash scripts/install-deps.sh --release $(if $(wildcard scripts/windows-resource.sh),--windows)
	WINDOW_TAGS='$(WINDOW_TAGS)' bash scripts/release.sh out/release
	bash scripts/release-check.sh out/release

# scripts/deb-check.sh (root) installs it, opens the installed entry's window and removes it.
deb: build
	WINDOW_TAGS='$(WINDOW_TAGS)' bash scripts/deb.sh out

# The demo runs the seven agent CLIs `make deps` installed (out/clis.env), except those
# whose LAZULI_<AGENT> is already set.
AGENT_VARS := LAZULI_CLAUDE LAZULI_CODEX LAZULI_GEMINI LAZULI_QWEN LAZULI_OPENCODE LAZULI_PI LAZULI_COPILOT
run: deps build
	@mine=$$(for v in $(AGENT_VARS); do [ -z "$${!v:-}" ] || printf 'export %s=%q\n' "$$v" "$${!v}"; done); \
	if [ -f out/clis.env ]; then . out/clis.env; fi; eval "$$mine"; \
	echo "bin/lazuli --demo  #$$(for v in $(AGENT_VARS); do printf ' %s' "$${v#LAZULI_}=$${!v:-PATH}"; done)"; \
	bin/lazuli --demo

bench: deps
	@echo '$(strip $(GO) test -run "^$$" -bench "$(BENCH)" $(BENCHFLAGS) $(BENCH_PKGS))  # with private XDG_* dirs'
	@$(call with_test_env,$(GO) test -run '^$$' -bench '$(BENCH)' $(BENCHFLAGS) $(BENCH_PKGS))

smoke: deps
	bash scripts/gui-smoke.sh

icon:
	bash scripts/install-deps.sh --icon
	rsvg-convert -w 512 -h 512 -o assets/icon.png assets/icon.svg

clean:
	chmod -R u+w out 2>/dev/null || true  # a Go module cache under out/home is read-only
	rm -rf bin/ out/ ./*.test rsrc_windows_amd64.syso coverage.out coverage.html cover.out *.coverprofile
	find . -path ./.git -prune -o -type d -name failed -path '*/testdata/failed' -prune -exec rm -rf {} +
	find . -path ./.git -prune -o -type f \( -name '*.test' -o -name '*.coverprofile' \) -exec rm -f {} +
