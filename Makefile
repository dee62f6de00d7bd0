# kjit - top-level build. `make test` and `make demo` work on a bare Debian 12
# machine: both first run `make deps`, which installs what is missing.
#
#   make deps         install packages, fetch Zydis source and the test kernel
#   make module       kjit.ko and kjit_pool.ko (Zydis and jit/ compiled in)
#                     for one kernel: KDIR=DIR, a kernel build tree (in
#                     build/mod/rel-RELEASE); else KERNEL=NAME, a test
#                     kernel (build/mod/NAME, with the test modules); else
#                     the running kernel when its headers are installed;
#                     else the first test kernel
#   make modules      the test modules of every kernel of scripts/kernels
#   make tool         build/tools/kjit (user tool: libZydis, libdw, libelf)
#   make install      the tool in $(PREFIX)/bin, the modules for KDIR (else
#                     the running kernel) in /lib/modules/RELEASE/updates/kjit,
#                     then depmod; DESTDIR=DIR installs under DIR
#   make dkms-source  the module's source as DKMS builds it, in
#                     $(DESTDIR)/usr/src/kjit-VERSION (then: dkms add kjit/VERSION)
#   make host-test    host unit/differential tests (no VM)
#   make vm-test      boot each kernel under QEMU/TCG, run tests/vm/cases
#                     (VM_KERNELS="6.12" for one; VM_CASES="..." for some cases;
#                     KJIT_KIMAGE=bzImage KJIT_KDIR=DIR: a kernel you built)
#   make test         host-test + vm-test, side by side (a guest more than
#                     the host has cores, the host tests as one), ends with
#                     "N passed, N failed"
#   make test-all     make test, then the whole VM suite on the spot-checked
#                     kernel (PREEMPT_RT)
#   make demo         boot the test kernel and show what kjit does
#                     (KJIT_ICOUNT=1: under QEMU -icount, one vCPU: its
#                     timings are deterministic instruction counts;
#                     KJIT_DBG=1: with the kernel's -dbg vmlinux, its
#                     source lines and HTML coverage)
#   make dbg          fetch the kernel's -dbg vmlinux (about 1 GB)
#   make shell        boot the test kernel with kjit loaded, a root shell
#                     on this terminal (KERNEL=NAME picks the kernel)
#   make rig-selftest prove the VM rig fails on a failed assertion, WARNING, hang,
#                     a case leaving modules loaded
#   make stress       deep attach/detach cycling under a two-vCPU syscall mix
#   make bench        translator, silicon, micro, deterministic (-icount)
#                     and LMbench-style benchmarks into docs/results/
#                     (first installs stress-ng, gnuplot-nox;
#                     BENCH_ONLY=silicon|report|micro|icount|lmbench for one part;
#                     KJIT_DBG=1 or BENCH_ONLY=lines: the suite's kernel
#                     code in source lines, with the -dbg vmlinux)
#   make format-check clang-format check of our own sources
#
# KERNEL=NAME (a name from scripts/kernels; default: its first line) picks
# the test kernel of demo, stress, bench and rig-selftest (and of module).
# KJIT_KERNEL=NAME does that and also limits vm-test and test to that
# kernel (for development speed): make test KJIT_KERNEL=6.12

ROOT  := $(abspath .)
BUILD ?= $(ROOT)/build
CACHE := $(BUILD)/cache
# The kernels (name, release, headers) as make deps resolved them; read
# when a recipe runs, so after deps on a bare machine.
KERNELS_FILE ?= $(CACHE)/kernels
ifneq ($(KJIT_KERNEL),)
KERNEL := $(KJIT_KERNEL)
VM_KERNELS := $(KJIT_KERNEL)
endif
KERNEL ?= $(shell head -n 1 $(KERNELS_FILE) 2>/dev/null | cut -d' ' -f1)
KHDR    = $(shell awk '$$1 == "$(KERNEL)" { print $$3 }' $(KERNELS_FILE) 2>/dev/null)
MODS    = $(BUILD)/mod/$(KERNEL)
ZYDIS := $(CACHE)/zydis
RESULTS := $(BUILD)/results

