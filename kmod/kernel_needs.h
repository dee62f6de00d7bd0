/*
 * kernel_needs.h - the kernel configuration kjit needs, in one place: a
 * KJIT_NEED(OPTION, WHY) line each, WHY said to the user when OPTION is
 * not set. tools/kernel/kcheck.c includes it (`kjit check`, on the running
 * kernel's config); scripts/kdir-probe.sh reads its lines (`make module
 * KDIR=DIR`, DKMS: a tree without one is refused, the option named).
 * Keep each entry on one line: the script reads them with sed.
 * Beyond this list both also need CONFIG_X86_64 and one of
 * CONFIG_UNWINDER_ORC and CONFIG_UNWINDER_FRAME_POINTER.
 */
KJIT_NEED(CONFIG_MODULES, "kjit is two loadable modules")
KJIT_NEED(CONFIG_MODULE_UNLOAD, "detaching ends with rmmod")
KJIT_NEED(CONFIG_KALLSYMS, "kjit names functions and finds what it needs by name")
KJIT_NEED(CONFIG_KALLSYMS_ALL, "kjit reads data symbols: the exception, static-key and ORC tables, module_mutex")
KJIT_NEED(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, "kjit diverts a function's entry with an ftrace direct call")
KJIT_NEED(CONFIG_KPROBES, "kjit.ko finds kallsyms_lookup_name with a kprobe at load")
