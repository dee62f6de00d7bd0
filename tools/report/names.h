/* names.h - human names for the module's statistics codes. */
#ifndef KJIT_TOOL_NAMES_H
#define KJIT_TOOL_NAMES_H

/* Short stable key ("nmi") and a phrase for people, by enum kjit_fallback
 * (kmod/session.h); "?" keys for unknown codes. */
const char *fallback_key(unsigned int i);
const char *fallback_text(unsigned int i);

/* Phrase for a translator refusal code (enum kjit_reason, jit/reason.h);
 * its key is kjit_reason_name(). */
const char *reason_text(unsigned int r);

/* "gs_reg/lahf": a block counter's form and flags handling (enum
 * kjit_ctr_form, enum kjit_flagsave; jit/instrument.h names both). */
const char *names_counter(unsigned int form, unsigned int seq);

#endif
