# SPDX-License-Identifier: GPL-2.0-only
#
# weave: build, test and demo.  `make` builds the module for both test
# kernels, libshim, the examples and the tests; `make check` runs every test
# and `make demo` shows the example in the VM.  KDIR=/path/to/headers builds
# the module against another kernel.

CACHE	?= .cache
BUILD	:= build
# The library's version is the one its header declares (weave.h).
weave_ver = $(shell sed -n 's/^\#define WEAVE_VERSION_$(1)[[:space:]]*//p' libshim/weave.h)
VERSION	:= $(call weave_ver,MAJOR).$(call weave_ver,MINOR).$(call weave_ver,PATCH)
SOVER	:= 1

# The test kernels, named by scripts/setup.sh in kernels.mk.  make remakes
# an included makefile that has a rule before anything else, even for
# `make clean` or `make -n`; so only the goals that need the set-up name
# kernels.mk, and only when they run for real (and stop if setup.sh
# fails).  The others read it if it is there and never run setup.sh,
# which runs apt and writes /etc/apt.
SETUP_GOALS := all $(if $(KDIR),,module) lib selftests examples unit \
	engine engine-check check check-lanes demo bench boot-check fuzz profile
DRY_RUN	:= $(findstring n,$(firstword -$(MAKEFLAGS)))
ifneq ($(if $(DRY_RUN),,$(filter $(SETUP_GOALS),$(or $(MAKECMDGOALS),all))),)
include $(CACHE)/kernels.mk
else
-include $(wildcard $(CACHE)/kernels.mk)
endif
-include $(CACHE)/debug-kernel.mk
KVERS	:= $(K61) $(K612)
# The kernels the VM lane runs: the two stock kernels, then the debug kernel
# once scripts/debug-kernel.sh has built it (`make check` does).
LANE_KVERS := $(KVERS) $(KDBG)
# The stock kernels' headers are unpacked by scripts/setup.sh, never
# installed (the 6.12 headers package would bring its kernel image).
KHDR	:= $(CACHE)/headers/usr/src
kdir_of = $(if $(filter $(KDBG),$(1)),$(CACHE)/kernels/$(1)/build,$(KHDR)/linux-headers-$(1))

CC	?= cc
CFLAGS	?= -O2 -g
WFLAGS	:= -Wall -Wextra -Werror
DRM_CFLAGS := $(shell pkg-config --cflags libdrm 2>/dev/null)
DRM_LIBS   := $(shell pkg-config --libs libdrm 2>/dev/null)
KSFT	:= $(CACHE)/ksrc/tools/testing/selftests