CC      ?= gcc
WARN    := -Wall -Wextra -Werror -Wno-unused-parameter
HOST_CFLAGS := -O2 -g $(WARN) -I$(ROOT)
TOOL_LIBS   := -lZydis -lZycore -ldw -lelf

.PHONY: all deps dbg module test-module all-modules kdir-module product-modules build-deps \
	install dkms-source modules tool guest-progs stress sanitize host-test vm-test test \
	test-build test-all \
	demo shell rig-selftest \
	format-check bench bench-deps clean
all: module tool

deps: $(BUILD)/deps.stamp
$(BUILD)/deps.stamp: scripts/deps.sh scripts/kernels scripts/kjit-deb-src.sources \
		scripts/kjit-backports.sources
	@sh scripts/deps.sh $(BUILD)

# ---- kernel module -------------------------------------------------------
# one_file_module SRC: build a helper module made of one C file in
# $(MODS)/<name>/ (a symlink and a generated Kbuild; nothing in the tree).
one_file_module = n=$$(basename $(1) .c); d=$(MODS)/$$n; mkdir -p $$d && \
	ln -sfn $(ROOT)/$(1) $$d/$$n.c && \
	for h in $(dir $(ROOT)/$(1))*.h; do [ -e $$h ] && ln -sfn $$h $$d/; done; \
	echo "obj-m := $$n.o" > $$d/Kbuild && \
	$(call kbuild,$$d)
# kbuild DIR[,ARGS]: run Kbuild in DIR (with ARGS); keeps make's exit status. No BTF for our
# modules (CONFIG_DEBUG_INFO_BTF_MODULES off): 6.12's headers ship a vmlinux
# and would need pahole; 6.1's ship none and print "Skipping BTF", hidden.
kbuild = { $(MAKE) -s -C $(KHDR) M=$(1) CONFIG_DEBUG_INFO_BTF_MODULES= $(2) \
	modules > $(1)/kbuild.log 2>&1; \
	rc=$$?; grep -v '^Skipping BTF' $(1)/kbuild.log; test $$rc = 0; }

# line_module: kjit_linetest.ko, with -g and the line fixture compiled in
# (tests/vm/cases/lines.sh; run.sh keeps an unstripped copy for --debuginfo).
line_module = d=$(MODS)/kjit_linetest; mkdir -p $$d && \
	ln -sfn $(ROOT)/tests/vm/linetest/kjit_linetest.c $$d/ && \
	ln -sfn $(ROOT)/tests/tool/fixtures/lines/linemod.c $$d/ && \
	ln -sfn $(ROOT)/tests/tool/fixtures/lines/linemod.h $$d/ && \
	printf 'obj-m := kjit_linetest.o\nccflags-y := -g -I$$(src)\n' > $$d/Kbuild && \
	$(call kbuild,$$d)

# pool_module: kjit_pool.ko, the code cache's memory (kmod/pool/kjit_pool.h).
# Data only, in a NOBITS text section objtool cannot read: objtool skips it.
# So no sanitizer may add code to it either (KCSAN's constructor kept an
# unpatched `jmp __x86_return_thunk`: "Unpatched return thunk in use" at
# insmod; tests/host/pool_module.sh).
KJIT_POOL_MB ?= 16
pool_module = d=$(MODS)/kjit_pool; mkdir -p $$d && \
	ln -sfn $(ROOT)/kmod/pool/kjit_pool.c $$d/ && \
	ln -sfn $(ROOT)/kmod/pool/kjit_pool.h $$d/ && \
	printf 'obj-m := kjit_pool.o\nOBJECT_FILES_NON_STANDARD := y\nKCSAN_SANITIZE := n\nKASAN_SANITIZE := n\nUBSAN_SANITIZE := n\nKCOV_INSTRUMENT := n\nGCOV_PROFILE := n\nccflags-y := -DKJIT_POOL_MB=$(KJIT_POOL_MB)\n' \
		> $$d/Kbuild.new && \
	{ cmp -s $$d/Kbuild.new $$d/Kbuild || mv $$d/Kbuild.new $$d/Kbuild; } && \
	rm -f $$d/Kbuild.new && $(call kbuild,$$d)

