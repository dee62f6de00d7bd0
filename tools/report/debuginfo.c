/* debuginfo.c - finding and opening the debug files of a recording (see
 * debuginfo.h); lines themselves come from srcline.c. */
#include "debuginfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "buildid.h"

static int add(struct debuginfo *d, const char *path)
{
	char why[512];
	struct srcline *sl;

	if (d->n >= DEBUGINFO_MAX) {
		snprintf(d->why, sizeof(d->why),
			 "at most %d --debuginfo files", DEBUGINFO_MAX);
		return -1;
	}
	sl = srcline_open(path, why, sizeof(why));
	if (!sl) {
		snprintf(d->why, sizeof(d->why), "%s", why);
		return -1;
	}
	d->sl[d->n] = sl;
	snprintf(d->path[d->n], sizeof(d->path[0]), "%s", path);
	d->n++;
	return 0;
}

static void search(struct debuginfo *d, const struct session *s)
{
	const char *dir = getenv("KJIT_DEBUG_DIR");
	char cand[3][600];
	int i;

	if (!dir || !*dir)
		dir = "/usr/lib/debug";
	cand[0][0] = 0;
	if (s->build_id[0])
		buildid_debug_path(dir, s->build_id, cand[0], sizeof(cand[0]));
	snprintf(cand[1], sizeof(cand[1]), "%s/boot/vmlinux-%s", dir,
		 s->kernel);
	snprintf(cand[2], sizeof(cand[2]), "%s/lib/modules/%s/vmlinux", dir,
		 s->kernel);
	for (i = 0; i < 3; i++)
		if (cand[i][0] && access(cand[i], R_OK) == 0 &&
		    add(d, cand[i]) == 0)
			break;
	for (i = 0; i < (int)s->n_mods; i++) {
		buildid_debug_path(dir, s->mods[i].build_id, cand[0],
				   sizeof(cand[0]));
		if (access(cand[0], R_OK) == 0)
			add(d, cand[0]);
	}
	if (d->n)
		return;
	snprintf(d->why, sizeof(d->why),
		 "no debug info for kernel %s (build-id %s) under %s; install "
		 "linux-image-%s-dbg or give --debuginfo PATH",
		 s->kernel[0] ? s->kernel : "?",
		 s->build_id[0] ? s->build_id : "not recorded", dir,
		 s->kernel[0] ? s->kernel : "REL");
}

int debuginfo_open(struct debuginfo *d, const struct session *s,
		   const char *const *paths, int n_paths)
{
	int i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < n_paths; i++)
		if (add(d, paths[i]))
			return -1;
	if (!n_paths)
		search(d, s);
	return 0;
}

void debuginfo_close(struct debuginfo *d)
{
	int i;

	for (i = 0; i < d->n; i++)
		srcline_close(d->sl[i]);
	d->n = 0;
}
