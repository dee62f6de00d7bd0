/* device.h - talking to /dev/kjit, with one clear message per failure. */
#ifndef KJIT_TOOL_DEVICE_H
#define KJIT_TOOL_DEVICE_H

/*
 * kjit_device_open - open /dev/kjit and check the module's ABI version.
 * Returns a file descriptor, or -1 after printing why (module not loaded,
 * not root, ABI mismatch).
 */
int kjit_device_open(void);

/*
 * kjit_detach_why - what a failed KJIT_IOC_DETACH with errno @err means,
 * in words: nothing attached (ENOENT), or ftrace kept a diversion (EBUSY:
 * the session stays attached, whole, and a later detach tries again).
 */
const char *kjit_detach_why(int err);

/*
 * kjit_device_join - makes this process one of kjit's own (kmod/own.h):
 * KJIT_IOC_SELF on a /dev/kjit held open for the process's life (not
 * across exec), so that sessions leave its work out of their counts.
 * Silent when the device cannot be opened or the module is another ABI
 * (the subcommand says why, if it needs the device).
 */
void kjit_device_join(void);

#endif