# make module: for KDIR, else for KERNEL when named, else for the running
# kernel when its headers are installed, else for the first test kernel.
RUNNING_KDIR := /lib/modules/$(shell uname -r)/build
ifeq ($(KDIR)$(KJIT_KERNEL)$(filter command line environment,$(origin KERNEL)),)
ifneq ($(wildcard $(RUNNING_KDIR)/Makefile),)
KDIR := $(RUNNING_KDIR)
endif
endif
ifneq ($(KDIR),)
module: kdir-module
else
module: test-module
endif

# The modules a user runs (kjit_pool.ko, kjit.ko, kjit_kprobes.ko for
# `kjit compare`), for $(KHDR) in $(MODS).
product-modules:
	+@$(call pool_module)
	@KJIT_WERROR=$(KJIT_WERROR) sh scripts/kbuild-tree.sh $(ROOT) $(BUILD) $(MODS)/kmod
	+@$(call kbuild,$(MODS)/kmod,KBUILD_EXTRA_SYMBOLS=$(MODS)/kjit_pool/Module.symvers)
	+@$(call one_file_module,kmod/companion/kjit_kprobes.c)

# For a kernel build tree: what it lacks is named first
# (scripts/kdir-probe.sh); the modules go to build/mod/rel-RELEASE, or
# KJIT_MODS=DIR (dkms.conf). Needs Zydis's source, not the test kernels.
build-deps:
	@test -f $(ZYDIS)/src/Decoder.c -a -d $(CACHE)/zycore-include/Zycore || \
		sh scripts/deps.sh $(BUILD) --build
KJIT_MODS_DIR = $(if $(KJIT_MODS),$(abspath $(KJIT_MODS)),$(BUILD)/mod/rel-$$rel)
kdir-module: build-deps
	@rel=$$(sh scripts/kdir-probe.sh $(KDIR)) || exit 1; \
	mods=$(KJIT_MODS_DIR); \
	$(MAKE) --no-print-directory product-modules KHDR=$(KDIR) MODS=$$mods && \
	echo "  built $$mods/kmod/kjit.ko and kjit_pool.ko ($$rel)"

# For a test kernel of scripts/kernels: also the test modules. A kernel
# whose headers need a newer compiler names a chroot that has it (a fifth
# field of its kernels line: scripts/sid-chroot.sh); the build runs in
# there, this tree bind-mounted at the same path.
KCHROOT = $(shell awk '$$1 == "$(KERNEL)" { print $$5 }' $(KERNELS_FILE) 2>/dev/null)
test-module: deps
	@test -n "$(KHDR)" || { echo "no kernel '$(KERNEL)' in $(KERNELS_FILE)"; exit 1; }
ifeq ($(KCHROOT),)
	+@$(MAKE) --no-print-directory all-modules KHDR=$(KHDR) MODS=$(MODS)
else
	+@sh scripts/sid-chroot.sh --run $(KCHROOT) $(ROOT) $(BUILD) \
		$(MAKE) --no-print-directory -C $(ROOT) all-modules \
		KHDR=$(KHDR) MODS=$(MODS) BUILD=$(BUILD)
endif
	@echo "  built $(MODS)/kmod/kjit.ko and kjit_pool.ko ($(KERNEL))"

# The modules a user runs and the test modules, for $(KHDR) in $(MODS).
all-modules: product-modules
	+@$(call one_file_module,tests/vm/rigtest/kjit_rigtest.c)
	+@$(call one_file_module,tests/vm/rigtest/kjit_ipmodify.c)
	+@$(call one_file_module,tests/vm/rigtest/kjit_kallwalk.c)
	+@$(call one_file_module,tests/vm/stackcheck/kjit_stackcheck.c)
	+@$(call one_file_module,tests/vm/livepatch/kjit_lptarget.c)
	+@$(call one_file_module,tests/vm/livepatch/kjit_lptest.c)
	+@$(call line_module)

modules: deps
	+@for k in $$(cut -d' ' -f1 $(KERNELS_FILE)); do \
		$(MAKE) --no-print-directory test-module KERNEL=$$k || exit 1; done

