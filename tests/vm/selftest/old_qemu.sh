# old_qemu - asks for multi-threaded TCG and passes; run with KJIT_VM_QEMU
# naming a QEMU older than 10, the rig must refuse to boot it and fail it.
# tcg: multi
# timeout: 30
exit 0
