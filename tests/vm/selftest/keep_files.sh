# keep_files - a file a case keeps (lib.sh's keep) reaches the host whole:
# rig-selftest.sh compares its sha256 with the one printed here. This one
# must pass.
# timeout: 60
. /tests/lib.sh
head -c 300000 /dev/urandom > /tmp/blob
echo "KEEP-SUM $(sha256sum /tmp/blob | cut -d' ' -f1)"
keep /tmp/blob