# ---- installing on a real machine -------------------------------------
# make install [KDIR=DIR] [PREFIX=/usr/local] [DESTDIR=DIR]: the tool, and
# the modules for KDIR (default: the running kernel's build tree).
PREFIX ?= /usr/local
KJIT_VERSION := $(shell sed -n 's/^\#define KJIT_BUILD_STRING "kjit \(.*\)"$$/\1/p' kmod/chardev.h)
install: build-deps
	@test -n "$(KDIR)" || { echo "make install: no build tree for the running kernel" \
		"($(RUNNING_KDIR)): install linux-headers-$$(uname -r), or name one with KDIR=DIR"; exit 1; }
	+@$(MAKE) --no-print-directory kdir-module $(BUILD)/tools/kjit KDIR=$(KDIR)
	@rel=$$(sh scripts/kdir-probe.sh $(KDIR)) && mods=$(KJIT_MODS_DIR) && \
	dest=$(DESTDIR)/lib/modules/$$rel/updates/kjit && \
	install -D -m 755 $(BUILD)/tools/kjit $(DESTDIR)$(PREFIX)/bin/kjit && \
	install -d $$dest && \
	install -m 644 $$mods/kjit_pool/kjit_pool.ko $$mods/kmod/kjit.ko \
		$$mods/kjit_kprobes/kjit_kprobes.ko $$dest/ && \
	depmod $(if $(DESTDIR),-b $(DESTDIR)) $$rel && \
	echo "  installed $(DESTDIR)$(PREFIX)/bin/kjit and $$dest/{kjit_pool,kjit,kjit_kprobes}.ko" && \
	echo "  next: sudo modprobe kjit; kjit check"

# make dkms-source [DESTDIR=DIR]: the module's source as DKMS builds it
# (dkms.conf: make module KDIR=...), Zydis's source and Zycore's headers
# included, so that it builds with nothing fetched. Then, as root:
#   dkms add kjit/$(KJIT_VERSION); dkms install kjit/$(KJIT_VERSION)
DKMS_SRC = $(DESTDIR)/usr/src/kjit-$(KJIT_VERSION)
dkms-source: build-deps
	@rm -rf $(DKMS_SRC) && mkdir -p $(DKMS_SRC)/build/cache/zydis && \
	cp -r Makefile kmod jit codecache $(DKMS_SRC)/ && \
	mkdir -p $(DKMS_SRC)/scripts && \
	cp scripts/kbuild-tree.sh scripts/kdir-probe.sh $(DKMS_SRC)/scripts/ && \
	cp -r $(ZYDIS)/src $(ZYDIS)/include $(ZYDIS)/LICENSE $(DKMS_SRC)/build/cache/zydis/ && \
	cp -rL $(CACHE)/zycore-include $(DKMS_SRC)/build/cache/ && \
	sed 's/@VERSION@/$(KJIT_VERSION)/' scripts/dkms.conf > $(DKMS_SRC)/dkms.conf && \
	echo "  $(DKMS_SRC): now dkms add kjit/$(KJIT_VERSION)"

