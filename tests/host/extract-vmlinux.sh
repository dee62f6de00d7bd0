#!/bin/sh
# extract-vmlinux.sh - unpack the ELF vmlinux from a bzImage.
#
# Finds the payload by its compression magic (the one the kernel config
# names: CONFIG_KERNEL_XZ/ZSTD/GZIP/LZMA/BZIP2/LZ4) and decompresses it with
# the matching Debian tool, checking the result is an ELF file.
#
# Usage: extract-vmlinux.sh VMLINUZ CONFIG OUT
set -eu
IMG=$1
CONFIG=$2
OUT=$3

comp=$(sed -n 's/^CONFIG_KERNEL_\(GZIP\|XZ\|ZSTD\|LZMA\|BZIP2\|LZ4\)=y$/\1/p' "$CONFIG")
case $comp in
XZ)    magic='\3757zXZ\000'; tool='xz -dc --single-stream' ;;
ZSTD)  magic='(\265/\375';    tool='zstd -dc' ;;
GZIP)  magic='\037\213\010';  tool='gzip -dc' ;;
LZMA)  magic='\135\000\000\000'; tool='xz -dc --format=lzma' ;;
BZIP2) magic='BZh';           tool='bzip2 -dc' ;;
*) echo "extract-vmlinux: unsupported compression '$comp'" >&2; exit 1 ;;
esac

tmp=$OUT.tmp
for off in $(LC_ALL=C grep -obUaP "$(printf "$magic" | od -An -tx1 | \
		sed 's/ \([0-9a-f][0-9a-f]\)/\\x\1/g; s/^ *//')" "$IMG" | cut -d: -f1); do
	if tail -c +$((off + 1)) "$IMG" | $tool > "$tmp" 2>/dev/null ||
	   [ -s "$tmp" ]; then
		if [ "$(head -c 4 "$tmp" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
			mv "$tmp" "$OUT"
			exit 0
		fi
	fi
done
rm -f "$tmp"
echo "extract-vmlinux: no $comp payload found in $IMG" >&2
exit 1
