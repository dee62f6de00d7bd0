/* device.h - talking to /dev/kjit, with one clear message per failure. */
#ifndef KJIT_TOOL_DEVICE_H
#define KJIT_TOOL_DEVICE_H

/*
 * kjit_device_open - open /dev/kjit and check the module's ABI version.
 * Returns a file descriptor, or -1 after printing why (module not loaded,
 * not root, ABI mismatch).
 */
int kjit_device_open(void);

#endif
