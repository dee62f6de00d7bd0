# guest_hang - both CPUs spin with interrupts off: no case timeout can fire,
# so the rig's overall timeout must end QEMU and report FAIL.
# timeout: 20
insmod /lib/kjit/kjit_rigtest.ko action=hang
exit 0
