# tool.mk - host tests of the kjit tool's parts (included by the root Makefile).
HOST_TESTS += $(BUILD)/host/test_kallsyms

$(BUILD)/host/test_kallsyms: tests/tool/test_kallsyms.c tools/kallsyms.c tools/kallsyms.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ tests/tool/test_kallsyms.c tools/kallsyms.c
