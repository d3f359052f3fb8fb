# Folio — make demo, make test, make bench, make soak OPS=N SEED=S, make install PREFIX=DIR.
# Each target that runs Swift first checks that there is a Swift toolchain, then installs the
# system libraries Folio links (libxml2, zlib, SQLite, libpq) and PostgreSQL when missing.

SWIFT ?= swift
# The version of this source tree (README.md, "Versions"); `folio --version` prints the same.
VERSION := $(shell cat VERSION)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
FOLIO := .build/release/folio
OPS ?= 10000000
SEED ?= 1

.PHONY: all build demo test editor-build editor-demo test-editor test-asan test-asan-unsafe test-tsan api test-limits lint bench soak soak-writers deps clean fuzz fuzz-build fuzz-replay toolchain install uninstall tag

all: build

# The oldest Swift that builds Folio: Package.swift's tools version.
SWIFT_MINIMUM := $(shell sed -n '1s|^// swift-tools-version: *\([0-9.]*\).*|\1|p' Package.swift)

# A Swift toolchain, SWIFT_MINIMUM or later, or a message saying how to get one.
toolchain:
	@command -v $(SWIFT) >/dev/null 2>&1 || { \
	  echo "Folio needs a Swift toolchain, Swift $(SWIFT_MINIMUM) or later, and there is no '$(SWIFT)' command here." >&2; \
	  echo "Get one from https://www.swift.org/install/linux/ — with swiftly, which installs and updates it:" >&2; \
	  echo '  curl -O https://download.swift.org/swiftly/linux/swiftly-$$(uname -m).tar.gz' >&2; \
	  echo '  tar zxf swiftly-$$(uname -m).tar.gz && ./swiftly init' >&2; \
	  echo "then open a new shell and run make again, or name a toolchain: make SWIFT=/path/to/usr/bin/swift" >&2; \
	  exit 1; }
	@version=$$($(SWIFT) --version 2>/dev/null | sed -n 's/.*Swift version \([0-9][0-9.]*\).*/\1/p' | head -n 1); \
	  if [ -n "$$version" ] && ! printf '%s\n%s\n' "$(SWIFT_MINIMUM)" "$$version" | sort -V -C; then \
	    echo "Folio needs Swift $(SWIFT_MINIMUM) or later, and '$(SWIFT)' is Swift $$version:" >&2; \
	    echo "get a newer one from https://www.swift.org/install/linux/ (swiftly install latest)." >&2; \
	    exit 1; \
	  fi
	@# A build folder copied or moved with its tree keeps compiled module caches that name the
	@# old path, which the compiler refuses ("was compiled with module cache path …"): each
	@# build folder records the tree's path, and its module caches go when the path changed.
	@for dir in .build .build-*; do \
	  [ -d "$$dir" ] || continue; \
	  if [ "$$(cat "$$dir/.folio-tree" 2>/dev/null)" != "$(CURDIR)" ]; then \
	    find "$$dir" -type d -name ModuleCache -prune -exec rm -rf {} +; \
	    echo "$(CURDIR)" > "$$dir/.folio-tree"; \
	  fi; \
	done

# PostgreSQL, server and client, for the PostgreSQL store's tests; Debian keeps the server's
# binaries in /usr/lib/postgresql/VERSION/bin.
deps:
	@{ pkg-config --exists libxml-2.0 zlib sqlite3 libpq 2>/dev/null && command -v sqlite3 >/dev/null \
	  && command -v psql >/dev/null && ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; } || { \
	  echo "Installing libxml2-dev, zlib1g-dev, libsqlite3-dev, sqlite3, libpq-dev and postgresql"; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) apt-get install -y -qq pkg-config libxml2-dev zlib1g-dev libsqlite3-dev sqlite3 \
	    libpq-dev postgresql postgresql-client; }

build: toolchain deps
	$(SWIFT) build

