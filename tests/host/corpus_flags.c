/* corpus_flags.c - generated differential cases, one per flag reader.
 *
 * Every instruction that reads arithmetic flags, each in its own function
 * of one shape: block 0 sets all six flags from the inputs (add %rsi,%rax)
 * and jumps to block 1, whose first instruction is the reader. Nothing
 * else reads the flags before they die (xor %edx,%edx), so the flags live
 * at block 1's entry are exactly those the reader reads: a translator that
 * forgets one of them puts a bare `incq` there, and the reader sees the
 * counter's flags instead of the add's. The result holds what the reader
 * saw. Readers: jcc, setcc and cmovcc for all 16 conditions, adc, sbb,
 * rcl, rcr, cmc, lahf, pushfq, loope and loopne; shl_cl, a shift by %cl
 * that may be by 0 and then leaves the flags to the sets after it; and
 * jb_fall, a jcc that reads CF (which incq keeps) whose fall-through reads
 * OF.
 *
 * Inputs come from test_diff.c (overflowing, signed and carrying sums).
 * Same section and code generation flags as corpus.c.
 */
#include "tests/host/corpus.h"

/* all 16 condition codes, as the assembler spells them */
#define CONDS(X)                                                               \
	X(o) X(no) X(b) X(ae) X(e) X(ne) X(be) X(a) X(s) X(ns) X(p) X(np)      \
	    X(l) X(ge) X(le) X(g)

/* block 0: a C function's entry (its __fentry__ call, so a ret leaves
 * the flags dead), the flags from a + b, then block 1 */
#define HEAD(name)                                                             \
	".globl fr_" name "\n fr_" name ":\n"                                  \
	"  call corpus_fentry\n mov %rdi,%rax\n add %rsi,%rax\n jmp 1f\n1:"
/* the flags die, then the result: the sum * 2 + what the reader left in
 * %rcx */
#define TAIL "  xor %edx,%edx\n lea (%rcx,%rax,2),%rax\n ret\n"

#define SETCC(cc) HEAD("set" #cc) "  set" #cc " %cl\n movzbl %cl,%ecx\n" TAIL
#define CMOVCC(cc)                                                             \
	HEAD("cmov" #cc)                                                       \
	"  mov $0,%ecx\n mov $1,%edx\n cmov" #cc " %rdx,%rcx\n" TAIL
#define JCC(cc)                                                                \
	HEAD("j" #cc) "  j" #cc " 2f\n mov $0,%ecx\n" TAIL                     \
		      "2: mov $1,%ecx\n" TAIL

__asm__(".pushsection kjit_corpus,\"ax\",@progbits\n" CONDS(SETCC)
	    CONDS(CMOVCC) CONDS(JCC)
	/* carry readers: the result holds CF (and rcl/rcr's rotated bit) */
	HEAD("adc") "  mov $0,%ecx\n adc $0,%rcx\n" TAIL
	HEAD("sbb") "  mov $0,%ecx\n sbb $0,%rcx\n" TAIL
	HEAD("rcl") "  mov $4,%ecx\n rcl $1,%rcx\n" TAIL
	HEAD("rcr") "  mov $4,%ecx\n rcr $1,%rcx\n" TAIL
	HEAD("cmc") "  cmc\n mov $0,%ecx\n adc $0,%rcx\n" TAIL
	/* SF ZF AF PF CF into %ah; all of them through the stack */
	HEAD("lahf") "  lahf\n movzbl %ah,%ecx\n" TAIL
	HEAD("pushfq") "  pushfq\n pop %rcx\n and $0x8d5,%ecx\n" TAIL
	/* loope/loopne: %rcx 2 -> 1, taken if ZF is (not) set */
	HEAD("loope") "  mov $2,%ecx\n loope 2f\n mov $0,%ecx\n" TAIL
	"2: mov $1,%ecx\n" TAIL
	HEAD("loopne") "  mov $2,%ecx\n loopne 2f\n mov $0,%ecx\n" TAIL
	"2: mov $1,%ecx\n" TAIL
	/* a shift by %cl leaves the flags when %cl & 63 is 0 (a = 0, 64,
	 * 128 ...): sets then reads the add's SF */
	HEAD("shl_cl") "  mov %rdi,%rcx\n mov %rsi,%rdx\n shl %cl,%rdx\n"
	"  sets %cl\n movzbl %cl,%ecx\n" TAIL
	/* jb reads only CF, which incq keeps; its fall-through reads OF */
	HEAD("jb_fall") "  jb 2f\n seto %cl\n movzbl %cl,%ecx\n" TAIL
	"2: mov $2,%ecx\n" TAIL
	".popsection\n");

#define DECL(cc)                                                               \
	long fr_set##cc(long, long), fr_cmov##cc(long, long),                  \
	    fr_j##cc(long, long);
CONDS(DECL)
long fr_adc(long, long), fr_sbb(long, long), fr_rcl(long, long);
long fr_rcr(long, long), fr_cmc(long, long), fr_lahf(long, long);
long fr_pushfq(long, long), fr_loope(long, long), fr_loopne(long, long);
long fr_shl_cl(long, long), fr_jb_fall(long, long);

#define ENTRY(cc)                                                              \
	{"flags.set" #cc, fr_set##cc}, {"flags.cmov" #cc, fr_cmov##cc},        \
	    {"flags.j" #cc, fr_j##cc},
const struct corpus_case corpus_flag_cases[] = {
    CONDS(ENTRY){"flags.adc", fr_adc},
    {"flags.sbb", fr_sbb},
    {"flags.rcl", fr_rcl},
    {"flags.rcr", fr_rcr},
    {"flags.cmc", fr_cmc},
    {"flags.lahf", fr_lahf},
    {"flags.pushfq", fr_pushfq},
    {"flags.loope", fr_loope},
    {"flags.loopne", fr_loopne},
    {"flags.shl_cl", fr_shl_cl},
    {"flags.jb_fall", fr_jb_fall},
};
const unsigned corpus_n_flag_cases =
    sizeof(corpus_flag_cases) / sizeof(corpus_flag_cases[0]);
