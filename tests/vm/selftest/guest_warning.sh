# guest_warning - the kernel logs a WARNING while the case passes: the rig must
# still report FAIL (from the guest's dmesg and from the console log).
# timeout: 30
insmod /lib/kjit/kjit_rigtest.ko action=warn
rmmod kjit_rigtest
exit 0