demo: toolchain deps
	@command -v dot >/dev/null 2>&1 || { \
	  echo "Installing graphviz for the diagram"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq graphviz; }
	$(SWIFT) build -c release --product folio
	$(FOLIO) model info Samples/Expenses/Expenses.xcdatamodeld
	$(FOLIO) model graph --format svg --output company.svg Samples/Company/Company.xcdatamodeld
	@echo "Wrote company.svg, the Company model as a diagram."
	$(FOLIO) replay --trace Samples/Expenses/undo-cascade.undo
	$(FOLIO) info Samples/Expenses/Expenses.xml
	$(FOLIO) replay --trace Samples/Expenses/session.undo
	$(FOLIO) info Samples/Expenses/Expenses-session.xml
	$(FOLIO) info Samples/Expenses/Expenses-session.folio
	$(FOLIO) migrate Samples/Library/Library.xml --model Samples/Library/Library.xcdatamodeld --dry-run

# The PostgreSQL store's tests run against the server FOLIO_TEST_POSTGRES_URL names; without
# one, against a throwaway cluster (scripts/postgres-cluster.sh) started for `swift test` and
# stopped after it, whatever its outcome. With no PostgreSQL server here they are skipped, and
# make says so before and after the tests; FOLIO_TEST_REQUIRE_POSTGRES=1 (CI) makes that an error.
# The tests that restart the server run after the others, alone, and only on that cluster.
POSTGRES_CLUSTER := scripts/postgres-cluster.sh
POSTGRES_SKIPPED := echo "make test: PostgreSQL tests SKIPPED: no PostgreSQL server here (make deps \
  installs one), and FOLIO_TEST_POSTGRES_URL is not set" >&2

