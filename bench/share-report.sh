#!/bin/sh
# share-report.sh - the table of docs/results/share.md from one run of
# bench/share.sh: the guest's KJIT-SHARE lines (what kjit counted in each
# window) and KSYM lines, and bench_share's WINDOW and NATIVE lines (what
# ran natively under a root in the same windows, window n = the n-th
# KJIT-SHARE line).
# Usage: bench/share-report.sh GUEST_OUTPUT WINDOWS
guest=$1 windows=$2
ksyms=$(mktemp)
trap 'rm -f "$ksyms"' EXIT
# kallsyms by address (16 hex digits each: text order is number order)
sed -n 's/^KSYM //p' "$guest" | sort > "$ksyms"
awk '
BEGIN { ns = 0; nk = 0 }
FNR == 1 { file = FILENAME == ARGV[1] ? 1 : FILENAME == ARGV[2] ? 2 : 3 }
file == 1 { kx[nk] = hex($1); kn2[nk] = $2; nk++; next }
file == 2 && /^KJIT-SHARE / {
	name[ns] = $2
	for (i = 3; i <= NF; i++) { split($i, kv, "="); v[ns, kv[1]] = kv[2] }
	ns++
}
file == 3 && /^WINDOW / {
	w = $2; nw = w + 1
	for (i = 3; i <= NF; i++) { split($i, kv, "="); h[w, kv[1]] = kv[2] }
}
file == 3 && /^NATIVE / { top[w] = top[w] " " $2 ":" $3 }
# the low 32 bits: kernel text lies in the top 2 GiB (same high half), and
# awk numbers are doubles
function hex(s,   i, c, n) {
	n = 0
	s = substr(s, length(s) - 7)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(tolower(s), i, 1)) - 1
		n = n * 16 + c
	}
	return n
}
function name_of(a,   lo, hi, mid, x) {
	x = hex(a); lo = 0; hi = nk - 1
	if (nk == 0 || x < kx[0]) return a
	while (lo < hi) { mid = int((lo + hi + 1) / 2); if (kx[mid] <= x) lo = mid; else hi = mid - 1 }
	return kn2[lo]
}
END {
	# The oracle saw a window only if it stepped at least the instructions
	# kjit counted in it (it steps those and more: user code, the code of kjit);
	# one that stepped fewer (a run whose helper got no roots stepped 1
	# instruction a window) gives no share at all, not a 100%.
	m = ns < nw ? ns : nw
	blind = ""
	for (i = 0; i < m; i++)
		if (h[i, "steps"] + 0 < v[i, "insns"] + 0)
			blind = blind (blind == "" ? "" : ", ") name[i] " (" h[i, "steps"] + 0 " steps, " v[i, "insns"] + 0 " counted)"
	if (blind != "") {
		printf "The oracle did not step these windows - fewer instructions stepped than kjit counted in them - so no share is reported: %s\n", blind
		exit 1
	}
	print "| benchmark | ops | counted blocks/op | native blocks/op | switch-in blocks/op | blocks counted | the same, switch-ins apart | counted insns/op | native insns/op | insns counted | kjit'"'"'s own insns/op (entry sites, thunks, kernel calls of kjit.ko) | native code (instructions in the window, top six functions) |"
	print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
	for (i = 0; i < m; i++) {
		ops = v[i, "ops"]; cb = v[i, "blocks"]; ci = v[i, "insns"]
		nb = h[i, "native_blocks"]; ni = h[i, "native_insns"]
		# second halves of switches made natively into a root task
		# (absent from the WINDOW lines of older runs: 0)
		xb = h[i, "switch_blocks"] + 0; xi = h[i, "switch_insns"] + 0
		en = h[i, "site_insns"] + h[i, "thunk_insns"] + h[i, "kjit_insns"]
		sb = cb + nb + xb > 0 ? 100 * cb / (cb + nb + xb) : 0
		sa = cb + nb > 0 ? 100 * cb / (cb + nb) : 0
		si = ci + ni + xi > 0 ? 100 * ci / (ci + ni + xi) : 0
		tb += cb; tnb += nb; txb += xb; ti += ci; tni += ni; txi += xi
		if (i == 0 || sb < minb) { minb = sb; minb_n = name[i] }
		if (i == 0 || sa < mina) { mina = sa; mina_n = name[i] }
		# the native instructions, by function
		delete byf; nf = 0; desc = ""
		split(top[i], t, " ")
		for (k in t) { split(t[k], pc, ":"); f = name_of(pc[1]); byf[f] += pc[2] }
		# the six functions with the most native instructions
		for (r = 0; r < 6; r++) {
			best = ""
			for (f in byf) if (best == "" || byf[f] > byf[best]) best = f
			if (best == "") break
			desc = desc (desc == "" ? "" : ", ") best " " byf[best]
			delete byf[best]
		}
		printf "| %s | %d | %.1f | %.1f | %.1f | %.2f%% | %.2f%% | %.0f | %.0f | %.2f%% | %.1f | %s |\n",
			name[i], ops, cb / ops, nb / ops, xb / ops, sb, sa,
			ci / ops, (ni + xi) / ops, si, en / ops,
			desc == "" ? "none" : desc
	}
	printf "\nAll windows: %d of %d block executions under the roots ran counted (%.2f%%), %d of %d instructions (%.2f%%); the lowest share: %s (%.2f%%).\n",
		tb, tb + tnb + txb, tb + tnb + txb ? 100 * tb / (tb + tnb + txb) : 0,
		ti, ti + tni + txi, ti + tni + txi ? 100 * ti / (ti + tni + txi) : 0,
		minb_n, minb
	printf "With the switch-in halves apart (%d block executions: native switches into a task inside a root): %d of %d (%.2f%%); the lowest: %s (%.2f%%).\n",
		txb, tb, tb + tnb, tb + tnb ? 100 * tb / (tb + tnb) : 0, mina_n, mina
	if (ns != nw) printf "\nWarning: %d kjit windows and %d stepped windows: paired the first %d.\n", ns, nw, m
}' "$ksyms" "$guest" "$windows"
