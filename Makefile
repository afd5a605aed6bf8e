# asynctop: hand-written GNU make.  `make help` lists the targets.
# Objects and generated code go under $(BUILD); quiet unless V=1.

VERSION := 0.1.0
PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
SAN     ?=
CC      ?= cc
PKG_CONFIG ?= pkg-config
PROTOC_C ?= protoc-c
GO      ?= go

# O is where this build's objects go: BUILD, or BUILD/san for SAN builds
# (a variable of its own, so `make BUILD=x SAN=...` still separates them).
O := $(BUILD)
ifneq ($(SAN),)
O        := $(BUILD)/san
SANFLAGS := -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

OPT  ?= -O2 -g
STD  := -std=c11 -D_XOPEN_SOURCE=700
WARN := -Wall -Wextra -Wcast-align -Wcast-qual -Wformat=2 \
	-Wmissing-prototypes -Wshadow -Wstrict-prototypes -Wundef \
	-Wwrite-strings -Wnull-dereference
ifneq ($(findstring clang,$(shell $(CC) --version 2>/dev/null | head -1)),)
WARN += -Wimplicit-int-conversion
endif
ifneq ($(CI),)
WARN += -Werror
endif

# Per-library flags: each folder sees only what it may (docs/architecture.md).
pc_cflags = $(shell $(PKG_CONFIG) --cflags $(1) 2>/dev/null)
pc_libs   = $(shell $(PKG_CONFIG) --libs $(1) 2>/dev/null)
ENCODE_PKGS := zlib libdeflate libprotobuf-c
TEST_PKGS   := check

CPPFLAGS_ALL := -I. -I$(O) -DASYNCTOP_VERSION='"$(VERSION)"'
CFLAGS_ALL   := $(STD) $(WARN) $(OPT) $(SANFLAGS) -MMD -MP $(CFLAGS)
LDFLAGS_ALL  := $(SANFLAGS) $(LDFLAGS) -pthread

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-6s %s\n' $(1) $(2)
endif