KMOD_SRCS := Kbuild $(wildcard kmod/*.c kmod/*.h uapi/*.h) scripts/kbuild.sh

.PHONY: all setup module lib selftests examples tools unit check check-lanes boot-check demo bench profile fuzz lint clean
.PHONY: install uninstall build-check man engine engine-check rust rust-check FORCE
all: module lib selftests examples tools unit engine man $(BUILD)/bench/weave-bench \
	rust

# Installs packages and unpacks the test kernels; cheap when already done.
setup:
	@scripts/setup.sh $(CACHE)

# Made by the include above for SETUP_GOALS, and before `make check`.
$(CACHE)/kernels.mk:
	@scripts/setup.sh $(CACHE)

# A cache made before the headers were unpacked there.
$(CACHE)/headers/.done-%:
	@scripts/setup.sh $(CACHE)

# --- the module, one build folder per kernel ---------------------------------
ifneq ($(KDIR),)
module: $(KMOD_SRCS)
	scripts/kbuild.sh $(KDIR) $(BUILD)/kmod/custom
else
module: $(foreach k,$(LANE_KVERS),$(BUILD)/kmod/$(k)/weave.ko)
endif

define kmod_rule
$(BUILD)/kmod/$(1)/weave.ko: $(KMOD_SRCS) | $(CACHE)/kernels.mk \
		$(if $(filter $(KDBG),$(1)),,$(CACHE)/headers/.done-$(1))
	scripts/kbuild.sh $(call kdir_of,$(1)) $(BUILD)/kmod/$(1)
endef
$(foreach k,$(LANE_KVERS),$(eval $(call kmod_rule,$(k))))

# --- libshim ------------------------------------------------------------------
LIB_SRCS := $(wildcard libshim/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
LIB_CFLAGS := $(CFLAGS) $(WFLAGS) -fPIC -fvisibility=hidden -Iuapi -Ilibshim $(DRM_CFLAGS)
LIBSO	:= $(BUILD)/lib/libweave.so.$(VERSION)
LIBA	:= $(BUILD)/lib/libweave.a

lib: $(LIBSO) $(LIBA) $(BUILD)/lib/weave.pc

$(BUILD)/libshim/%.o: libshim/%.c libshim/weave.h libshim/private.h uapi/weave_drm.h
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -c -o $@ $<

$(LIBSO): $(LIB_OBJS) libshim/libweave.map
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $(LIB_OBJS) -Wl,-soname,libweave.so.$(SOVER) \
		-Wl,--version-script=libshim/libweave.map -Wl,--no-undefined $(DRM_LIBS)
	ln -sf libweave.so.$(VERSION) $(BUILD)/lib/libweave.so.$(SOVER)
	ln -sf libweave.so.$(SOVER) $(BUILD)/lib/libweave.so

$(LIBA): $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

# weave.pc names the directories `make install` uses; rewritten when they
# change.  Those under PREFIX are written relative to ${prefix}.
pc_dir = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
$(BUILD)/lib/weave.pc: libshim/weave.pc.in FORCE
	@mkdir -p $(@D)
	@sed -e 's|@prefix@|$(PREFIX)|' -e 's|@libdir@|$(call pc_dir,$(LIBDIR))|' \
		-e 's|@includedir@|$(call pc_dir,$(INCLUDEDIR))|' \
		-e 's|@version@|$(VERSION)|' $< > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

# --- manual pages -------------------------------------------------------------
# Section 3 made from the kernel-doc of weave.h (and of the uAPI structs and
# enums its functions take), weave(7) from man/weave.7: scripts/man.py.
# weave-trace(1) made from the tool's own command line: scripts/man-tool.py.
MAN	:= $(BUILD)/man
KERNEL_DOC := $(CACHE)/ksrc/scripts/kernel-doc

man: $(MAN)/.done $(MAN)/man1/weave-trace.1

$(MAN)/man1/weave-trace.1: tools/weave-trace scripts/man-tool.py scripts/man.py
	scripts/man-tool.py tools/weave-trace $(MAN) $(VERSION)

$(MAN)/.done: libshim/weave.h uapi/weave_drm.h man/weave.7 scripts/man.py \
		scripts/abi-check.py
	@test -f $(KERNEL_DOC) || \
		{ echo "make man: no kernel-doc; run 'make setup' first" >&2; exit 1; }
	scripts/man.py $(KERNEL_DOC) $(MAN) $(VERSION)
	@touch $@

# --- install: the library, its headers, weave.pc, the examples, the pages -----
PREFIX	?= /usr/local
LIBDIR	?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DOCDIR	?= $(PREFIX)/share/doc/weave
MANDIR	?= $(PREFIX)/share/man
BINDIR	?= $(PREFIX)/bin
INSTALL	?= install
EXAMPLE_SRCS := $(wildcard examples/*.c)

install: lib man tools
	$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(DOCDIR)/examples \
		$(DESTDIR)$(BINDIR)
	$(INSTALL) -m 755 $(BUILD)/tools/weave-info tools/weave-trace \
		$(DESTDIR)$(BINDIR)/
	$(INSTALL) -m 755 $(LIBSO) $(DESTDIR)$(LIBDIR)/
	ln -sf libweave.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libweave.so.$(SOVER)
	ln -sf libweave.so.$(SOVER) $(DESTDIR)$(LIBDIR)/libweave.so
	$(INSTALL) -m 644 $(LIBA) $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 644 libshim/weave.h uapi/weave_drm.h $(DESTDIR)$(INCLUDEDIR)/
	$(INSTALL) -m 644 $(BUILD)/lib/weave.pc $(DESTDIR)$(PKGCONFIGDIR)/
	$(INSTALL) -m 644 $(EXAMPLE_SRCS) $(DESTDIR)$(DOCDIR)/examples/
	$(INSTALL) -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(MANDIR)/man7
	$(INSTALL) -m 644 $(MAN)/man1/weave-trace.1 $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 $(MAN)/man3/*.3 $(DESTDIR)$(MANDIR)/man3/
	$(INSTALL) -m 644 $(MAN)/man7/weave.7 $(DESTDIR)$(MANDIR)/man7/

# The pages to remove are those `make man` makes.
uninstall: man
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/,libweave.so.$(VERSION) \
		libweave.so.$(SOVER) libweave.so libweave.a) \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/,weave.h weave_drm.h) \
		$(DESTDIR)$(PKGCONFIGDIR)/weave.pc $(DESTDIR)$(BINDIR)/weave-info \
		$(DESTDIR)$(BINDIR)/weave-trace $(DESTDIR)$(MANDIR)/man1/weave-trace.1 \
		$(addprefix $(DESTDIR)$(DOCDIR)/examples/,$(notdir $(EXAMPLE_SRCS))) \
		$(DESTDIR)$(MANDIR)/man7/weave.7 \
		$(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(wildcard $(MAN)/man3/*.3)))
	rmdir $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR) 2>/dev/null || true

# --- kselftest suites, laid out as a kselftest install ------------------------
SUITES	:= $(sort $(basename $(notdir $(wildcard selftests/weave/*.c))))
# Suites the lane runs after reloading weave.ko with num_devices=2.
MULTI_SUITES := contract devices
# Suites that need the debug kernel's fault injection or sw_sync; the lane
# runs them on that kernel only.
DEBUG_SUITES := $(filter fault_inject% foreign_fence,$(SUITES))
# Debug-kernel suites the lane runs after reloading weave.ko with
# max_streams=256, where a client's per-slot arrays outgrow a page.
WIDE_SUITES := $(filter fence_release,$(SUITES))
# Suites that need a kernel with CONFIG_KCOV, the campaign's (make syz), not
# a lane's: built, not in any list; WEAVE_SUITES=kcov_remote
# scripts/vm/run.sh .cache KVER check runs them on that kernel.
KCOV_SUITES := $(filter kcov_remote,$(SUITES))
# Scenario suites the lane runs a second time with WEAVE_TEST_SUBMIT=ring,
# their plain ENQUEUEs through shared rings (selftests/weave/weave_test_ring.h),
# from build/selftests/weave/viaring, whose names link to the suites.
# Not sched_prio yet: its ordering tests once raced a 500 ms job, which a
# ring per call lost on the debug kernel; they hold the queue with gates
# since 2026-12-07 and pass through rings on 6.1, not yet tried on the
# debug kernel (WEAVE_SUITES=viaring/sched_prio runs it).
RING_SUITES := sched_data sched_errors sched_isolation sched_sync \
	sched_limits failures failure_model capture capture_replay
RING_LINKS := $(RING_SUITES) sched_prio
# Suites the lane runs again after reloading weave.ko with num_queues=16,
# the most queues a device may have, from build/selftests/weave/queues16,
# whose names link to the suites (WEAVE_SUITES=queues16/fdinfo runs one).
QUEUES_SUITES := fdinfo
KSFT_OUT := $(BUILD)/selftests
SUITE_BINS := $(SUITES:%=$(KSFT_OUT)/weave/%)
TEST_CFLAGS := $(CFLAGS) $(WFLAGS) -D_GNU_SOURCE -Iuapi -Ilibshim -I$(KSFT) $(DRM_CFLAGS)

selftests: $(SUITE_BINS) $(KSFT_OUT)/weave/tests $(KSFT_OUT)/weave/tests-multi \
	$(KSFT_OUT)/weave/tests-debug $(KSFT_OUT)/weave/tests-wide \
	$(KSFT_OUT)/weave/settings $(KSFT_OUT)/weave/tests-ring \
	$(RING_LINKS:%=$(KSFT_OUT)/weave/viaring/%) \
	$(KSFT_OUT)/weave/viaring/settings $(KSFT_OUT)/weave/tests-queues \
	$(QUEUES_SUITES:%=$(KSFT_OUT)/weave/queues16/%) \
	$(KSFT_OUT)/weave/queues16/settings $(KSFT_OUT)/weave/tests-rust \
	$(KSFT_OUT)/kselftest/runner.sh $(KSFT_OUT)/kselftest/prefix.pl

$(KSFT_OUT)/weave/%: selftests/weave/%.c $(wildcard selftests/weave/*.h) $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -o $@ $< $(LIBA) $(DRM_LIBS) -lpthread

# The lists follow the suites' sources, so that a new suite joins its list.
$(KSFT_OUT)/weave/tests: Makefile $(wildcard selftests/weave/*.c)
	@mkdir -p $(@D)
	echo $(patsubst %,./%,$(filter-out $(MULTI_SUITES) $(DEBUG_SUITES) $(WIDE_SUITES) $(KCOV_SUITES),$(SUITES))) > $@

$(KSFT_OUT)/weave/tests-debug: Makefile $(wildcard selftests/weave/*.c)
	@mkdir -p $(@D)
	echo $(DEBUG_SUITES:%=./%) > $@

$(KSFT_OUT)/weave/tests-wide: Makefile $(wildcard selftests/weave/*.c)
	@mkdir -p $(@D)
	echo $(WIDE_SUITES:%=./%) > $@

$(KSFT_OUT)/weave/tests-multi: Makefile $(wildcard selftests/weave/*.c)
	@mkdir -p $(@D)
	echo $(MULTI_SUITES:%=./%) > $@

$(KSFT_OUT)/weave/tests-ring: Makefile
	@mkdir -p $(@D)
	echo $(RING_SUITES:%=./%) > $@

$(KSFT_OUT)/weave/tests-queues: Makefile
	@mkdir -p $(@D)
	echo $(QUEUES_SUITES:%=./%) > $@

# The Rust crate's integration tests (rust/weave/tests/vm), built by
# `make rust`, which the lane runs after the default list.
$(KSFT_OUT)/weave/tests-rust: Makefile
	@mkdir -p $(@D)
	echo ./rust > $@

$(KSFT_OUT)/weave/viaring/%: | $(KSFT_OUT)/weave/%
	@mkdir -p $(@D)
	ln -sfn ../$* $@

$(KSFT_OUT)/weave/queues16/%: | $(KSFT_OUT)/weave/%
	@mkdir -p $(@D)
	ln -sfn ../$* $@

$(KSFT_OUT)/weave/settings $(KSFT_OUT)/weave/viaring/settings \
		$(KSFT_OUT)/weave/queues16/settings: selftests/weave/settings
	@mkdir -p $(@D)
	cp $< $@

$(KSFT_OUT)/kselftest/%: $(KSFT)/kselftest/%
	@mkdir -p $(@D)
	cp $< $@

# --- examples -----------------------------------------------------------------
EXAMPLES := $(basename $(notdir $(wildcard examples/*.c)))
examples: $(EXAMPLES:%=$(BUILD)/examples/%) $(BUILD)/examples/weave-readme

EXAMPLE_CC = $(CC) $(CFLAGS) $(WFLAGS) -Ilibshim -Iuapi $(DRM_CFLAGS) -o $@ $< \
	-L$(BUILD)/lib -lweave -Wl,-rpath,'$$ORIGIN/../lib' $(DRM_LIBS)

$(BUILD)/examples/%: examples/%.c $(LIBSO)
	@mkdir -p $(@D)
	$(EXAMPLE_CC)

# weave-readme: the program README.md shows (its one ```c block), cut out of
# it, so that what a reader copies is what builds here and runs in the lane
# and in `make demo`.
$(BUILD)/examples/weave-readme.c: README.md
	@mkdir -p $(@D)
	sed -n '/^```c$$/,/^```$$/{/^```/!p}' $< > $@
	@grep -q '^int main' $@ || { echo "README.md has no C program" >&2; rm -f $@; exit 1; }

$(BUILD)/examples/weave-readme: $(BUILD)/examples/weave-readme.c $(LIBSO)
	$(EXAMPLE_CC)

# --- tools: weave-info -------------------------------------------------------
tools: $(BUILD)/tools/weave-info

# Linked with libweave.a: an installed tool needs no library path.
$(BUILD)/tools/%: tools/%.c $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WFLAGS) -Ilibshim -Iuapi $(DRM_CFLAGS) -o $@ $< \
		$(LIBA) $(DRM_LIBS)

# --- benchmark, run in the VM by `make bench` ------------------------------
# Its io_uring anchor takes liburing (liburing-dev, installed by setup).
BENCH_SRCS := $(wildcard bench/*.c)
$(BUILD)/bench/weave-bench: $(BENCH_SRCS) bench/bench.h $(LIBA)
	@pkg-config --exists liburing || \
		{ echo "weave-bench needs liburing-dev: run 'make setup'" >&2; exit 1; }
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WFLAGS) -Ilibshim -Iuapi $(DRM_CFLAGS) -o $@ \
		$(BENCH_SRCS) $(LIBA) $(DRM_LIBS) -luring -pthread

# --- user-space unit tests of the module's pure files, under ASan and UBSan ---
# Each tests/unit/<name>_test.c is one program.  It links the module files it
# tests and the test doubles it uses, named by a rule without a recipe below;
# tests/unit/include stands in for the kernel headers they include.  Tests
# of libweave's files take the library's own headers instead (UNIT_INC).
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/unit/%, \
	$(wildcard tests/unit/*_test.c))
UNIT_HDRS := $(wildcard tests/unit/*.h tests/unit/include/*/*.h kmod/*.h)
UNIT_CFLAGS := -std=gnu11 -O1 -g $(WFLAGS) -fsanitize=address,undefined \
	-fno-omit-frame-pointer -fno-sanitize-recover=all
UNIT_INC = -Itests/unit/include -Ikmod -Iuapi -I$(KSFT)
unit: $(UNIT_TESTS)

$(BUILD)/unit/sched_test: tests/unit/mock_backend.c kmod/weave_core.c \
	kmod/weave_ring.c
$(BUILD)/unit/ring_test: tests/unit/mock_backend.c kmod/weave_core.c \
	kmod/weave_ring.c
$(BUILD)/unit/lists_test: kmod/weave_lists.c
$(BUILD)/unit/arena_test: kmod/weave_arena.c
$(BUILD)/unit/capture_test: tests/unit/mock_backend.c kmod/weave_core.c \
	kmod/weave_ring.c \
	kmod/weave_capture.c
$(BUILD)/unit/failure_test: tests/unit/failure_dump.c kmod/weave_failure.c \
	kmod/weave_taints.c
$(BUILD)/unit/failure_model_test: tests/unit/failure_dump.c \
	kmod/weave_failure.c kmod/weave_taints.c
$(BUILD)/unit/failure_shared_test: kmod/weave_failure.c kmod/weave_taints.c
$(BUILD)/unit/spirv_test: kmod/weave_spirv.c selftests/weave/weave_test_spirv.h
$(BUILD)/unit/spirv_test: UNIT_INC += -Iselftests/weave
$(BUILD)/unit/format_test: libshim/failure.c libshim/weave.h libshim/private.h \
	uapi/weave_drm.h
$(BUILD)/unit/format_test: UNIT_INC = -Ilibshim -Iuapi $(DRM_CFLAGS) -I$(KSFT)

$(BUILD)/unit/%_test: tests/unit/%_test.c $(UNIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $(UNIT_INC) -o $@ $(filter %.c,$^)

# --- weave-engine's executor: libwvk.a, its shaders and its tests ------------
# engine/ runs jobs of SPIR-V compute tasks on a Vulkan device (lavapipe on
# these hosts); Documentation/weave-engine.rst says how.  SPIRV-Tools is a
# static C++ library: the C++ runtime comes with it.  The tests
# (tests/engine/*_test.c) link the sources under ASan and UBSan, as the unit
# tests do, and find the shaders beside them (build/engine/shaders).
VK_CFLAGS := $(shell pkg-config --cflags vulkan 2>/dev/null)
VK_LIBS	:= $(or $(shell pkg-config --libs vulkan 2>/dev/null),-lvulkan)
SPVT_CFLAGS := $(shell pkg-config --cflags SPIRV-Tools 2>/dev/null)
SPVT_LIBS := $(or $(shell pkg-config --libs SPIRV-Tools 2>/dev/null),-lSPIRV-Tools) \
	-lstdc++ -lm
ENGINE_SRCS := $(wildcard engine/*.c)
ENGINE_HDRS := $(wildcard engine/*.h)
ENGINE_OBJS := $(ENGINE_SRCS:%.c=$(BUILD)/%.o)
ENGINE_CFLAGS := -std=c11 -D_GNU_SOURCE $(WFLAGS) $(VK_CFLAGS) $(SPVT_CFLAGS)
ENGINE_LIBS := $(VK_LIBS) $(SPVT_LIBS)
# The engine's shaders and the tests' own (modules it must refuse), together.
SHADERS := $(patsubst engine/shaders/%.comp,$(BUILD)/engine/shaders/%.spv, \
	$(wildcard engine/shaders/*.comp)) \
	$(patsubst tests/engine/shaders/%.comp,$(BUILD)/engine/shaders/%.spv, \
	$(wildcard tests/engine/shaders/*.comp))
ENGINE_TESTS := $(patsubst tests/engine/%.c,$(BUILD)/engine/tests/%, \
	$(wildcard tests/engine/*_test.c))
ENGINE_TEST_CFLAGS := $(UNIT_CFLAGS) -std=c11 -D_GNU_SOURCE -Iengine \
	-I$(KSFT) $(VK_CFLAGS) $(SPVT_CFLAGS)

engine: $(BUILD)/engine/libwvk.a $(SHADERS) $(ENGINE_TESTS) \
	$(BUILD)/engine/wvk-measure

$(BUILD)/engine/%.o: engine/%.c $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ENGINE_CFLAGS) -c -o $@ $<

$(BUILD)/engine/libwvk.a: $(ENGINE_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/engine/shaders/%.spv: engine/shaders/%.comp
	@mkdir -p $(@D)
	glslc --target-env=vulkan1.3 -O -o $@ $<

$(BUILD)/engine/shaders/%.spv: tests/engine/shaders/%.comp
	@mkdir -p $(@D)
	glslc --target-env=vulkan1.3 -O -o $@ $<

$(BUILD)/engine/tests/%: tests/engine/%.c $(wildcard tests/engine/*.h) \
		$(ENGINE_SRCS) $(ENGINE_HDRS) | $(SHADERS)
	@mkdir -p $(@D)
	$(CC) $(ENGINE_TEST_CFLAGS) -o $@ $< $(ENGINE_SRCS) $(ENGINE_LIBS)

# The measurements of Documentation/weave-engine.rst, not a test.
$(BUILD)/engine/wvk-measure: tests/engine/wvk-measure.c $(BUILD)/engine/libwvk.a \
		| $(SHADERS)
	$(CC) $(CFLAGS) $(ENGINE_CFLAGS) -Iengine -o $@ $< \
		$(BUILD)/engine/libwvk.a $(ENGINE_LIBS)

# The engine's tests alone (make check runs them too).
engine-check: engine
	scripts/engine-check.sh $(BUILD)

# --- the Rust crates: rust/weave-sys (bindings) and rust/weave (safe API) ----
# Built with Debian's cargo and rustc, called by their paths whatever PATH
# says, and Debian's crates, offline: scripts/cargo.sh.  weave-sys links
# libweave.a.  The output goes to $(BUILD)/rust.
# The crate's integration tests are the VM lane's suite `rust`, listed in
# tests-rust and installed as $(KSFT_OUT)/weave/rust.
rust: $(LIBA) $(KSFT_OUT)/weave/tests-rust
	BUILD_DIR=$(BUILD) scripts/cargo.sh build --workspace --all-targets
	scripts/rust-suite.sh $(BUILD) $(KSFT_OUT)/weave/rust

# The crates' host tests alone (make check runs them too).
rust-check: rust
	scripts/rust-check.sh $(BUILD)

# --- checks -------------------------------------------------------------------
# The debug kernel is built first (once per machine, cached), so that the
# second make reads debug-kernel.mk and builds weave.ko for it too.
check: | $(CACHE)/kernels.mk
	scripts/debug-kernel.sh $(CACHE)
	@$(MAKE) --no-print-directory check-lanes

check-lanes: all
	scripts/check.sh $(CACHE) $(LANE_KVERS)

# SYZKALLER=DIR: the syzkaller tree lint compiles the descriptions with
# (default CACHE/syzkaller; skipped where there is none).
lint: module lib
	$(if $(SYZKALLER),SYZKALLER=$(SYZKALLER)) scripts/lint.sh $(CACHE) $(BUILD)/results $(KVERS)

# --- syzkaller descriptions of the uAPI (tools/syz) --------------------------
# syz-consts regenerates their const file from uapi/weave_drm.h (after a
# uAPI change; make lint fails until it is done); syz-check compiles them
# with the syzkaller tree SYZKALLER=DIR, as make lint does.  Both
# syz-check and syz check the tree first (scripts/syz-tree.sh: its
# revision named, its modules vendored, Go 1.22), before anything is
# built or booted.
.PHONY: syz-consts syz-check syz
syz-consts:
	scripts/syz-consts.py --out tools/syz/dev_weave.txt.const

syz-check:
	@test -n "$(SYZKALLER)" || { echo "make syz-check: set SYZKALLER=DIR" >&2; exit 1; }
	scripts/syz-tree.sh $(SYZKALLER)
	scripts/syz-check.sh $(SYZKALLER) $(BUILD)/syz
	scripts/syz-check.sh --self-test $(SYZKALLER) $(BUILD)/syz

# A syzkaller campaign on weave's node (needs the network once, for sshd's
# packages): builds syzkaller SYZKALLER=DIR with the descriptions, the
# KCOV debug kernel and weave.ko for it, fuzzes for HOURS under TCG, and
# prints executions, coverage of kmod/ and crashes; fails unless it
# fuzzed for HOURS, made executions and fetched coverage of weave.ko
# (scripts/syz-fuzzed.py).  Documentation/weave-reliability.rst says
# more, and how to make the tree.
HOURS	?= 2
syz:
	@test -n "$(SYZKALLER)" || { echo "make syz: set SYZKALLER=DIR" >&2; exit 1; }
	scripts/syz-tree.sh $(SYZKALLER)
	@test -f $(CACHE)/kernels.mk || scripts/setup.sh $(CACHE)
	scripts/syz-build.sh $(SYZKALLER)
	scripts/syz-run.sh $(CACHE) $(SYZKALLER) $(HOURS) $(BUILD)/syz/campaign

# After `make syz`: weave's own fuzzer suites for as long as the campaign
# ran (or SYZ_SECONDS; 0: no run, the last one measured again), on the
# same kernel, under a KCOV collector; both coverages of kmod/ measured
# the same way, each against its own weave.ko.
.PHONY: syz-compare
syz-compare: all
	scripts/syz-fuzzcover.sh $(CACHE) $(or $(SYZ_SECONDS),-) $(BUILD)/syz/campaign

# libweave's ABI across a grown uAPI, `make install` with pkg-config, the
# kselftest suites built in a kernel tree, and the goals that must not set
# up: the user-space checks `make check` runs beside the unit tests.
build-check: lib selftests
	scripts/build-check.sh $(CACHE) $(BUILD)

# The examples in the VM, weave-pipeline traced (guest.sh prints the trace
# on its output); the trace drawn by tools/weave-trace into $(BUILD)/demo.
# The terminal shows the examples' output and where the picture is: the
# build's output goes to $(BUILD)/demo/build.log (shown if it fails), the
# trace to $(BUILD)/demo/pipeline.trace, the lane's own lines to the VM's
# guest.log (run.sh's WEAVE_VM_QUIET).
DEMO_VM	= $(or $(WEAVE_VM_DIR),$(BUILD)/vm/$(K61))
demo: setup
	@mkdir -p $(BUILD)/demo
	@$(MAKE) --no-print-directory all > $(BUILD)/demo/build.log 2>&1 || \
		{ tail -n 40 $(BUILD)/demo/build.log; \
		  echo "demo: the build failed; see $(BUILD)/demo/build.log" >&2; \
		  exit 1; }
	@WEAVE_VM_QUIET=1 scripts/vm/run.sh $(CACHE) $(K61) demo
	@sed -n 's/^WEAVE-TRACE: //p' $(DEMO_VM)/guest.log > $(BUILD)/demo/pipeline.trace
	@tools/weave-trace --title 'make demo: weave-pipeline on $(K61)' \
		--json $(BUILD)/demo/pipeline.json --svg $(BUILD)/demo/pipeline.svg \
		$(BUILD)/demo/pipeline.trace 2> $(BUILD)/demo/weave-trace.log || \
		{ cat $(BUILD)/demo/weave-trace.log >&2; exit 1; }
	@echo "demo: weave-pipeline's schedule is drawn in $(BUILD)/demo/pipeline.svg" \
		"(traced in $(BUILD)/demo/pipeline.trace); open" \
		"$(BUILD)/demo/pipeline.json in https://ui.perfetto.dev"

bench: all
	scripts/vm/run.sh $(CACHE) $(K61) bench

# Boots each lane kernel BOOTS times in a row (weave.ko loaded, unloaded):
# the lane must not fail by itself.
BOOTS	?= 50
boot-check: all
	@rc=0; for k in $(LANE_KVERS); do \
		scripts/vm/boot-check.sh $(CACHE) $$k $(BOOTS) || rc=1; \
	done; exit $$rc

# The ioctl fuzzer suites (selftests/weave/fuzz_*.c) in the VM for SECONDS
# (default 300) in all, in runs of at most 600 s that the suites share,
# from SEED (random if unset; each run's seed is printed, and a failure
# prints how to replay it).  FUZZ_SUITES: the suites, by default all of
# them.  FUZZ_KERNELS: the kernels, by default Debian's 6.1.
SECONDS ?= 300
SEED ?=
FUZZ_SUITES ?=
FUZZ_KERNELS ?= $(K61)
fuzz: all
	@for k in $(FUZZ_KERNELS); do \
		WEAVE_FUZZ="$(SECONDS) $(or $(SEED),-) $(FUZZ_SUITES)" \
		WEAVE_VM_TIMEOUT=$$(($(SECONDS) + 600)) \
		scripts/vm/run.sh $(CACHE) $$k fuzz || exit 1; \
	done

# The benchmark under perf in the VM: where the kernel's time goes.
profile: all
	scripts/vm/run.sh $(CACHE) $(K61) profile

clean:
	rm -rf $(BUILD)

# --- documentation ------------------------------------------------------------
# Documentation/weave.rst with its kernel-doc directives expanded, so that it
# reads whole without Sphinx.
.PHONY: doc
doc: $(BUILD)/doc/weave.rst

$(BUILD)/doc/weave.rst: Documentation/weave.rst $(wildcard Documentation/*.svg) \
		uapi/weave_drm.h $(wildcard kmod/*.[ch]) \
		scripts/render-doc.py
	@test -f $(CACHE)/ksrc/scripts/kernel-doc || \
		{ echo "make doc: no kernel-doc; run 'make setup' first" >&2; exit 1; }
	@mkdir -p $(@D)
	scripts/render-doc.py $(CACHE)/ksrc/scripts/kernel-doc $< $@
