# tool.mk - host tests of the kjit tool's parts (included by the root Makefile).
# Each program prints KJIT-RESULT lines (tests/tool/check.h) and exits
# non-zero on failure. Fixtures (a captured-style /proc/kallsyms, tracefs
# and debugfs files) are under tests/tool/fixtures/.
TT_DIR := $(BUILD)/host/tool
TT_CFLAGS := $(HOST_CFLAGS) -DFIXTURES='"$(ROOT)/tests/tool/fixtures"'
TT_DEPS := tests/tool/check.h $(wildcard tools/*/*.h)

HOST_TESTS += $(BUILD)/host/test_kallsyms
$(BUILD)/host/test_kallsyms: tests/tool/test_kallsyms.c tools/kernel/kallsyms.c tools/kernel/kallsyms.h \
		tools/report/say.c tools/report/say.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ tests/tool/test_kallsyms.c tools/kernel/kallsyms.c tools/report/say.c

HOST_TESTS += $(TT_DIR)/test_args
$(TT_DIR)/test_args: tests/tool/test_args.c tools/session/args.c tools/session/predicate.c \
		tools/kernel/sysfiles.c $(TT_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TT_CFLAGS) -o $@ $(filter %.c,$^)

HOST_TESTS += $(TT_DIR)/test_target
$(TT_DIR)/test_target: tests/tool/test_target.c tools/kernel/symtab.c \
		tools/session/target.c tools/report/say.c $(TT_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TT_CFLAGS) -o $@ $(filter %.c,$^)

HOST_TESTS += $(TT_DIR)/test_eligible
$(TT_DIR)/test_eligible: tests/tool/test_eligible.c tools/kernel/eligible.c tools/kernel/symnames.c \
		tools/kernel/symtab.c tools/session/target.c tools/report/say.c tools/kernel/sysfiles.c \
		$(TT_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TT_CFLAGS) -o $@ $(filter %.c,$^)

HOST_TESTS += $(TT_DIR)/test_funcset
$(TT_DIR)/test_funcset: tests/tool/test_funcset.c tools/session/funcset.c \
		tools/session/funcglob.c tools/kernel/eligible.c tools/kernel/symnames.c tools/kernel/symtab.c \
		tools/session/target.c tools/report/say.c tools/kernel/sysfiles.c tools/report/progress.c \
		$(TT_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TT_CFLAGS) -o $@ $(filter %.c,$^)

HOST_TESTS += $(TT_DIR)/test_progress
$(TT_DIR)/test_progress: tests/tool/test_progress.c tools/report/progress.c tools/report/say.c $(TT_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TT_CFLAGS) -o $@ $(filter %.c,$^) -lutil -pthread

# format.c pulls in session.c (coverage: cfg, kenv, kcore) and the jit core.
TT_REPORT_SRC := tools/report/format.c tools/report/by_part.c tools/report/say.c tools/report/names.c tools/report/limits.c \
	tools/report/buildid.c tools/report/native.c tools/report/disasm.c \
	tools/report/progress.c tools/session/datafile.c tools/session/session.c tools/session/predicate.c \
	tools/session/codeenv.c tools/session/cfg.c tools/session/oracle.c tools/session/split.c tools/session/timing.c tools/report/time_report.c tools/report/folded.c \
	tools/kernel/kenv.c tools/kernel/kthunks.c tools/kernel/kcore.c tools/kernel/symtab.c \
	tools/kernel/sysfiles.c $(wildcard jit/*.c)
HOST_TESTS += $(TT_DIR)/test_format
$(TT_DIR)/test_format: tests/tool/test_format.c $(TT_REPORT_SRC) $(TT_DEPS) $(wildcard jit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(TT_CFLAGS) -o $@ $(filter %.c,$^) -lZydis -lZycore -lelf

HOST_TESTS += $(TT_DIR)/test_limits
$(TT_DIR)/test_limits: tests/tool/test_limits.c $(TT_REPORT_SRC) $(TT_DEPS) $(wildcard jit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(TT_CFLAGS) -o $@ $(filter %.c,$^) -lZydis -lZycore -lelf

HOST_TESTS += $(TT_DIR)/test_oracle
$(TT_DIR)/test_oracle: tests/tool/test_oracle.c $(TT_REPORT_SRC) $(TT_DEPS) \
		$(wildcard jit/*.h) $(wildcard tests/tool/fixtures/fgraph/*)
	@mkdir -p $(dir $@)
	$(CC) $(TT_CFLAGS) -o $@ $(filter %.c,$^) -lZydis -lZycore -lelf

# record --oracle's tracer run against a fake tracefs (a sysroot copy).
HOST_TESTS += $(TT_DIR)/test_filter_chunks
$(TT_DIR)/test_filter_chunks: tests/tool/test_filter_chunks.c tools/kernel/filter_chunks.c $(TT_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TT_CFLAGS) -o $@ $(filter %.c,$^)

HOST_TESTS += $(TT_DIR)/test_fgraph
$(TT_DIR)/test_fgraph: tests/tool/test_fgraph.c tools/kernel/fgraph.c tools/kernel/filter_chunks.c \
		tools/session/stopsig.c \
		tools/kernel/eligible.c tools/kernel/symnames.c tools/session/attach.c tools/session/target.c tools/report/say.c \
		tools/session/funcset.c tools/session/funcglob.c tools/session/args.c tools/session/predicate.c \
		$(TT_REPORT_SRC) $(TT_DEPS) $(wildcard jit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(TT_CFLAGS) -DFGRAPH_CHUNK_FUNCS=2 -o $@ $(filter %.c,$^) -lZydis -lZycore -lelf

HOST_TESTS += $(TT_DIR)/test_cfg
$(TT_DIR)/test_cfg: tests/tool/test_cfg.c tools/session/cfg.c $(wildcard jit/*.c) $(TT_DEPS) \
		$(wildcard jit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(TT_CFLAGS) -o $@ $(filter %.c,$^) -lZydis -lZycore

# The built tool, run against the fixture system root.
HOST_TESTS += $(TT_DIR)/test_cli
$(TT_DIR)/test_cli: tests/tool/test_cli.c tests/tool/check.h $(BUILD)/tools/kjit
	@mkdir -p $(dir $@)
	$(CC) $(TT_CFLAGS) -DKJIT_BIN='"$(BUILD)/tools/kjit"' -o $@ tests/tool/test_cli.c

HOST_TESTS += $(TT_DIR)/test_noise
$(TT_DIR)/test_noise: tests/tool/test_noise.c tools/report/noise.c $(TT_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TT_CFLAGS) -o $@ $(filter %.c,$^)

# bench/micro-report.sh on a fixture (a shell test: a wrapper naming ROOT).
HOST_TESTS += $(TT_DIR)/test_micro_report
$(TT_DIR)/test_micro_report: tests/tool/test_micro_report.sh bench/micro-report.sh \
		tests/tool/fixtures/micro.out
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh %s %s\n' $(ROOT)/tests/tool/test_micro_report.sh $(ROOT) > $@
	chmod +x $@

# `kjit check` on fake machines (KJIT_SYSROOT), with the test kernels'
# module files (make test builds them first).
HOST_TESTS += $(TT_DIR)/test_check
$(TT_DIR)/test_check: tests/tool/test_check.sh tests/tool/result.sh
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh %s %s %s %s\n' $(ROOT)/tests/tool/test_check.sh $(ROOT) \
		$(BUILD) $(BUILD)/tools/kjit > $@
	chmod +x $@

# bench/share-report.sh on fixtures of a real run and of a blind oracle.
HOST_TESTS += $(TT_DIR)/test_share_report
$(TT_DIR)/test_share_report: tests/tool/test_share_report.sh tests/tool/result.sh bench/share-report.sh \
		$(wildcard tests/tool/fixtures/share/*)
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh %s %s\n' $(ROOT)/tests/tool/test_share_report.sh $(ROOT) > $@
	chmod +x $@

# bench/icount-report.sh on fixtures of two -icount boots.
HOST_TESTS += $(TT_DIR)/test_icount_report
$(TT_DIR)/test_icount_report: tests/tool/test_icount_report.sh tests/tool/result.sh bench/icount-report.sh \
		tests/tool/fixtures/icount-a.out tests/tool/fixtures/icount-b.out \
		tests/tool/fixtures/icount-c.out
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh %s %s\n' $(ROOT)/tests/tool/test_icount_report.sh $(ROOT) > $@
	chmod +x $@

# bench/silicon-costs.sh on the committed docs/results.
HOST_TESTS += $(TT_DIR)/test_silicon_costs
$(TT_DIR)/test_silicon_costs: tests/tool/test_silicon_costs.sh tests/tool/result.sh \
		docs/results/silicon.md docs/results/ibl.md
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh %s %s\n' $(ROOT)/tests/tool/test_silicon_costs.sh $(ROOT) > $@
	chmod +x $@

# Source lines (libdw) and report --lcov on a -g object (a shell test).
HOST_TESTS += $(TT_DIR)/test_lines
$(TT_DIR)/test_lines: tests/tool/test_lines.sh $(BUILD)/tools/kjit \
		tests/tool/fixtures/lines/linemod.c
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh %s %s %s\n' $(ROOT)/tests/tool/test_lines.sh $(ROOT) $(BUILD)/tools/kjit > $@
	chmod +x $@

# kjit annotate and report --uncovered on a kernel-style function built and
# linked here (a shell test: objdump, addr2line and its own block sums).
HOST_TESTS += $(TT_DIR)/test_annotate
$(TT_DIR)/test_annotate: tests/tool/test_annotate.sh $(BUILD)/tools/kjit \
		tests/tool/fixtures/annotate/annmod.c tests/tool/fixtures/annotate/annstub.S
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh %s %s %s\n' $(ROOT)/tests/tool/test_annotate.sh $(ROOT) $(BUILD)/tools/kjit > $@
	chmod +x $@

HOST_TESTS += $(TT_DIR)/test_runcmd
$(TT_DIR)/test_runcmd: tests/tool/test_runcmd.c tools/session/runcmd.c tools/session/stopsig.c tools/report/say.c $(TT_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TT_CFLAGS) -o $@ $(filter %.c,$^)

# Benchmark (not a test; make bench): a report's coverage as sessions grow.
HOST_BENCH += $(BUILD)/host/bench_report_scale
$(BUILD)/host/bench_report_scale: bench/report_scale.c $(TT_REPORT_SRC) $(TT_DEPS) $(wildcard jit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(TT_CFLAGS) -o $@ $(filter %.c,$^) -lZydis -lZycore -lelf

HOST_TESTS += $(TT_DIR)/test_kprobe_hazards
$(TT_DIR)/test_kprobe_hazards: tests/tool/test_kprobe_hazards.c tools/kernel/kprobe_hazards.c tools/kernel/sysfiles.c $(TT_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(TT_CFLAGS) -o $@ $(filter %.c,$^)
