/* corpus.h - the differential test corpus: small functions compiled with
 * kernel-like flags (-O2 -mno-red-zone -fno-pie -mgeneral-regs-only), all in
 * section kjit_corpus so the host dispatcher knows what to translate.
 */
#ifndef KJIT_TESTS_HOST_CORPUS_H
#define KJIT_TESTS_HOST_CORPUS_H

typedef long (*corpus_fn)(long a, long b);

struct corpus_case {
	const char *name;
	corpus_fn fn;
};

extern const struct corpus_case corpus_cases[];
extern const unsigned corpus_n_cases;
/* one case per flag-reading instruction (corpus_flags.c) */
extern const struct corpus_case corpus_flag_cases[];
extern const unsigned corpus_n_flag_cases;
extern char __start_kjit_corpus[], __stop_kjit_corpus[];

/* special symbols the translator must recognise (like the kernel's) */
long corpus_fentry(void);
long corpus_return_thunk(void);
long corpus_thunk_rax(void);
long corpus_thunk_r11(void);

void corpus_reset(void);	  /* reset global state */
unsigned long corpus_state(void); /* checksum of global state */

#endif
