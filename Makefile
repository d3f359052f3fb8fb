# Folio — make demo, make test, make bench, make soak OPS=N SEED=S.
# Each target first installs the system libraries Folio links (libxml2, zlib) when missing.

SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
FOLIO := .build/release/folio
OPS ?= 10000000
SEED ?= 1

.PHONY: all build demo test lint bench soak deps clean

all: build

deps:
	@pkg-config --exists libxml-2.0 zlib 2>/dev/null || { \
	  echo "Installing libxml2-dev and zlib1g-dev"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq pkg-config libxml2-dev zlib1g-dev; }

build: deps
	$(SWIFT) build

demo: deps
	@command -v dot >/dev/null 2>&1 || { \
	  echo "Installing graphviz for the diagram"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq graphviz; }
	$(SWIFT) build -c release --product folio
	$(FOLIO) model info Samples/Expenses/Expenses.xcdatamodeld
	$(FOLIO) model graph Samples/Company/Company.xcdatamodeld > company.dot
	dot -Tsvg company.dot -o company.svg
	@echo "Wrote company.svg, the Company model as a diagram."
	$(FOLIO) replay --trace Samples/Expenses/undo-cascade.undo
	$(FOLIO) info Samples/Expenses/Expenses.xml
	$(FOLIO) replay --trace Samples/Expenses/session.undo
	$(FOLIO) info Samples/Expenses/Expenses-session.xml
	$(FOLIO) info Samples/Expenses/Expenses-session.folio

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	.build/debug/folio replay Samples/*/*.undo

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift

bench: deps
	$(SWIFT) build -c release --product FolioBenchmarks
	.build/release/FolioBenchmarks

# A differential soak: OPS random operations on Folio and on a simple oracle, compared after
# each one; a divergence prints a shrunk undo script that reproduces it.
soak: deps
	$(SWIFT) build -c release --product FolioSoakRunner
	FOLIO_SOAK_OPS=$(OPS) FOLIO_SOAK_SEED=$(SEED) .build/release/FolioSoakRunner

clean:
	rm -rf .build company.dot company.svg Samples/*/*-session.xml Samples/*/*-session.folio
