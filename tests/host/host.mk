# tests/host/host.mk - host test programs for the translator core (jit/) and
# the code cache (codecache/).
# Included by the root Makefile from the repo root; appends to HOST_TESTS.
#
# All host programs are non-PIE (-fno-pie -no-pie) so that code and data sit
# below 2 GiB like kernel text sits in the top 2 GiB: push $imm32 and
# absolute counters work as in the kernel.

HT_DIR    := $(BUILD)/host
HT_SRC    := $(ROOT)/tests/host
HT_CFLAGS := $(HOST_CFLAGS) -fno-pie -no-pie
HT_LIBS   := -lZydis -lZycore
HT_JIT_SRC := $(wildcard $(ROOT)/jit/*.c)
HT_JIT_HDR := $(wildcard $(ROOT)/jit/*.h)
HT_HDR    := $(wildcard $(HT_SRC)/*.h) $(HT_JIT_HDR)
HT_JIT_OBJ := $(patsubst $(ROOT)/jit/%.c,$(HT_DIR)/jit/%.o,$(HT_JIT_SRC))
# codecache/ includes only jit/ headers: it builds into libkjit.a as well.
HT_CC_SRC := $(wildcard $(ROOT)/codecache/*.c)
HT_CC_HDR := $(wildcard $(ROOT)/codecache/*.h)
HT_CC_OBJ := $(patsubst $(ROOT)/codecache/%.c,$(HT_DIR)/codecache/%.o,$(HT_CC_SRC))
HT_HDR    += $(HT_CC_HDR)
HT_COMMON := $(HT_DIR)/verify.o $(HT_DIR)/host_env.o $(HT_DIR)/ibt_check.o \
	$(HT_DIR)/unwind_check.o

$(HT_DIR)/jit/%.o: $(ROOT)/jit/%.c $(HT_JIT_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(HT_CFLAGS) -c -o $@ $<

$(HT_DIR)/codecache/%.o: $(ROOT)/codecache/%.c $(HT_CC_HDR) $(HT_JIT_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(HT_CFLAGS) -c -o $@ $<

$(HT_DIR)/%.o: $(HT_SRC)/%.c $(HT_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(HT_CFLAGS) -c -o $@ $<

$(HT_DIR)/libkjit.a: $(HT_JIT_OBJ) $(HT_CC_OBJ)
	@rm -f $@
	ar rcs $@ $^

HOST_TESTS += $(HT_DIR)/test_unit
$(HT_DIR)/test_unit: $(HT_DIR)/test_unit.o $(HT_COMMON) $(HT_DIR)/libkjit.a
	$(CC) $(HT_CFLAGS) -o $@ $^ $(HT_LIBS)

# Argument predicates (jit/predicate.h): every register, operator, width
# and edge value, run against the condition evaluated in C.
HOST_TESTS += $(HT_DIR)/test_pred
$(HT_DIR)/test_pred: $(HT_DIR)/test_pred.o $(HT_COMMON) $(HT_DIR)/libkjit.a
	$(CC) $(HT_CFLAGS) -o $@ $^ $(HT_LIBS)

# Per-CPU counter sequences: register liveness, placement, goldens, each
# sequence executed with a real GS base, per-thread copies, migrations.
HOST_TESTS += $(HT_DIR)/test_counters
$(HT_DIR)/test_counters: $(HT_DIR)/test_counters.o $(HT_COMMON) $(HT_DIR)/libkjit.a
	$(CC) $(HT_CFLAGS) -pthread -o $@ $^ $(HT_LIBS)

# Indirect branch tracking: layout facts, emission with kjit_config.ibt,
# the static IBT proof's self-test.
HOST_TESTS += $(HT_DIR)/test_ibt
$(HT_DIR)/test_ibt: $(HT_DIR)/test_ibt.o $(HT_COMMON) $(HT_DIR)/libkjit.a
	$(CC) $(HT_CFLAGS) -o $@ $^ $(HT_LIBS)

# The shared entry trampoline (codecache/entry.c): key table, bytes decoded
# back, run with a GS base per "CPU".
HOST_TESTS += $(HT_DIR)/test_entry
$(HT_DIR)/test_entry: $(HT_DIR)/test_entry.o $(HT_DIR)/libkjit.a
	$(CC) $(HT_CFLAGS) -o $@ $^ $(HT_LIBS)

# Differential test: corpus built with kernel-like code generation flags.
HT_CORPUS_CFLAGS := $(HOST_CFLAGS) -fno-pie -mno-red-zone -mgeneral-regs-only \
	-fno-stack-protector -fno-builtin -fno-tree-loop-distribute-patterns \
	-fcf-protection=none
$(HT_DIR)/corpus.o: $(HT_SRC)/corpus.c $(HT_SRC)/corpus.h
	@mkdir -p $(dir $@)
	$(CC) $(HT_CORPUS_CFLAGS) -c -o $@ $<
$(HT_DIR)/corpus_flags.o: $(HT_SRC)/corpus_flags.c $(HT_SRC)/corpus.h
	@mkdir -p $(dir $@)
	$(CC) $(HT_CORPUS_CFLAGS) -c -o $@ $<

HOST_TESTS += $(HT_DIR)/test_diff
$(HT_DIR)/test_diff: $(HT_DIR)/test_diff.o $(HT_DIR)/host_cache.o $(HT_DIR)/corpus.o \
		$(HT_DIR)/corpus_flags.o $(HT_DIR)/oracle.o \
		$(HT_COMMON) $(HT_DIR)/libkjit.a
	$(CC) $(HT_CFLAGS) -o $@ $^ $(HT_LIBS)

# Code cache under concurrency: threads run translated corpus code while the
# owning thread translates and links (about 3 s). Its code cache has chunks
# of 8 blocks (KJIT_CHUNK_SHIFT=3, 256 in the module), so the corpus's ~90
# blocks cross many chunk boundaries while it grows.
HT_SMP_CFLAGS := $(HT_CFLAGS) -DKJIT_CHUNK_SHIFT=3
HT_SMP_CC_OBJ := $(patsubst $(ROOT)/codecache/%.c,$(HT_DIR)/smp_cc/%.o,$(HT_CC_SRC))
$(HT_DIR)/smp_cc/%.o: $(ROOT)/codecache/%.c $(HT_CC_HDR) $(HT_JIT_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(HT_SMP_CFLAGS) -c -o $@ $<
$(HT_DIR)/test_smp.o: $(HT_SRC)/test_smp.c $(HT_HDR)
	$(CC) $(HT_SMP_CFLAGS) -c -o $@ $<
HOST_TESTS += $(HT_DIR)/test_smp
$(HT_DIR)/test_smp: $(HT_DIR)/test_smp.o $(HT_SMP_CC_OBJ) $(HT_DIR)/corpus.o $(HT_DIR)/oracle.o \
		$(HT_DIR)/host_env.o $(HT_DIR)/ibt_check.o $(HT_DIR)/libkjit.a
	$(CC) $(HT_CFLAGS) -pthread -o $@ $^ $(HT_LIBS)

# vmlinux sweep: extract the stock kernel's vmlinux once (a failed
# extraction is reported by the test itself, so `make` does not stop here).
KVER    = $(shell cat $(CACHE)/kver 2>/dev/null)
HT_KIMG = $(CACHE)/kernel-$(KVER)/boot/vmlinuz-$(KVER)
HT_KCFG = $(CACHE)/kernel-$(KVER)/boot/config-$(KVER)
$(HT_DIR)/vmlinux: $(HT_SRC)/extract-vmlinux.sh
	@mkdir -p $(dir $@)
	-@[ -f "$(HT_KIMG)" ] && sh $(HT_SRC)/extract-vmlinux.sh $(HT_KIMG) $(HT_KCFG) $@ || \
		echo "  (no vmlinux extracted; jit.vmlinux.* will say why)"

HOST_TESTS += $(HT_DIR)/test_vmlinux
$(HT_DIR)/test_vmlinux: $(HT_DIR)/test_vmlinux.o $(HT_DIR)/vmlinux.o $(HT_COMMON) \
		$(HT_DIR)/libkjit.a | $(HT_DIR)/vmlinux
	$(CC) $(HT_CFLAGS) -o $@ $(filter %.o %.a,$^) $(HT_LIBS)

# libFuzzer target (clang-14, ASan) and its bounded runner.
HT_FUZZ_CC    := clang-14
HT_FUZZ_FLAGS := -O1 -g -fsanitize=fuzzer,address -Wall -Wextra -Werror \
	-Wno-unused-parameter -I$(ROOT)
$(HT_DIR)/fuzz_translate: $(HT_SRC)/fuzz_translate.c $(HT_SRC)/verify.c \
		$(HT_SRC)/host_env.c $(HT_SRC)/ibt_check.c \
		$(HT_SRC)/unwind_check.c $(HT_JIT_SRC) $(HT_HDR) \
		$(ROOT)/kmod/kjit_fixups.h
	@mkdir -p $(dir $@)
	$(HT_FUZZ_CC) $(HT_FUZZ_FLAGS) -o $@ $(filter %.c,$^) $(HT_LIBS)

HOST_TESTS += $(HT_DIR)/run_fuzz
$(HT_DIR)/run_fuzz: $(HT_DIR)/run_fuzz.o $(HT_DIR)/vmlinux.o | $(HT_DIR)/fuzz_translate
	$(CC) $(HT_CFLAGS) -o $@ $(filter %.o,$^)

# The same sweep on every other kernel of scripts/kernels (vmlinux-NAME).
HOST_TESTS += $(HT_DIR)/vmlinux-kernels
$(HT_DIR)/vmlinux-kernels: $(HT_SRC)/vmlinux-kernels.sh | $(HT_DIR)/test_vmlinux $(HT_DIR)/test_shapes
	@printf '#!/bin/sh\nexec sh %s %s\n' $(HT_SRC)/vmlinux-kernels.sh $(BUILD) > $@
	@chmod +x $@

# Benchmark (not a test): `$(BUILD)/host/bench_translate [vmlinux]`.
HOST_BENCH := $(HT_DIR)/bench_translate
$(HT_DIR)/bench_translate: $(HT_DIR)/bench_translate.o $(HT_DIR)/vmlinux.o \
		$(HT_DIR)/host_cache.o $(HT_DIR)/corpus.o $(HT_COMMON) \
		$(HT_DIR)/libkjit.a | $(HT_DIR)/vmlinux
	$(CC) $(HT_CFLAGS) -o $@ $(filter %.o %.a,$^) $(HT_LIBS)

# Silicon benchmark (make bench): counting cost per executed block on this
# CPU, kernel-shaped blocks, old and new counters; its smoke form (a few
# short rounds, exact counts) is a host test.
HOST_BENCH += $(HT_DIR)/bench_silicon
$(HT_DIR)/bench_silicon: $(HT_DIR)/bench_silicon.o $(HT_DIR)/vmlinux.o \
		$(HT_DIR)/host_cache.o $(HT_COMMON) $(HT_DIR)/libkjit.a | $(HT_DIR)/vmlinux
	$(CC) $(HT_CFLAGS) -o $@ $(filter %.o %.a,$^) $(HT_LIBS)
HOST_TESTS += $(HT_DIR)/bench_silicon_smoke
$(HT_DIR)/bench_silicon_smoke: | $(HT_DIR)/bench_silicon
	@printf '#!/bin/sh\nexec %s --smoke\n' $(HT_DIR)/bench_silicon > $@
	@chmod +x $@

# codecache/ metadata the detach quiesce relies on (nothing executed).
HOST_TESTS += $(HT_DIR)/test_codecache
$(HT_DIR)/test_codecache: $(HT_DIR)/test_codecache.o $(HT_DIR)/host_env.o \
		$(HT_DIR)/ibt_check.o $(HT_DIR)/libkjit.a
	$(CC) $(HT_CFLAGS) -o $@ $^ $(HT_LIBS)

# The kernel functions kjit's dispatcher calls, derived from each kernel's
# built kjit.ko (SKIP without one: make modules) and checked against
# KJIT_DISPATCH_DEPS; the kernel's vmlinux, where extracted, checks the
# test's allow-list. Nothing is loaded or run: libelf and Zydis read files.
HOST_TESTS += $(HT_DIR)/test_dispatch_deps
$(HT_DIR)/test_dispatch_deps.o: $(HT_SRC)/test_dispatch_deps.c $(HT_HDR) \
		$(ROOT)/kmod/kjit_refusals.h
	@mkdir -p $(dir $@)
	$(CC) $(HT_CFLAGS) -DKJIT_BUILD_DIR='"$(BUILD)"' -c -o $@ $<
$(HT_DIR)/test_dispatch_deps: $(HT_DIR)/test_dispatch_deps.o $(HT_DIR)/modgraph.o \
		$(HT_DIR)/vmlinux.o | $(HT_DIR)/vmlinux
	$(CC) $(HT_CFLAGS) -o $@ $(filter %.o,$^) $(HT_LIBS) -lelf

# Mutation check: deliberate breakages of jit/ (tests/host/mutation.sh) that
# the unit and differential tests must catch (and one of
# KJIT_DISPATCH_DEPS that test_dispatch_deps must catch, reading this
# build's kjit.ko files), one KJIT-RESULT per mutant
# (about 30 s). The wrapper fixes the tree; the script copies it to a
# temporary directory and never touches this one.
HOST_TESTS += $(HT_DIR)/mutation
$(HT_DIR)/mutation: $(HT_SRC)/mutation.sh
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexport KJIT_BUILD=%s\nexec sh %s --results\n' \
		"$(BUILD)" "$(HT_SRC)/mutation.sh" > $@
	chmod +x $@

# make install, make dkms-source and dkms build, and scripts/kdir-probe.sh's
# refusals, into temporary directories (tests/host/install.sh; about 1 min).
HOST_TESTS += $(HT_DIR)/install
$(HT_DIR)/install: $(HT_SRC)/install.sh
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh %s %s %s\n' "$(HT_SRC)/install.sh" "$(ROOT)" "$(BUILD)" > $@
	chmod +x $@

# kjit_pool.ko holds no code of its own, objtool never patches it
# (tests/host/pool_module.sh: every built one).
HOST_TESTS += $(HT_DIR)/pool_module
$(HT_DIR)/pool_module: $(HT_SRC)/pool_module.sh
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh %s %s\n' "$(HT_SRC)/pool_module.sh" "$(BUILD)" > $@
	chmod +x $@

# make shell's guest, typed into (tests/host/shell.sh; one boot, ~20 s).
HOST_TESTS += $(HT_DIR)/shell
$(HT_DIR)/shell: $(HT_SRC)/shell.sh
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh %s %s %s\n' "$(HT_SRC)/shell.sh" "$(ROOT)" "$(BUILD)" > $@
	chmod +x $@

.PHONY: mutation-check
mutation-check:
	@KJIT_BUILD=$(BUILD) sh $(HT_SRC)/mutation.sh

# Silicon benchmark (make bench): one indirect branch lookup hit on this CPU
# against a native indirect jump; its smoke form (exact hit counts) is a
# host test.
HOST_BENCH += $(HT_DIR)/bench_ibl
$(HT_DIR)/bench_ibl: $(HT_SRC)/bench_ibl.c $(HT_SRC)/bench_stats.h
	@mkdir -p $(dir $@)
	$(CC) $(HT_CFLAGS) -o $@ $<
HOST_TESTS += $(HT_DIR)/bench_ibl_smoke
$(HT_DIR)/bench_ibl_smoke: | $(HT_DIR)/bench_ibl
	@printf '#!/bin/sh\nexec %s --smoke\n' $(HT_DIR)/bench_ibl > $@
	@chmod +x $@

# Silicon benchmark (make bench): the shared entry trampoline per call of
# an attached function, with and without a scope prologue, against a call
# of the function not attached; its smoke form is a host test.
HOST_BENCH += $(HT_DIR)/bench_entry
# bench/share.sh's oracle: single-steps the guest through QEMU's gdb stub.
HOST_BENCH += $(HT_DIR)/bench_share
$(HT_DIR)/bench_share: $(HT_SRC)/bench_share.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $< $(HT_LIBS)
$(HT_DIR)/bench_entry: $(HT_DIR)/bench_entry.o $(HT_DIR)/libkjit.a
	$(CC) $(HT_CFLAGS) -o $@ $^ $(HT_LIBS)
HOST_TESTS += $(HT_DIR)/bench_entry_smoke
$(HT_DIR)/bench_entry_smoke: | $(HT_DIR)/bench_entry
	@printf '#!/bin/sh\nexec %s --smoke\n' $(HT_DIR)/bench_entry > $@
	@chmod +x $@

# The differential on real kernel code (test_shapes.c): programs of the
# stock vmlinux's blocks, reduced to register-only instructions, native vs
# translated vs the ptrace oracle.
$(HT_DIR)/shape_call.o: $(HT_SRC)/shape_call.S
	@mkdir -p $(dir $@)
	$(CC) -c -o $@ $<
HOST_TESTS += $(HT_DIR)/test_shapes
$(HT_DIR)/test_shapes: $(HT_DIR)/test_shapes.o $(HT_DIR)/shape_call.o $(HT_DIR)/vmlinux.o \
		$(HT_DIR)/host_cache.o $(HT_DIR)/oracle.o $(HT_DIR)/corpus.o $(HT_DIR)/corpus_flags.o \
		$(HT_COMMON) $(HT_DIR)/libkjit.a | $(HT_DIR)/vmlinux
	$(CC) $(HT_CFLAGS) -o $@ $(filter %.o %.a,$^) $(HT_LIBS)

# Timed functions' calls (jit/timing.h) on the corpus, against the oracle.
$(HT_DIR)/time_stub.o: $(HT_SRC)/time_stub.S
	@mkdir -p $(dir $@)
	$(CC) -c -o $@ $<
HOST_TESTS += $(HT_DIR)/test_timing
$(HT_DIR)/test_timing: $(HT_DIR)/test_timing.o $(HT_DIR)/time_stub.o $(HT_DIR)/host_cache.o \
		$(HT_DIR)/oracle.o $(HT_DIR)/corpus.o $(HT_DIR)/corpus_flags.o $(HT_COMMON) $(HT_DIR)/libkjit.a
	$(CC) $(HT_CFLAGS) -o $@ $(filter %.o %.a,$^) $(HT_LIBS) -lelf
