# itrace - one Makefile builds everything.
#
#   make            build what the installed packages allow (any user, no
#                   network) and say, one line each, what it left out
#   make deps       install the missing Debian packages (root, or sudo)
#   make check      make deps, then unit + end-to-end + real-program tests
#                   + fuzz corpus replay
#   make check-quick   unit tests, fuzz corpus replays and the layers test:
#                   under 2 minutes, no root, no package installed
#   make check T=PATTERN   (and check-quick T=...) only the tests whose path
#                   matches the shell pattern PATTERN anywhere (run-tests.sh)
#   make layers     the module graph (includes and calls); fails on a circle
#   make demo       trace the bundled example and show what came out
#   make bench      benchmarks, printed as ratios against in-run baselines
#   make fuzz       build libFuzzer targets (clang) into build/fuzz
#   make install PREFIX=/usr/local [DESTDIR=dir]   tools, libraries, headers, .pc
#                   and the itrace Python package into PYTHON's site-packages
#                   (PYTHON=/usr/bin/python3, PY_SITE=dir for another place)
#   make SANITIZE=1 check   the same under ASan+UBSan (separate build dir)
#
# Components add themselves through */module.mk fragments (see below), so
# each folder owns its own build rules.

PREFIX ?= /usr/local
DEVELOPER ?= 1
SANITIZE ?= 0
V ?= 0

ifeq ($(SANITIZE),1)
BUILD ?= build-san
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD ?= build
SAN_FLAGS :=
endif