# ---- user tool -----------------------------------------------------------
# The tool links the translator's portable core (jit/*.c) for static CFGs.
TOOL_SRC := $(wildcard tools/*/*.c) $(wildcard jit/*.c)
TOOL_HDR := $(wildcard tools/*/*.h) $(wildcard kmod/*.h) $(wildcard jit/*.h) \
	$(wildcard kmod/companion/*.h)
tool: deps $(BUILD)/tools/kjit
$(BUILD)/tools/kjit: $(TOOL_SRC) $(TOOL_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $(TOOL_SRC) $(TOOL_LIBS)

# ---- programs that run in the test guest (static: the guest has no libc)
GUEST_PROGS := $(patsubst tests/vm/progs/%.c,$(BUILD)/guest/%,$(wildcard tests/vm/progs/*.c))
guest-progs: $(GUEST_PROGS)
$(BUILD)/guest/%: tests/vm/progs/%.c tests/vm/progs/workload_ops.h tests/vm/progs/quiet_output.h kmod/kjit_ioctl.h
	@mkdir -p $(dir $@)
	$(CC) -O2 $(WARN) -I$(ROOT) -static -o $@ $(filter %.c,$^)
# kjitcount prints its timings with the tool's pure noise/format code.
$(BUILD)/guest/kjitcount: tools/report/noise.c tools/report/noise.h

# ---- host tests ----------------------------------------------------------
# tests/host/host.mk appends test programs to HOST_TESTS (paths under
# $(BUILD)/host). Each prints "KJIT-RESULT PASS|FAIL|SKIP name [detail]" lines.
HOST_TESTS :=
-include tests/host/host.mk
-include tests/tool/tool.mk

# modules first: test_dispatch_deps reads every kernel's kjit.ko.
host-test: deps modules $(HOST_TESTS)
	@mkdir -p $(RESULTS)
	@sh tests/run-host.sh $(RESULTS) $(HOST_TESTS)

# ---- VM tests ------------------------------------------------------------
# Every kernel's modules, then tests/vm/matrix.sh: each kernel's cases in
# a few boots, a guest more than the host has cores at a time; results in $(RESULTS)/vm-NAME.results,
# console logs in vm-NAME-console.log, each boot's files in boots/.
VM_KERNELS ?= $(shell cut -d' ' -f1 $(KERNELS_FILE) 2>/dev/null)
ifeq ($(KJIT_KIMAGE),)
vm-test: tool guest-progs
	@mkdir -p $(RESULTS); rm -f $(RESULTS)/vm-*.results; \
	for k in $(VM_KERNELS); do \
		$(MAKE) --no-print-directory test-module KERNEL=$$k || exit 1; \
	done; \
	sh tests/vm/matrix.sh --build $(BUILD) --results $(RESULTS) $(VM_KERNELS) \
		$(if $(VM_CASES),-- $(VM_CASES))
else
# make vm-test KJIT_KIMAGE=bzImage KJIT_KDIR=DIR: the suite on a kernel you
# built (scripts/user-kernel.sh lays it out as the kernel named "user").
vm-test: tool guest-progs
	@test -n "$(KJIT_KDIR)" || { echo "KJIT_KIMAGE needs KJIT_KDIR=its build tree"; exit 1; }
	@sh scripts/user-kernel.sh $(BUILD) $(KJIT_KIMAGE) $(KJIT_KDIR)
	@$(MAKE) --no-print-directory test-module KERNEL=user KERNELS_FILE=$(CACHE)/kernels-user
	@mkdir -p $(RESULTS); rm -f $(RESULTS)/vm-*.results
	-@KJIT_KERNELS_FILE=$(CACHE)/kernels-user sh tests/vm/matrix.sh --build $(BUILD) \
		--results $(RESULTS) user $(if $(VM_CASES),-- $(VM_CASES))
	@sh tests/summarize.sh --no-host $(RESULTS) user
endif

# Everything the tests run, built first, as many jobs at once as cores
# (-k: what builds is tested; what does not, fails in the summary).
NPROC := $(shell nproc 2>/dev/null || echo 2)
test-build: deps
	@$(MAKE) --no-print-directory -k -j$(NPROC) modules tool guest-progs \
		$(HOST_TESTS)

# Host tests and VM boots side by side (tests/vm/matrix.sh: the host
# tests take one core, like a single-threaded boot).
test: deps
	@rm -rf $(RESULTS); mkdir -p $(RESULTS)
	-@$(MAKE) --no-print-directory test-build
	-@sh tests/vm/matrix.sh --build $(BUILD) --results $(RESULTS) \
		--host "sh tests/run-host.sh $(RESULTS) $(HOST_TESTS)" \
		$(VM_KERNELS) $(if $(VM_CASES),-- $(VM_CASES))
	@sh tests/summarize.sh $(RESULTS) $(VM_KERNELS)

# make test-all: make test, then the whole VM suite on the kernels make
# test spot-checks (a "spot" word in scripts/kernels: 6.12 PREEMPT_RT),
# which does not fit make test's budget; one summary of everything.
SPOT_KERNELS = $(shell awk '{ for (i = 3; i <= NF; i++) if ($$i == "spot") print $$1 }' \
	scripts/kernels)
test-all: deps
	-@$(MAKE) --no-print-directory test
	-@sh tests/vm/matrix.sh --build $(BUILD) --results $(RESULTS) \
		--every-case $(SPOT_KERNELS) $(if $(VM_CASES),-- $(VM_CASES))
	@sh tests/summarize.sh $(RESULTS) $(VM_KERNELS)

# make sanitize [FLAVOR=kasan|kcsan]: the checking kernel of that flavour
# (scripts/sanitize-kernel.sh: 6.12's source, tests/sanitize/*.config;
# built once, cached), then every VM case and the stress on it. Not part
# of make test (docs/testing.md, "Sanitizer kernels"). Results in
# build/sanitize/FLAVOR.
FLAVOR ?= kasan
SAN_RES = $(BUILD)/sanitize/$(FLAVOR)
sanitize: deps tool guest-progs
	@sh scripts/sanitize-kernel.sh $(BUILD) $(FLAVOR)
	@$(MAKE) --no-print-directory test-module KERNEL=6.12-$(FLAVOR) \
		KERNELS_FILE=$(CACHE)/kernels-$(FLAVOR)
	@rm -rf $(SAN_RES); mkdir -p $(SAN_RES)
	@printf 'SECS=%s\nRMMOD_EVERY=1\n' "$${KJIT_STRESS_SECS:-180}" > $(SAN_RES)/stress.conf
	-@KJIT_KERNELS_FILE=$(CACHE)/kernels-$(FLAVOR) sh tests/vm/matrix.sh \
		--build $(BUILD) --results $(SAN_RES) 6.12-$(FLAVOR) \
		$(if $(VM_CASES),-- $(VM_CASES))
	-@KJIT_KERNELS_FILE=$(CACHE)/kernels-$(FLAVOR) sh tests/vm/run.sh \
		--build $(BUILD) --kernel 6.12-$(FLAVOR) --log $(SAN_RES)/stress-console.log \
		--results $(SAN_RES)/stress.results --extra $(SAN_RES)/stress.conf \
		tests/vm/stress/stress.sh
	@sh tests/summarize.sh --no-host $(SAN_RES) 6.12-$(FLAVOR)

# make stress [KJIT_STRESS_SECS=N] [KJIT_STRESS_RMMOD_EVERY=N]
# [KJIT_VM_APPEND=preempt=full]: the long soak, not part of make test.
stress: test-module tool guest-progs
	@mkdir -p $(BUILD)/stress
	@printf 'SECS=%s\nRMMOD_EVERY=%s\n' "$${KJIT_STRESS_SECS:-180}" \
		"$${KJIT_STRESS_RMMOD_EVERY:-1}" > $(BUILD)/stress/stress.conf
	@sh tests/vm/run.sh --build $(BUILD) --kernel $(KERNEL) --log $(BUILD)/stress/console.log \
		--results $(BUILD)/stress/results --extra $(BUILD)/stress/stress.conf \
		tests/vm/stress/stress.sh

# make shell [KERNEL=NAME]: the test kernel booted with kjit loaded, and a
# root shell on this terminal (tests/vm/run.sh --shell).
shell: test-module tool guest-progs
	@sh tests/vm/run.sh --build $(BUILD) --kernel $(KERNEL) --shell

rig-selftest: test-module tool guest-progs
	@sh tests/vm/rig-selftest.sh $(BUILD) $(KERNEL)

# KJIT_DBG=1: also fetch the kernel's -dbg vmlinux (about 1 GB, once:
# `make dbg`) and map the demo's deep recording to source lines and HTML.
dbg: deps
	@sh scripts/deps.sh $(BUILD) --dbg $(KERNEL)

demo: test-module tool guest-progs $(if $(KJIT_DBG),dbg)
	@KJIT_DBG=$(KJIT_DBG) sh tests/vm/run.sh --build $(BUILD) --kernel $(KERNEL) --log $(BUILD)/demo-console.log --demo \
		$(if $(KJIT_ICOUNT),--icount)

# Packages only the benchmarks use: `make test` does not need them.
bench-deps: $(BUILD)/bench-deps.stamp
$(BUILD)/bench-deps.stamp: scripts/deps.sh
	@sh scripts/deps.sh $(BUILD) --bench

bench: test-module tool guest-progs $(HOST_BENCH) bench-deps $(if $(KJIT_DBG),dbg)
	@KJIT_DBG=$(KJIT_DBG) sh bench/run.sh $(BUILD) $(KERNEL)

format-check:
	@clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD)/mod $(BUILD)/tools $(BUILD)/host $(BUILD)/vm $(RESULTS)
