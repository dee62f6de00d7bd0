/* device.c - open /dev/kjit and agree on the ABI version. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "kmod/kjit_ioctl.h"
#include "device.h"
#include "tools/report/say.h"

static void explain_open_error(int err)
{
	if (err == ENOENT)
		say("%s not found: is kjit.ko loaded? (insmod "
		    "kjit_pool.ko, then kjit.ko)\n",
		    KJIT_DEVICE);
	else if (err == EACCES || err == EPERM)
		say("%s: permission denied: kjit needs root "
		    "(CAP_SYS_ADMIN)\n",
		    KJIT_DEVICE);
	else
		say("cannot open %s: %s\n", KJIT_DEVICE, strerror(err));
}

int kjit_device_open(void)
{
	struct kjit_version v = {.size = sizeof(v)};
	int fd;

	fd = open(KJIT_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		explain_open_error(errno);
		return -1;
	}
	if (ioctl(fd, KJIT_IOC_VERSION, &v)) {
		say("%s: version request failed: %s\n", KJIT_DEVICE,
		    strerror(errno));
		close(fd);
		return -1;
	}
	if (v.abi != KJIT_ABI_VERSION) {
		say("module speaks ABI %u, this tool ABI %d: rebuild "
		    "one of them\n",
		    v.abi, KJIT_ABI_VERSION);
		close(fd);
		return -1;
	}
	return fd;
}

const char *kjit_detach_why(int err)
{
	if (err == ENOENT)
		return "nothing is attached";
	if (err == EBUSY)
		return "ftrace did not remove a diversion (see dmesg): the "
		       "session stays attached; run kjit detach again";
	return strerror(err);
}

void kjit_device_join(void)
{
	static int fd = -1;

	if (fd >= 0)
		return;
	fd = open(KJIT_DEVICE, O_RDONLY | O_CLOEXEC); /* kept open */
	if (fd >= 0 && ioctl(fd, KJIT_IOC_SELF, 0) && errno == ENOSPC)
		say("warning: more than 64 kjit processes "
		    "at once: this one is counted like any "
		    "other\n");
}