CC ?= cc
# The Python the itrace package is built for (python/module.mk): Debian's,
# not whatever python3 comes first on PATH.
PYTHON ?= /usr/bin/python3
PKGS := libdw libelf capstone libzstd
# What each library links (reader/module.mk, code/module.mk): the core zstd
# only, the code layer libelf, libdw, capstone and Zydis on top of the core.
CORE_PKGS := libzstd
CODE_PKGS := libdw libelf capstone
WARN := -Wall -Wextra -Wmissing-prototypes -Wstrict-prototypes -Wvla -Wshadow=local
ifeq ($(DEVELOPER),1)
WARN += -Werror
endif
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(SAN_FLAGS) -fPIC
# Headers by name: the format, the core (reader/), the code layer's public
# header (code/) and its modules' headers (code/*/).
CODE_INCLUDES := -Icode $(patsubst %/,-I%,$(sort $(dir $(wildcard code/*/*.h))))
ALL_CPPFLAGS = -Iformat -Ireader $(CODE_INCLUDES) $(shell pkg-config --cflags $(PKGS) 2>/dev/null) $(CPPFLAGS)
ALL_LDFLAGS = $(SAN_FLAGS) $(LDFLAGS)
# Zydis (x86-64 decoder): Debian 12's libzydis-dev has no pkg-config file.
ZYDIS_LIBS := -lZydis
LIBITRACE_LIBS = $(shell pkg-config --libs $(CORE_PKGS) 2>/dev/null) -lpthread
LIBITRACE_CODE_LIBS = $(shell pkg-config --libs $(CODE_PKGS) 2>/dev/null) $(ZYDIS_LIBS) $(LIBITRACE_LIBS)

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIBITRACE := $(BUILD)/lib/libitrace.a
LIBITRACE_CODE := $(BUILD)/lib/libitrace-code.a
BINS :=
UNIT_TESTS :=
E2E_TESTS :=
FUZZ_TARGETS :=
BENCHES :=
TEST_DATA :=
CHECK_EXTRA :=

.PHONY: all deps check check-quick demo bench fuzz install clean build-all layers
# Keep objects that pattern chains would otherwise delete as intermediates.
.SECONDARY:
# A plain make builds what the installed packages allow, never installs.
# make check, demo and bench install what they need first (deps): the
# flags above are read from pkg-config when make starts, so each runs
# deps, then a new make, even under make -j.
all: build-all

deps:
	@sh scripts/deps.sh

# ---- What the installed packages allow
# scripts/build-deps.sh probes for each package the build uses and lists
# those missing; ITRACE_MISSING="pkg ..." makes it count those as missing
# too (tests/e2e/make_entry.sh builds so).  What each missing package
# leaves out is below; build-all names it at the end, one line each
# (a fragment that needs to know asks $(call have,PACKAGE)).
ITRACE_MISSING ?=
MISSING_PKGS := $(shell CC='$(CC)' CXX='$(CXX)' PPC_CC='$(PPC_CC)' PYTHON='$(PYTHON)' sh scripts/build-deps.sh $(ITRACE_MISSING))
have = $(if $(filter $(1),$(MISSING_PKGS)),,yes)
# Without zstd nothing builds: a goal that builds straight away stops here
# (make deps, check, demo and bench install it first, then build).
INSTALLING_GOALS := deps check demo bench clean deps-npm
ifneq ($(call have,libzstd-dev)$(call have,pkg-config),yesyes)
ifeq ($(filter $(INSTALLING_GOALS),$(MAKECMDGOALS)),)
$(error itrace: cannot build: zstd's headers (package libzstd-dev) or pkg-config missing; run 'make deps' as root)
endif
endif

# Objects: build/obj/<path>.o from <path>.c, with header dependencies.
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(filter 0,$(V)),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# The fragments: each appends to BINS, UNIT_TESTS, E2E_TESTS, FUZZ_TARGETS,
# BENCHES, TEST_DATA and adds its own link rules.
include reader/module.mk
include code/module.mk
include tests/data/module.mk
include tests/real/module.mk
include tests/helper/module.mk
include $(sort $(filter-out reader/module.mk code/module.mk,$(wildcard */module.mk)))

# What each missing package leaves out: left_out PACKAGE,WHAT (no commas
# in WHAT) records it for build-all's closing lines.
LEFT_OUT :=
left_out = $(if $(call have,$(1)),,$(eval LEFT_OUT += $(1))$(eval LEFT_OUT_$(1) := $(2)))
# The code layer's libraries: without one, libitrace and itrace-dump alone.
CODE_LAYER_PKGS := libelf-dev libdw-dev libcapstone-dev libzydis-dev
$(foreach p,$(CODE_LAYER_PKGS),$(call left_out,$(p),libitrace-code and every tool but itrace-dump))
ifneq ($(filter $(CODE_LAYER_PKGS),$(MISSING_PKGS)),)
BINS := $(filter %/itrace-dump,$(BINS))
TEST_DATA :=
PY_BUILT :=
LIBITRACE_CODE_BUILT :=
else
LIBITRACE_CODE_BUILT := $(LIBITRACE_CODE) $(LIBITRACE_CODE_SO) $(LIBITRACE_CODE_DIST)
endif
# libxml2: the gdb backend leaves itrace-collect (collectors/gdb/module.mk)
$(call left_out,libxml2-dev,itrace-xml and the gdb backend of itrace-collect)
ifneq ($(call have,libxml2-dev),yes)
BINS := $(filter-out %/itrace-xml,$(BINS))
endif
$(call left_out,libsqlite3-dev,itrace-sqlite)
$(call left_out,python3-dev,the itrace Python package)
ifneq ($(call have,libsqlite3-dev),yes)
BINS := $(filter-out %/itrace-sqlite,$(BINS))
endif
# (collectors/valgrind/module.mk builds no tool without valgrind's files)
$(call left_out,valgrind,the Valgrind tool of itrace-collect --backend valgrind)
$(call left_out,g++,the C++ test program of tests/real)
ifneq ($(call have,g++),yes)
TEST_DATA := $(filter-out $(patsubst tests/real/prog/%.cc,$(BUILD)/tests/real/%,$(wildcard tests/real/prog/*.cc)),$(TEST_DATA))
endif
$(call left_out,gcc-powerpc64le-linux-gnu,the ppc64le test programs)
$(call left_out,libc6-dev-ppc64el-cross,the ppc64le test programs)
ifneq ($(call have,gcc-powerpc64le-linux-gnu)$(call have,libc6-dev-ppc64el-cross),yesyes)
TEST_DATA := $(filter-out $(BUILD)/tests/data/ppc64le/% $(BUILD)/tests/real/ppc64le/%,$(TEST_DATA))
endif
$(call left_out,libcmocka-dev,the unit tests (make check-quick and make check need them))

build-all: $(LIBITRACE) $(LIBITRACE_SO) $(LIBITRACE_DIST) $(LIBITRACE_CODE_BUILT) $(BINS) $(TEST_DATA) $(PY_BUILT)
	@$(foreach p,$(LEFT_OUT),echo "itrace: not building $(LEFT_OUT_$(p)): package $(p) missing ('make deps' installs it)" >&2;)

FUZZ_REPLAY := $(patsubst %,$(BUILD)/fuzz-replay/%,$(FUZZ_TARGETS))
CHECK_DEPS := build-all $(UNIT_TESTS) $(FUZZ_REPLAY) $(CHECK_EXTRA)
# T=PATTERN: only the tests whose path matches (tests/run-tests.sh --only)
RUN_TESTS = ITRACE_BUILD=$(BUILD) sh tests/run-tests.sh $(if $(T),--only '$(T)')

check: deps
	@$(MAKE) --no-print-directory $(CHECK_DEPS)
	@$(RUN_TESTS) --unit "$(UNIT_TESTS)" --e2e "$(E2E_TESTS)" --fuzz "$(FUZZ_TARGETS)"

# The quick tier: no package installed, no root, no program traced but by
# the unit tests; what a change to a library should pass before make check.
QUICK_E2E := tests/e2e/layers.sh
# What its tests link: missing, it stops before building (never fewer tests).
QUICK_PKGS := libcmocka-dev libxml2-dev $(CODE_LAYER_PKGS)
ifneq ($(filter check-quick,$(MAKECMDGOALS)),)
ifneq ($(filter $(QUICK_PKGS),$(MISSING_PKGS)),)
$(error itrace: make check-quick needs the packages $(filter $(QUICK_PKGS),$(MISSING_PKGS)); run 'make deps' as root)
endif
endif
check-quick: build-all $(UNIT_TESTS) $(FUZZ_REPLAY)
	@$(RUN_TESTS) --unit "$(UNIT_TESTS)" --e2e "$(QUICK_E2E)" --fuzz "$(FUZZ_TARGETS)"

# The module graph (scripts/layers.sh): every folder a module (each
# subfolder of code/ and collectors/ too), every file a node inside its
# module, edges from #include lines and from what the objects use and
# define (nm); a circle fails.  The objects of the tests are built too, so
# that their calls are seen.  make check runs it as tests/e2e/layers.sh.
layers: build-all $(UNIT_TESTS) $(FUZZ_REPLAY)
	@sh scripts/layers.sh $(BUILD)

# Fuzz targets: tests/fuzz/<name>.c defines LLVMFuzzerTestOneInput.
# make check links them with a replay main over tests/fuzz/corpus/<name>/.
$(BUILD)/fuzz-replay/%: $(BUILD)/obj/tests/fuzz/%.o $(BUILD)/obj/tests/fuzz/replay_main.o $(LIBITRACE_CODE) $(LIBITRACE)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(filter-out %.a,$^) $(FUZZ_LIBS_$*) $(filter %.a,$^) $(LIBITRACE_CODE_LIBS)

# Each source is compiled once for all targets (coverage and AddressSanitizer),
# into $(BUILD)/fuzz/obj; a target links the objects of libitrace and of
# its FUZZ_EXTRA_SRCS_<name>, and of FUZZ_LIBS_<name> only the -l flags
# (its archives are the normal build's, which make fuzz does not build).
#
# UndefinedBehaviorSanitizer is kept out of the libFuzzer build: each of
# its checks is a branch that coverage counts, so the edges libFuzzer
# tracks grow fourfold (fuzz_roundtrip: 27,400 counters instead of 6,965)
# with edges that say nothing about the input, which halves the runs per
# second and drowns the signal (tests/fuzz/README.md has the figures).
# Instead every input a fuzz run keeps is replayed by
# $(BUILD)/fuzz-ub/<target>: the same sources with AddressSanitizer and
# UndefinedBehaviorSanitizer, a report fatal, no libFuzzer
# (tests/fuzz/run_target.sh).
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer-no-link,address
FUZZ_UB_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CPPFLAGS = $(ALL_CPPFLAGS) -Iqtrace -Ipipeline-sim -Itools $(shell pkg-config --cflags libxml-2.0 2>/dev/null)
fuzz_srcs = tests/fuzz/$(1).c \
	$(filter-out %/main.c,$(LIBITRACE_SRCS) $(LIBITRACE_CODE_SRCS) $(FUZZ_EXTRA_SRCS_$(1)))
fuzz_objs = $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(call fuzz_srcs,$(1)))
fuzz_ub_objs = $(patsubst %.c,$(BUILD)/fuzz-ub/obj/%.o,$(call fuzz_srcs,$(1)) tests/fuzz/replay_main.c)
fuzz: $(patsubst %,$(BUILD)/fuzz/%,$(FUZZ_TARGETS)) $(patsubst %,$(BUILD)/fuzz-ub/%,$(FUZZ_TARGETS))
# (the Makefile is a prerequisite: the flags above are in it)
$(BUILD)/fuzz/obj/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	@$(if $(filter 0,$(V)),echo "  CLANG   $<")
	$(Q)clang $(FUZZ_CFLAGS) $(FUZZ_CPPFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/fuzz-ub/obj/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	@$(if $(filter 0,$(V)),echo "  CLANG   $< (UBSan)")
	$(Q)clang $(FUZZ_UB_CFLAGS) $(FUZZ_CPPFLAGS) -MMD -MP -c $< -o $@
.SECONDEXPANSION:
$(BUILD)/fuzz/%: $$(call fuzz_objs,$$*)
	@mkdir -p $(dir $@)
	$(Q)clang -fsanitize=fuzzer,address -o $@ $(filter %.o,$^) $(filter-out %.a,$(FUZZ_LIBS_$*)) $(LIBITRACE_CODE_LIBS)
$(BUILD)/fuzz-ub/%: $$(call fuzz_ub_objs,$$*)
	@mkdir -p $(dir $@)
	$(Q)clang -fsanitize=address,undefined -o $@ $(filter %.o,$^) $(filter-out %.a,$(FUZZ_LIBS_$*)) $(LIBITRACE_CODE_LIBS)

bench: deps
	@$(MAKE) --no-print-directory build-all $(BENCHES)
	@ITRACE_BUILD=$(BUILD) sh bench/run-bench.sh $(BENCHES)

demo: deps
	@$(MAKE) --no-print-directory build-all
	@sh scripts/demo.sh $(BUILD)

# make install [PREFIX=/usr/local] [DESTDIR=staging root]: the tools, both
# libraries (archives, shared libraries with their soname links), their
# headers (itrace.h includes itrace_format.h; itrace_code.h includes
# itrace.h) and pkg-config files, written for PREFIX.
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
pc_subst = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(ITRACE_VERSION)|'
install: build-all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 755 $(BINS) $(DESTDIR)$(BINDIR)/
	install -m 644 $(LIBITRACE_DIST) $(LIBITRACE_CODE_DIST) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIBITRACE_SO) $(LIBITRACE_CODE_SO) $(DESTDIR)$(LIBDIR)/
	cp -P $(foreach l,libitrace libitrace-code,$(BUILD)/lib/$(l).so.$(ITRACE_SOMAJOR) $(BUILD)/lib/$(l).so) $(DESTDIR)$(LIBDIR)/
	install -m 644 reader/itrace.h code/itrace_code.h code/itrace_handler.h format/itrace_format.h $(DESTDIR)$(INCLUDEDIR)/
	$(pc_subst) reader/itrace.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/itrace.pc
	$(pc_subst) code/itrace-code.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/itrace-code.pc
	$(INSTALL_EXTRA)
	@# A real install as root: tell the dynamic linker about the new soname.
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

clean:
	rm -rf build build-san

-include $(shell find $(BUILD)/obj $(BUILD)/fuzz/obj $(BUILD)/fuzz-ub/obj -name '*.d' 2>/dev/null)