# ---- sources ---------------------------------------------------------------
MODEL_SRC  := $(sort $(wildcard model/*.c))
ENCODE_SRC := $(sort $(wildcard encode/*.c))
# The tokio adapter links gRPC, so it stays out of libasynctop.a: the stock
# binary and the tests link its objects, an embedder's link line never does.
TOKIO_SRC  := $(sort $(wildcard adapters/tokio*.c))
ADAPT_SRC  := $(filter-out $(TOKIO_SRC),$(sort $(wildcard adapters/*.c)))
TUI_SRC    := $(filter-out tui/main.c,$(sort $(wildcard tui/*.c)))
PROTO_GEN  := $(O)/encode/profile.pb-c.c
TOKIO_PROTO := $(sort $(wildcard adapters/tokio/*.proto))
TOKIO_GEN  := $(TOKIO_PROTO:%.proto=$(O)/%.pb-c.c)
TEST_SRC   := $(sort $(wildcard tests/*.c))
TEST_SUITES := $(patsubst tests/test_%.c,%,$(filter tests/test_%.c,$(TEST_SRC)))

MODEL_OBJ  := $(MODEL_SRC:%.c=$(O)/%.o)
ENCODE_OBJ := $(ENCODE_SRC:%.c=$(O)/%.o) $(PROTO_GEN:.c=.o)
TEST_OBJ   := $(TEST_SRC:%.c=$(O)/%.o)
ADAPT_OBJ  := $(ADAPT_SRC:%.c=$(O)/%.o)
TOKIO_OBJ  := $(TOKIO_SRC:%.c=$(O)/%.o) $(TOKIO_GEN:.c=.o)
# The tokio adapter's state: every tokio object but the ops and the stream,
# so protobuf-c without gRPC (the fuzz target and bench_tokio link it).
TOKIO_STATE_OBJ := $(filter-out $(O)/adapters/tokio.o $(O)/adapters/tokio_grpc.o,$(TOKIO_OBJ))
TOKIO_PKGS := grpc libprotobuf-c
TUI_OBJ    := $(TUI_SRC:%.c=$(O)/%.o)

LIBMODEL  := $(O)/libmodel.a
LIBENCODE := $(O)/libencode.a
# The public library: everything but main(), and no gRPC (docs/design.md §7).
LIBASYNCTOP := $(O)/libasynctop.a
BIN       := $(O)/asynctop
LIB_PKGS  := zlib libdeflate libprotobuf-c ncursesw
TESTBIN   := $(O)/tests/check_asynctop
PPROFCHECK := $(O)/tests/pprofcheck
GOBENCH    := $(O)/tests/gobench
BENCHBIN   := $(O)/tests/bench_pprof

.PHONY: all deps demo demo-tokio check check-stress soak bench lint format check-deps install uninstall clean help
.DEFAULT_GOAL := all

all: $(LIBMODEL) $(LIBENCODE) $(if $(wildcard tui/main.c),$(BIN) $(LIBASYNCTOP) $(O)/asynctop.pc)

help:
	@echo 'make            build (never installs packages)'
	@echo 'make demo       the live viewer on the bundled asyncio demo (text without a terminal)'
	@echo 'make demo-tokio the live viewer on the console-api simulator (text without a terminal)'
	@echo 'make deps       install missing Debian packages (as root) or say which'
	@echo 'make check      deps, build, run the tests (SAN=address,undefined for sanitizers)'
	@echo 'make check-stress the suite and the agent tests STRESS_RUNS times under CPU load'
	@echo 'make soak       the viewer on a churning workload: RSS flat once the history is full'
	@echo 'make check-valgrind the suite under valgrind memcheck (VALGRIND_SUITES=...)'
	@echo 'make bench      benchmarks, reported as ratios against a same-run baseline'
	@echo 'make lint       clang-format check, banned functions, cppcheck, layering'
	@echo 'make fuzz       libFuzzer targets under ASan+UBSan, FUZZ_SECONDS each (fuzz-smoke: CI)'
	@echo 'make format     reformat the sources in place'
	@echo 'make install    PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)'
	@echo 'make clean'

deps:
	$(Q)sh .ci/deps

# ---- compile ---------------------------------------------------------------
$(O)/.flags: FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL)' | cmp -s - $@ || \
		echo '$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL)' > $@
FORCE:

$(O)/model/%.o: model/%.c $(O)/.flags
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -c $< -o $@

$(O)/encode/%.o: encode/%.c $(O)/.flags | $(PROTO_GEN)
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(call pc_cflags,$(ENCODE_PKGS)) $(CFLAGS_ALL) -c $< -o $@

$(O)/encode/profile.pb-c.c $(O)/encode/profile.pb-c.h: encode/profile.proto
	$(call msg,PROTOC,$<)
	@mkdir -p $(O)
	$(Q)$(PROTOC_C) --proto_path=. --c_out=$(O) encode/profile.proto

$(O)/encode/profile.pb-c.o: $(O)/encode/profile.pb-c.c $(O)/.flags
	$(call msg,CC,$<)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(call pc_cflags,libprotobuf-c) $(CFLAGS_ALL) -Wno-cast-qual -c $< -o $@

$(O)/adapters/%.o: adapters/%.c $(O)/.flags
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -c $< -o $@

# The tokio adapter: the only objects that see gRPC's flags.
$(O)/adapters/tokio%.o: adapters/tokio%.c $(O)/.flags | $(TOKIO_GEN)
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(call pc_cflags,$(TOKIO_PKGS)) $(CFLAGS_ALL) -c $< -o $@

$(O)/adapters/tokio/%.pb-c.c $(O)/adapters/tokio/%.pb-c.h: adapters/tokio/%.proto $(TOKIO_PROTO)
	$(call msg,PROTOC,$<)
	@mkdir -p $(O)
	$(Q)$(PROTOC_C) --proto_path=. --c_out=$(O) $<

.SECONDARY: $(TOKIO_GEN) $(TOKIO_GEN:.c=.h)

$(O)/adapters/tokio/%.pb-c.o: $(O)/adapters/tokio/%.pb-c.c $(O)/.flags | $(TOKIO_GEN)
	$(call msg,CC,$<)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(call pc_cflags,libprotobuf-c) $(CFLAGS_ALL) -Wno-cast-qual -c $< -o $@

# No ncursesw cflags: Debian's add -D_XOPEN_SOURCE=600 against our 700, and
# its header needs none.
$(O)/tui/%.o: tui/%.c $(O)/.flags | $(PROTO_GEN)
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(call pc_cflags,$(ENCODE_PKGS)) $(CFLAGS_ALL) -c $< -o $@

# The asyncio launch hook finds an installed agent under PREFIX
# (adapters/asyncio_launch.c).
$(O)/adapters/asyncio_launch.o: CPPFLAGS_ALL += -DASYNCTOP_PREFIX='"$(PREFIX)"'
$(O)/adapters/asyncio_launch.o: $(O)/.prefix

$(LIBASYNCTOP): $(MODEL_OBJ) $(ENCODE_OBJ) $(ADAPT_OBJ) $(TUI_OBJ)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BIN): $(O)/tui/main.o $(TOKIO_OBJ) $(LIBASYNCTOP)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(call pc_libs,$(LIB_PKGS) $(TOKIO_PKGS))

# Rewritten only when PREFIX changes, so the .pc file follows it.
$(O)/.prefix: FORCE
	@mkdir -p $(@D)
	@echo '$(PREFIX)' | cmp -s - $@ || echo '$(PREFIX)' > $@

$(O)/asynctop.pc: Makefile $(O)/.prefix
	$(call msg,GEN,$@)
	@mkdir -p $(@D)
	$(Q)printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
		'Name: asynctop' 'Description: where async tasks wait: embed asynctop over your own runtime' \
		'Version: $(VERSION)' \
		'Libs: -L$${libdir} -lasynctop $(call pc_libs,$(LIB_PKGS)) -pthread' \
		'Cflags: -I$${includedir}' > $@

$(O)/tests/%.o: tests/%.c $(O)/.flags | $(PROTO_GEN) $(TOKIO_GEN)
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(call pc_cflags,$(TEST_PKGS) $(ENCODE_PKGS)) $(CFLAGS_ALL) -c $< -o $@

$(O)/tests/check_main.o: $(O)/tests/suites.inc

# protobuf-c's messages hold `char *` for strings the builder only reads.
$(O)/tests/tokio_sim_build.o: CFLAGS_ALL += -Wno-cast-qual
$(O)/tests/tokio_sim.o: CFLAGS_ALL += $(call pc_cflags,grpc)

# The console-api simulator as a program (demo-tokio, trying asynctop).
TOKIO_SIM := $(O)/tests/tokio-sim
$(O)/tests/tokio_sim/main.o: tests/tokio_sim/main.c $(O)/.flags | $(TOKIO_GEN)
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -c $< -o $@

# The simulator's library: the server (tokio_sim.c) and what it sends.
TOKIO_SIM_OBJ := $(patsubst %.c,$(O)/%.o,$(sort $(wildcard tests/tokio_sim*.c)))
$(TOKIO_SIM): $(O)/tests/tokio_sim/main.o $(TOKIO_SIM_OBJ) $(TOKIO_GEN:.c=.o)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(call pc_libs,$(TOKIO_PKGS))

# The runner's suite list comes from the file names: tests/test_X.c
# defines `Suite *suite_X(void)`.
$(O)/tests/suites.inc: FORCE
	@mkdir -p $(@D)
	@printf 'SUITE(%s)\n' $(TEST_SUITES) | cmp -s - $@ || printf 'SUITE(%s)\n' $(TEST_SUITES) > $@

$(LIBMODEL): $(MODEL_OBJ)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBENCODE): $(ENCODE_OBJ)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# ---- tests -----------------------------------------------------------------
TEST_LIBS := $(if $(ADAPT_SRC)$(TUI_SRC),$(LIBASYNCTOP),$(LIBENCODE) $(LIBMODEL))
$(TESTBIN): $(filter-out $(O)/tests/bench_%.o,$(TEST_OBJ)) $(TOKIO_OBJ) $(TEST_LIBS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(call pc_libs,$(TEST_PKGS) $(LIB_PKGS) $(TOKIO_PKGS))

# The pprof checker and the Go baseline build offline against Debian's
# golang-github-google-pprof-dev, in GOPATH mode (docs/testing.md).
GOENV := GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS= GOCACHE=$(abspath $(O))/gocache
$(PPROFCHECK): tests/pprofcheck/main.go
	$(call msg,GO,$@)
	@mkdir -p $(@D)
	$(Q)if command -v $(GO) >/dev/null 2>&1 && [ -d /usr/share/gocode/src/github.com/google/pprof/profile ]; then \
		cd tests/pprofcheck && env $(GOENV) $(GO) build -o $(abspath $@) . ; \
	else rm -f $@; echo "  (go or golang-github-google-pprof-dev missing: pprof oracle tests will skip)"; fi

# The main job: the live viewer attached to the bundled demo shop, started
# with the agent injected (q quits).  Without a terminal, three windows of it
# as a text report instead.
# By absolute path, so that a check can tell this checkout's demo from another's.
DEMO := $(abspath adapters/asyncio/demo/shop.py)
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)if [ -t 0 ] && [ -t 1 ]; then \
		$(BIN) -w 2 -- python3 $(DEMO); \
	else \
		$(BIN) record -w 2 -n 3 -f text -o - -- python3 $(DEMO); \
	fi

# The viewer reading tokio's console-api from the simulator, whose families
# each lead a different weighting.
demo-tokio: deps
	$(Q)$(MAKE) --no-print-directory all $(TOKIO_SIM)
	$(Q)sh tests/tokio_sim/demo.sh $(BIN) $(TOKIO_SIM) tests/data/tokio/demo.scn

check: deps
	$(Q)$(MAKE) --no-print-directory test-run
	$(Q)$(MAKE) --no-print-directory check-install
ifeq ($(SAN),)
	$(Q)$(MAKE) --no-print-directory check-demo
endif

# The suite and the agent's tests STRESS_RUNS times under synthetic CPU
# load, to find tests that wait on time rather than on events.
STRESS_RUNS ?= 3
STRESS_LOAD ?=
.PHONY: check-stress
check-stress: deps $(TESTBIN) $(TOKIO_SIM) $(if $(wildcard tests/pprofcheck/main.go),$(PPROFCHECK)) $(BIN) $(O)/asynctop.pc
	$(call msg,STRESS,$(STRESS_RUNS)x)
	$(Q)ASYNCTOP_PPROFCHECK=$(abspath $(PPROFCHECK)) ASYNCTOP_TESTDATA=$(abspath tests/data) \
		ASYNCTOP_BIN=$(abspath $(BIN)) ASYNCTOP_SRC=$(abspath .) \
		sh tests/stress.sh $(abspath $(TESTBIN)) $(STRESS_RUNS) $(STRESS_LOAD)

# The Check suite under valgrind memcheck, suite by suite (tests/valgrind.sh):
# an invalid access, a use of uninitialised memory or a definite or
# indirect leak in any process fails it.  VALGRIND_SUITES picks the suites;
# by default every one but VALGRIND_SKIP, whose in-process simulators cannot
# keep their deadlines at memcheck's speed (docs/testing.md).  CI runs
# check-valgrind-ci: VALGRIND_CI_SUITES, the unit suites of model/, encode/
# and adapters/.
VALGRIND_SKIP ?= tokio_live tokio_faults viewer_faults
VALGRIND_SUITES ?= $(filter-out $(VALGRIND_SKIP),$(TEST_SUITES))
VALGRIND_CI_SUITES := arena base intern model model_nomem model_parked \
	model_ring order collapsed humanize out pprof pprof_decode text utf8 \
	adapter asyncio asyncio_endpoint asyncio_hostile replay tokio wire worker
.PHONY: check-valgrind
check-valgrind: deps $(TESTBIN) $(if $(wildcard tui/main.c),$(BIN))
	$(call msg,VALGRIND,$(words $(VALGRIND_SUITES))-suites)
	$(Q)ASYNCTOP_PPROFCHECK=$(abspath $(PPROFCHECK)) ASYNCTOP_TESTDATA=$(abspath tests/data) \
		ASYNCTOP_BIN=$(abspath $(BIN)) ASYNCTOP_SRC=$(abspath .) \
		sh tests/valgrind.sh $(abspath $(TESTBIN)) $(VALGRIND_SUITES)
.PHONY: check-valgrind-ci
check-valgrind-ci:
	$(Q)$(MAKE) --no-print-directory check-valgrind VALGRIND_SUITES="$(VALGRIND_CI_SUITES)"

# The viewer's resident size on a churning workload, once its history is
# full: it must stay flat (SOAK_SECONDS; CI runs two minutes).  The tokio
# soak, then the asyncio one (and the application's size), half each.
SOAK_SECONDS ?= 120
.PHONY: soak
soak: deps $(BIN) $(TOKIO_SIM)
	$(call msg,SOAK,$(SOAK_SECONDS)s)
	$(Q)sh tests/soak.sh $(abspath $(BIN)) $(abspath $(TOKIO_SIM)) tests/data/tokio/churn.scn $(SOAK_SECONDS) \
		$(abspath adapters/asyncio)

# `make demo` itself, headless: three text windows whose leaders are the
# demo's designed task families.
.PHONY: check-demo
check-demo:
	$(call msg,DEMO,headless)
	$(Q)sh .ci/check-demo

# Installs into a staging directory and builds the embedding example from
# the installed files alone, as an in-house team would (docs/embedding.md).
.PHONY: check-install
check-install: all
	$(call msg,INSTALL,$(O)/stage)
	$(Q)rm -rf $(O)/stage
	$(Q)$(MAKE) --no-print-directory install DESTDIR=$(abspath $(O))/stage PREFIX=/usr >/dev/null
	$(Q)sh .ci/check-install $(abspath $(O)) $(abspath $(O))/stage

.PHONY: test-run
test-run: $(TESTBIN) $(TOKIO_SIM) $(if $(wildcard tests/pprofcheck/main.go),$(PPROFCHECK)) $(if $(wildcard tui/main.c),$(BIN) $(O)/asynctop.pc)
	$(call msg,TEST,$(TESTBIN))
	$(Q)ASYNCTOP_PPROFCHECK=$(abspath $(PPROFCHECK)) ASYNCTOP_TESTDATA=$(abspath tests/data) \
		ASYNCTOP_BIN=$(abspath $(BIN)) ASYNCTOP_SRC=$(abspath .) \
		$(TESTBIN)
ifeq ($(SAN),)
	$(call msg,TEST,adapters/asyncio/tests)
	$(Q)ASYNCTOP_BIN=$(abspath $(BIN)) sh adapters/asyncio/tests/run.sh
endif

# ---- lint ------------------------------------------------------------------
C_SOURCES = $(shell git ls-files '*.c' '*.h' 2>/dev/null || find model encode adapters tui tests -name '*.[ch]')
BANNED := gets|sprintf|vsprintf|strcpy|strcat|strncat|strtok|atoi|atol|atof|strncpy|tmpnam|mktemp|alloca|signal|system

lint: check-deps
	$(call msg,FORMAT,check)
	$(Q)clang-format --style=file --dry-run -Werror $(C_SOURCES)
	$(call msg,BANNED,functions)
	$(Q)! grep -nE '\b($(BANNED))[[:space:]]*\(' $(C_SOURCES) | grep -v 'lint: allow' || \
		{ echo 'banned functions above (docs/style.md)'; exit 1; }
	$(call msg,CPPCHECK,sources)
	$(Q)cppcheck --quiet --enable=warning,style,performance,portability --error-exitcode=1 \
		--inline-suppr --suppress=missingIncludeSystem --suppress=unusedFunction \
		--std=c11 -D_XOPEN_SOURCE=700 -I. $(filter %.c,$(C_SOURCES))

format:
	$(Q)clang-format --style=file -i $(C_SOURCES)

# Layering (docs/architecture.md): model <- adapters, encode <- tui.
check-deps:
	$(call msg,LAYERS,check)
	$(Q)sh .ci/layers

# ---- fuzzing ---------------------------------------------------------------
# libFuzzer targets (tests/fuzz/fuzz_NAME.c) under AddressSanitizer and
# UndefinedBehaviorSanitizer, built with clang in a tree of their own; each
# runs FUZZ_SECONDS from its seeds in tests/fuzz/corpus/NAME, and what it
# finds is kept under $(FUZZ_O)/ (docs/testing.md).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 30
FUZZ_SMOKE_SECONDS ?= 5
FUZZ_SAN     := fuzzer-no-link,address,undefined
FUZZ_O       := $(BUILD)/fuzz/san
FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz_%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_ASYNCIO := $(addprefix $(O)/adapters/,asyncio_conn.o asyncio_tables.o asyncio_window.o wire.o)

.PHONY: fuzz fuzz-smoke fuzz-build fuzz-bins
fuzz-build:
	$(Q)$(MAKE) --no-print-directory CC=$(FUZZ_CC) BUILD=$(BUILD)/fuzz SAN=$(FUZZ_SAN) fuzz-bins

fuzz-bins: $(FUZZ_TARGETS:%=$(O)/fuzz/%)

# The asyncio reader links without the worker: the target stands in for it.
$(O)/fuzz/asyncio: $(FUZZ_ASYNCIO)
# The tokio target is the adapter's state alone: protobuf-c, never gRPC.
$(O)/fuzz/tokio: $(TOKIO_STATE_OBJ)
$(O)/fuzz/tokio: FUZZ_PKGS := libprotobuf-c
$(O)/fuzz/%: $(O)/tests/fuzz/fuzz_%.o $(LIBENCODE) $(LIBMODEL)
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS_ALL) -fsanitize=fuzzer -o $@ $(filter %.o,$^) $(filter %.a,$^) \
		$(call pc_libs,$(ENCODE_PKGS) $(FUZZ_PKGS))

# The tokio target's seeds are Updates packed by tests/tokio_sim_build.c.
TOKIO_SEEDS := $(O)/tests/fuzz/tokio-seeds
$(TOKIO_SEEDS): $(O)/tests/fuzz/tokio_seeds.o $(O)/tests/tokio_sim_build.o $(TOKIO_GEN:.c=.o)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(call pc_libs,libprotobuf-c)

.PHONY: fuzz-seeds-tokio
fuzz-seeds-tokio: $(TOKIO_SEEDS)
	@mkdir -p tests/fuzz/corpus/tokio
	$(Q)$(TOKIO_SEEDS) tests/fuzz/corpus/tokio

fuzz: fuzz-build
	$(Q)for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_O)/corpus/$$t $(FUZZ_O)/crashes; \
		printf '  %-6s %s (%s s)\n' FUZZ $$t $(FUZZ_SECONDS); \
		UBSAN_OPTIONS=print_stacktrace=1 $(FUZZ_O)/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) \
			-timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_O)/crashes/$$t- \
			$(FUZZ_O)/corpus/$$t tests/fuzz/corpus/$$t > $(FUZZ_O)/$$t.log 2>&1 || \
			{ tail -n 60 $(FUZZ_O)/$$t.log; echo "fuzz: $$t failed; the input is in $(FUZZ_O)/crashes/"; exit 1; }; \
		grep -E '^stat::number_of_executed_units|^Done' $(FUZZ_O)/$$t.log | sed 's/^/         /'; \
	done

# A short run of every target, for CI.
fuzz-smoke:
	$(Q)$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS)

# ---- bench -----------------------------------------------------------------
$(BENCHBIN): $(O)/tests/bench_pprof.o $(O)/tests/bench_workload.o $(LIBENCODE) $(LIBMODEL)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(call pc_libs,$(ENCODE_PKGS))

BENCHMODEL := $(O)/tests/bench_model
$(BENCHMODEL): $(O)/tests/bench_model.o $(O)/tests/bench_workload.o $(LIBMODEL)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^

# The tokio adapter's ingest and memory (its state only: no gRPC needed).
BENCHTOKIO := $(O)/tests/bench_tokio
$(BENCHTOKIO): $(O)/tests/bench_tokio.o $(O)/tests/bench_workload.o $(O)/tests/tokio_sim_build.o \
		$(TOKIO_STATE_OBJ) $(LIBMODEL)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(call pc_libs,libprotobuf-c)

# The viewer's keys: tests/bench_viewer.c and one file per group of views
# (tests/bench_viewer_*.c; bench_ objects stay out of the test runner).
BENCHVIEWER_OBJ := $(patsubst %.c,$(O)/%.o,$(sort $(wildcard tests/bench_viewer*.c)))
$(O)/tests/bench_viewer: $(BENCHVIEWER_OBJ) $(LIBASYNCTOP)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(call pc_libs,$(LIB_PKGS))

# The idle cost of the live viewer (tests/bench/idle.sh runs it in tmux).
$(O)/tests/bench/idle_viewer: $(O)/tests/bench/idle_viewer.o $(O)/tests/bench_workload.o $(LIBASYNCTOP)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(call pc_libs,$(LIB_PKGS))

# Key latency of the real viewer while huge windows arrive and are saved
# (tests/bench_huge.c runs it on a pseudo-terminal).
$(O)/tests/bench_huge: $(O)/tests/bench_huge.o $(O)/tests/bench_workload.o $(LIBASYNCTOP)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(call pc_libs,$(LIB_PKGS))
bench-run: $(O)/tests/bench_huge

$(GOBENCH): tests/bench/gobench/main.go
	$(call msg,GO,$@)
	@mkdir -p $(@D)
	$(Q)if command -v $(GO) >/dev/null 2>&1; then \
		cd tests/bench/gobench && env $(GOENV) $(GO) build -o $(abspath $@) . ; \
	else rm -f $@; fi

# Its own build directory, so benchmark flags never force a test rebuild.
bench: deps
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/bench OPT='-O2 -g -DNDEBUG' bench-run

.PHONY: bench-run
bench-run: $(BENCHBIN) $(BENCHMODEL) $(BENCHTOKIO) $(GOBENCH) $(O)/tests/bench_viewer $(O)/tests/bench/idle_viewer \
	$(BIN)
	$(Q)sh tests/bench/report.sh $(abspath $(O)) docs/performance.md

# ---- install ---------------------------------------------------------------
install: all
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -d $(DESTDIR)$(PREFIX)/share/doc/asynctop
	$(Q)install -m 644 README.md LICENSE docs/embedding.md docs/examples/embed.c \
		$(DESTDIR)$(PREFIX)/share/doc/asynctop/
	$(Q)if [ -f $(BIN) ]; then \
		install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
			$(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/man/man1 && \
		install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/asynctop && \
		install -m 644 $(LIBASYNCTOP) $(DESTDIR)$(PREFIX)/lib/libasynctop.a && \
		install -m 644 adapters/asynctop.h $(DESTDIR)$(PREFIX)/include/asynctop.h && \
		install -d $(DESTDIR)$(PREFIX)/share/asynctop/python/asynctop_agent && \
		install -m 644 adapters/asyncio/asynctop_agent/*.py \
			$(DESTDIR)$(PREFIX)/share/asynctop/python/asynctop_agent/ && \
		install -d $(DESTDIR)$(PREFIX)/share/asynctop/python/launch && \
		install -m 644 adapters/asyncio/launch/sitecustomize.py \
			$(DESTDIR)$(PREFIX)/share/asynctop/python/launch/ && \
		install -m 644 $(O)/asynctop.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/asynctop.pc && \
		{ [ ! -f docs/asynctop.1 ] || install -m 644 docs/asynctop.1 $(DESTDIR)$(PREFIX)/share/man/man1/asynctop.1; }; \
	fi

uninstall:
	$(Q)rm -rf $(DESTDIR)$(PREFIX)/share/doc/asynctop $(DESTDIR)$(PREFIX)/share/asynctop
	$(Q)rm -f $(DESTDIR)$(PREFIX)/bin/asynctop $(DESTDIR)$(PREFIX)/lib/libasynctop.a \
		$(DESTDIR)$(PREFIX)/include/asynctop.h $(DESTDIR)$(PREFIX)/lib/pkgconfig/asynctop.pc \
		$(DESTDIR)$(PREFIX)/share/man/man1/asynctop.1

clean:
	$(Q)rm -rf $(BUILD) build

-include $(shell find $(O) -name '*.d' 2>/dev/null)