test: toolchain deps
	$(SWIFT) build --build-tests $(IMPORT_CHECK)
	@skipped=; \
	if [ -n "$$FOLIO_TEST_POSTGRES_URL" ]; then \
	  echo "make test: the PostgreSQL tests use the server FOLIO_TEST_POSTGRES_URL names"; \
	else \
	  url=$$($(POSTGRES_CLUSTER) start); status=$$?; \
	  if [ $$status = 0 ]; then \
	    trap '$(POSTGRES_CLUSTER) stop' EXIT; trap 'exit 130' INT; trap 'exit 143' TERM; \
	    export FOLIO_TEST_POSTGRES_URL="$$url"; own=1; \
	    echo "FOLIO_TEST_POSTGRES_URL=$$url"; \
	  elif [ $$status = 3 ] && [ -z "$$FOLIO_TEST_REQUIRE_POSTGRES" ]; then \
	    skipped=1; $(POSTGRES_SKIPPED); \
	  else \
	    exit $$status; \
	  fi; \
	fi; \
	echo "$(SWIFT) test --skip-build"; \
	$(SWIFT) test --skip-build; status=$$?; \
	if [ $$status = 0 ] && [ -n "$$own" ]; then \
	  echo "make test: a server restarted under its clients, alone on the throwaway cluster"; \
	  FOLIO_TEST_POSTGRES_RESTART=1 $(SWIFT) test --skip-build --no-parallel \
	    --filter PostgresRestartTests; \
	  status=$$?; \
	fi; \
	if [ -n "$$skipped" ]; then $(POSTGRES_SKIPPED); fi; \
	exit $$status
	.build/debug/folio replay Samples/*/*.undo
	.build/debug/ExpensesSample
	.build/debug/CompanySample
	@trips=$$(mktemp -d) && .build/debug/TripsSample $$trips/trips.store \
	  && .build/debug/folio info $$trips/trips.store && rm -rf $$trips
	Samples/Trips/session.sh .build/debug/TripsSample | diff -u Samples/Trips/session.expected -
	$(MAKE) --no-print-directory fuzz-replay

# The web editor sample, Samples/Editor: its own package, so Hummingbird stays out of Folio's
# build. `make editor-demo` serves a fresh copy of the Expenses sample (EDITOR_PORT, default
# 8080); `make test-editor` runs the sample's tests, then drives the editor in headless
# Chromium in two tabs and checks the saved file (screenshots in Samples/Editor/screenshots),
# then two editor processes on one file and, on a throwaway PostgreSQL cluster (or the server
# FOLIO_TEST_POSTGRES_URL names), on one PostgreSQL document made with `folio convert`; without
# a PostgreSQL server that part is skipped, and make says so.
# Neither is part of `make test` or CI: the first Hummingbird build takes minutes. Its build
# folder is .build/editor, in Folio's own: tests copy Samples/ whole.
EDITOR := Samples/Editor
EDITOR_BUILD := --scratch-path $(CURDIR)/.build/editor
EDITOR_BIN := .build/editor/debug/folio-editor
EDITOR_DEMO := .build/editor-demo
EDITOR_PORT ?= 8080
EDITOR_POSTGRES_SKIPPED := echo "make test-editor: PostgreSQL part SKIPPED: no PostgreSQL server \
  here (make deps installs one), and FOLIO_TEST_POSTGRES_URL is not set" >&2

editor-build: toolchain deps
	cd $(EDITOR) && $(SWIFT) build $(EDITOR_BUILD) --product folio-editor

editor-demo: editor-build
	mkdir -p $(EDITOR_DEMO)
	cp Samples/Expenses/Expenses.xml $(EDITOR_DEMO)/Expenses.xml
	@echo "Editing $(EDITOR_DEMO)/Expenses.xml, a copy of Samples/Expenses/Expenses.xml:"
	@echo "open http://127.0.0.1:$(EDITOR_PORT)/ in a browser, in several tabs; Control-C stops."
	$(EDITOR_BIN) $(EDITOR_DEMO)/Expenses.xml --model Samples/Expenses/Expenses.xcdatamodeld \
	  --port $(EDITOR_PORT)

test-editor: editor-build
	@{ command -v chromium >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; } || { \
	  echo "Installing chromium and python3 for the browser test"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium python3; }
	cd $(EDITOR) && $(SWIFT) build $(EDITOR_BUILD) --build-tests
	$(SWIFT) build --product folio
	@url="$$FOLIO_TEST_POSTGRES_URL"; \
	if [ -z "$$url" ]; then \
	  url=$$($(POSTGRES_CLUSTER) start); status=$$?; \
	  if [ $$status = 0 ]; then \
	    trap '$(POSTGRES_CLUSTER) stop' EXIT; trap 'exit 130' INT; trap 'exit 143' TERM; \
	  elif [ $$status = 3 ]; then \
	    url=; $(EDITOR_POSTGRES_SKIPPED); \
	  else \
	    exit $$status; \
	  fi; \
	fi; \
	(cd $(EDITOR) && FOLIO_TEST_POSTGRES_URL="$$url" $(SWIFT) test $(EDITOR_BUILD) --skip-build) \
	  || exit $$?; \
	python3 $(EDITOR)/browser_test.py --editor $(EDITOR_BIN) --sample Samples/Expenses \
	  --screenshots $(EDITOR)/screenshots $${url:+--postgres "$$url" --folio .build/debug/folio}; \
	status=$$?; \
	if [ -z "$$url" ]; then $(EDITOR_POSTGRES_SKIPPED); fi; \
	exit $$status

# AddressSanitizer, in its own build folder. (swiftc refuses -sanitize=undefined on Linux; Swift
# code traps on overflow and bad casts by itself.) `make test-asan-unsafe`, which CI runs
# (.ci/run), covers the suites that reach unsafe code — the stores (raw buffers, libxml2, zlib,
# SQLite), the object graph's slot storage and committed rows, the query engine — and the replay
# of the fuzz inputs; `make test-asan` runs the whole suite (the CLI end to end included, whose
# store paths the store suites already cover), for a nightly or pre-release run.
ASAN_BUILD := --scratch-path .build-asan --sanitize=address
# print_suppressions=0: the summary LeakSanitizer prints at exit would end up in what a test
# reads of a child process's standard error.
ASAN_ENV := LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan-suppressions.txt:print_suppressions=0
comma := ,
ASAN_TARGETS := FolioStoresTests,FolioGraphTests,FolioQueryTests
ASAN_SUITES := $(subst $(comma),|,$(ASAN_TARGETS))
ASAN_UNSAFE_BUILD := --scratch-path .build-asan-unsafe --sanitize=address
# Its build holds only the test targets it runs (FOLIO_TEST_SUBSET, read by Package.swift), in
# its own folder.
test-asan-unsafe: toolchain deps
	FOLIO_TEST_SUBSET=$(ASAN_TARGETS) $(SWIFT) build --build-tests $(ASAN_UNSAFE_BUILD)
	FOLIO_TEST_SUBSET=$(ASAN_TARGETS) $(ASAN_ENV) $(SWIFT) test --skip-build \
	  $(ASAN_UNSAFE_BUILD) --filter '$(ASAN_SUITES)'
	# Memory errors only: the replay keeps its last input where LeakSanitizer cannot see it (a
	# tagged pointer), and leaks are `make fuzz`'s to find, which runs with -detect_leaks=1.
	ASAN_OPTIONS=detect_leaks=0 $(MAKE) --no-print-directory fuzz-replay \
	  FUZZ_REPLAY_BIN=.build-asan-unsafe/debug

test-asan: toolchain deps
	$(SWIFT) build --build-tests $(ASAN_BUILD)
	$(ASAN_ENV) $(SWIFT) test --skip-build $(ASAN_BUILD)

# The whole suite under ThreadSanitizer, in its own build folder, for a nightly or pre-release run.
TSAN_BUILD := --scratch-path .build-tsan --sanitize=thread
test-tsan: toolchain deps
	$(SWIFT) build --build-tests $(TSAN_BUILD)
	$(SWIFT) test --skip-build $(TSAN_BUILD)

# The store limits at their full size (values of 128 MiB): gigabytes of memory, minutes of CPU.
test-limits: toolchain deps
	FOLIO_HEAVY_TESTS=1 $(SWIFT) test --filter StoreLimitFullSizeTests

# The fuzz executables of the normal build (or of FUZZ_REPLAY_BIN) replay inputs: every checked-in seed and fuzz
# regression input must still run through its target without a crash.
FUZZ_FOUND = $(wildcard Tests/*/Fixtures/fuzz/$(1)-*)
FUZZ_REPLAY_BIN ?= .build/debug
fuzz-replay:
	$(FUZZ_REPLAY_BIN)/FuzzXMLStore Samples/Expenses/Expenses.xml Fuzz/Seeds/xml-store \
	  $(call FUZZ_FOUND,xml-store)
	$(FUZZ_REPLAY_BIN)/FuzzBinaryStore Fuzz/Seeds/binary-store Tests/FolioCLITests/Fixtures \
	  $(call FUZZ_FOUND,binary-store)
	$(FUZZ_REPLAY_BIN)/FuzzBinaryBody Fuzz/Seeds/binary-body $(call FUZZ_FOUND,binary-body)
	$(FUZZ_REPLAY_BIN)/FuzzXcodeModel Samples/*/*.xcdatamodeld/*/contents \
	  Fuzz/Seeds/*.xcdatamodel/contents $(call FUZZ_FOUND,xcode-model)
	$(FUZZ_REPLAY_BIN)/FuzzUndoScript Samples/*/*.undo Fuzz/Seeds/*.undo $(call FUZZ_FOUND,undo-script)
	$(FUZZ_REPLAY_BIN)/FuzzPredicate Fuzz/Seeds/predicate $(call FUZZ_FOUND,predicate)
	$(FUZZ_REPLAY_BIN)/FuzzSQLiteStore Fuzz/Seeds/sqlite-store $(call FUZZ_FOUND,sqlite-store)
	$(FUZZ_REPLAY_BIN)/FuzzMappingModel Fuzz/Seeds/mapping-model $(call FUZZ_FOUND,mapping-model)
	$(FUZZ_REPLAY_BIN)/FuzzUndoHistory Fuzz/Seeds/undo-history $(call FUZZ_FOUND,undo-history)
	$(FUZZ_REPLAY_BIN)/FuzzPasteboard Fuzz/Seeds/pasteboard $(call FUZZ_FOUND,pasteboard)
	$(FUZZ_REPLAY_BIN)/FuzzTransformer Fuzz/Seeds/transformer $(call FUZZ_FOUND,transformer)
	$(FUZZ_REPLAY_BIN)/FuzzChangeJournal Fuzz/Seeds/change-journal $(call FUZZ_FOUND,change-journal)
	$(FUZZ_REPLAY_BIN)/FuzzCommitLog Fuzz/Seeds/commit-log $(call FUZZ_FOUND,commit-log)

# Fuzzing (RELIABILITY.md): `make fuzz SECONDS=N` runs each libFuzzer target for N seconds and
# fails on any crash, leak, timeout (> 1 s) or out-of-memory (> 512 MB). It builds with its
# own scratch path, so the normal build is untouched.
SECONDS ?= 60
FUZZ_BUILD := .build-fuzz
FUZZ_TARGETS := FuzzXMLStore FuzzBinaryStore FuzzBinaryBody FuzzXcodeModel FuzzPredicate \
  FuzzUndoScript FuzzSQLiteStore FuzzMappingModel FuzzUndoHistory FuzzPasteboard FuzzTransformer \
  FuzzChangeJournal FuzzCommitLog

fuzz-build: toolchain deps
	for target in $(FUZZ_TARGETS); do \
	  nice -n 10 $(SWIFT) build -c release --scratch-path $(FUZZ_BUILD) --product $$target \
	    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFOLIO_FUZZING \
	    -Xcc -fsanitize=fuzzer-no-link,address || exit 1; \
	done

fuzz: fuzz-build
	sh Fuzz/seed-corpora.sh $(FUZZ_BUILD)/seeds
	bash Fuzz/fuzz.sh $(SECONDS) $(FUZZ_BUILD) $(FUZZ_TARGETS)

# Every target imports only what it declares: SwiftPM's check at each build (which lets a module
# reached through another dependency pass), and scripts/check-imports.py for direct declarations.
IMPORT_CHECK := --explicit-target-dependency-import-check error

# Lint: formatting, imports, and the public API of each library module against its baseline in API/
# (a change to it is a decision: `make api` records it).
# The dump also tries the test modules, which fail where tests were never built; the script
# checks that each library module's graph was written by this dump.
SYMBOL_GRAPHS = mkdir -p .build && touch .build/symbol-graph-stamp && \
  $(SWIFT) package dump-symbol-graph --minimum-access-level public > /dev/null 2>&1 || true
lint: toolchain deps
	$(SWIFT) format lint --strict --recursive Sources Tests Plugins Samples Package.swift
	python3 scripts/check-imports.py
	$(SWIFT) build --build-tests $(IMPORT_CHECK)
	$(SYMBOL_GRAPHS)
	python3 scripts/api-baseline.py check

api: toolchain
	$(SYMBOL_GRAPHS)
	python3 scripts/api-baseline.py write

# The CLI cases run the release `folio` beside the benchmarks, and xmllint as their floor.
bench: toolchain deps
	@command -v xmllint >/dev/null 2>&1 || { \
	  echo "Installing libxml2-utils for xmllint"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq libxml2-utils; }
	$(SWIFT) build -c release --product FolioBenchmarks
	$(SWIFT) build -c release --product folio
	.build/release/FolioBenchmarks

# A differential soak: OPS random operations on Folio and on a simple oracle, compared after
# each one; a divergence prints a shrunk undo script that reproduces it.
soak: toolchain deps
	$(SWIFT) build -c release --product FolioSoakRunner
	FOLIO_SOAK_OPS=$(OPS) FOLIO_SOAK_SEED=$(SEED) .build/release/FolioSoakRunner

# Several writers: ROUNDS rounds of two to four processes saving one store at once, of random
# formats and merge policies, one sometimes killed; after each round the store must hold every
# change a save that returned made.
ROUNDS ?= 200
soak-writers: toolchain deps
	$(SWIFT) build -c release --product FolioSoakRunner
	.build/release/FolioSoakRunner writers-soak $(ROUNDS) $(SEED) Samples/Expenses/Expenses.xcdatamodeld

# Installing: `make install PREFIX=DIR` (default /usr/local; DESTDIR=STAGE puts the tree under
# STAGE, for packaging) installs folio, its man page and its bash, zsh and fish completions.
# folio is built in release with the Swift runtime linked in (--static-swift-stdlib), so the
# installed binary needs no toolchain; that build has its own folder, so the release builds of
# `make demo` and `make bench` stay as they are. The man page is what swift-argument-parser's
# generate-manual plugin writes from folio's help, the plugin building the package's products
# in debug, as `make build` does, finished by scripts/man-page.py (examples as displays, one
# PROGRESS section, folio's EXIT STATUS and ENVIRONMENT); the completion scripts are folio's own.
PREFIX ?= /usr/local
INSTALL_ROOT = $(DESTDIR)$(patsubst ~%,$(HOME)%,$(PREFIX))
INSTALL_BUILD := --scratch-path .build-install -c release --static-swift-stdlib
INSTALL_FOLIO := .build-install/release/folio
INSTALL_STAGE := .build-install/share
MANUAL := .build/plugins/GenerateManual/outputs/folio/folio.1
INSTALLED := bin/folio share/man/man1/folio.1 share/bash-completion/completions/folio \
  share/zsh/site-functions/_folio share/fish/vendor_completions.d/folio.fish

install: toolchain deps
	$(SWIFT) build $(INSTALL_BUILD) --product folio
	@[ "$$($(INSTALL_FOLIO) --version)" = "$(VERSION)" ] || { \
	  echo "folio --version says $$($(INSTALL_FOLIO) --version), VERSION says $(VERSION)" >&2; exit 1; }
	@# The crash-safety tests' fault injection is compiled into debug builds only.
	@! grep -q -a FOLIO_TEST_ $(INSTALL_FOLIO) || { \
	  echo "$(INSTALL_FOLIO) holds the tests' fault injection (FOLIO_TEST_…)" >&2; exit 1; }
	$(SWIFT) package plugin generate-manual --configuration debug
	mkdir -p $(INSTALL_STAGE)
	python3 scripts/man-page.py $(MANUAL) $(INSTALL_STAGE)/folio.1
	for shell in bash zsh fish; do \
	  $(INSTALL_FOLIO) --generate-completion-script $$shell > $(INSTALL_STAGE)/folio.$$shell || exit 1; \
	done
	install -d "$(INSTALL_ROOT)/bin" "$(INSTALL_ROOT)/share/man/man1" \
	  "$(INSTALL_ROOT)/share/bash-completion/completions" "$(INSTALL_ROOT)/share/zsh/site-functions" \
	  "$(INSTALL_ROOT)/share/fish/vendor_completions.d"
	install -m 755 $(INSTALL_FOLIO) "$(INSTALL_ROOT)/bin/folio"
	@# The debugging information is most of the binary; its symbols stay, for backtraces.
	if command -v strip >/dev/null 2>&1; then strip --strip-debug "$(INSTALL_ROOT)/bin/folio"; fi
	install -m 644 $(INSTALL_STAGE)/folio.1 "$(INSTALL_ROOT)/share/man/man1/folio.1"
	install -m 644 $(INSTALL_STAGE)/folio.bash "$(INSTALL_ROOT)/share/bash-completion/completions/folio"
	install -m 644 $(INSTALL_STAGE)/folio.zsh "$(INSTALL_ROOT)/share/zsh/site-functions/_folio"
	install -m 644 $(INSTALL_STAGE)/folio.fish "$(INSTALL_ROOT)/share/fish/vendor_completions.d/folio.fish"
	@echo "Installed folio $(VERSION) in $(INSTALL_ROOT), $$(du -k "$(INSTALL_ROOT)/bin/folio" | cut -f1) KB (README.md, \"Install\", turns completions on)."

uninstall:
	rm -f $(foreach file,$(INSTALLED),"$(INSTALL_ROOT)/$(file)")

# A release: VERSION and CHANGELOG.md's heading say X.Y.Z, committed; `make tag` tags that commit.
tag:
	@git diff --quiet HEAD || { echo "commit your changes before tagging v$(VERSION)" >&2; exit 1; }
	git tag -a "v$(VERSION)" -m "Folio $(VERSION)"

clean:
	$(POSTGRES_CLUSTER) stop
	rm -rf .build .build-fuzz .build-install .build-asan .build-asan-unsafe .build-tsan $(EDITOR)/.build company.dot company.svg Samples/*/*-session.xml Samples/*/*-session.folio Samples/*/*-session.sqlite*
