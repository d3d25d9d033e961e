#!/bin/busybox sh
# /init of the VM test (run_in_vm.py): PID 1 of a throwaway Debian kernel, in which
# it plays the integration test refuse-holders (tests/integration/refusals.py,
# holders) on a real device-mapper target:
#   a loop device over a 64 MiB file of random bytes, a dm-linear target over it;
#   loadgen writing the loop device must be refused (exit 3, by the holders check,
#   naming the dm device, no result document, the file unchanged); once the target
#   is removed, the same command must succeed and change the file.
# It prints "VMTEST START" first, then "VMTEST STEP ..." lines, the result document
# in base64 between "VMTEST DOC BEGIN" and "VMTEST DOC END", and ends with exactly one
# "VMTEST PASS" or "VMTEST FAIL: why" before it powers the VM off.
# /etc/vmtest.env may set VMTEST_NO_HOLDER=1 (a negative control: no dm target, so
# the refusal step must fail) and sanitizer options for loadgen.

/bin/busybox --install -s
export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
echo  # end the firmware's last line
echo "VMTEST START"

say() { echo "VMTEST $*"; }
step() { say "STEP [$(cut -d' ' -f1 /proc/uptime) s] $*"; }
off() {
	sync
	poweroff -f
	sleep 30  # not reached; if it were, PID 1 exiting panics and panic=-1 powers off
	exit 1
}
fail() {
	say "FAIL: $*"
	off
}

mount -t proc proc /proc &&
	mount -t sysfs sysfs /sys &&
	mount -t devtmpfs devtmpfs /dev &&
	mount -t tmpfs -o size=256m tmpfs /tmp ||
	fail "cannot mount proc, sysfs, devtmpfs and tmpfs"
. /etc/vmtest.env
step "kernel $(uname -r)"

while read -r module; do
	insmod "/lib/modules/$module.ko" || fail "insmod $module failed"
done </lib/modules/load-order

DEV_SIZE=$((64 << 20))
REFUSED=3
backing=/tmp/disk.img
out=/tmp/doc.json
dm_name=vmtest-holder

dd if=/dev/urandom of=$backing bs=1M count=$((DEV_SIZE >> 20)) 2>/dev/null || fail "cannot write $backing"
step "$backing: $DEV_SIZE random bytes"
loop=$(losetup -f) || fail "no free loop device"
losetup "$loop" $backing || fail "losetup $loop $backing failed"
holders_dir=/sys/class/block/${loop#/dev/}/holders
[ -d "$holders_dir" ] || fail "$holders_dir is missing"

if [ "${VMTEST_NO_HOLDER:-0}" = 1 ]; then
	step "negative control: no device-mapper target over $loop"
else
	# No udev here: libdevmapper makes /dev/mapper/$dm_name itself.
	DM_DISABLE_UDEV=1 dmsetup create $dm_name --table "0 $((DEV_SIZE / 512)) linear $loop 0" ||
		fail "dmsetup create $dm_name over $loop failed"
	holder=$(ls "$holders_dir")
	[ -n "$holder" ] || fail "$loop has no holder after dmsetup create"
	step "$loop is held by $holder"
fi

# The command line of refusals.py write_args(dev, out, --destroy-data=dev), with the
# same 60 s limit (a killed run exits 143).
run_loadgen() {
	timeout 60 loadgen run --target "$loop" --rw write --bs 128k --qd 1 --time 1 \
		--output $out --quiet "--destroy-data=$loop" >/tmp/stdout 2>/tmp/stderr
	status=$?
	step "loadgen exited $status; its stderr:"
	sed 's/^/  | /' /tmp/stderr
}

# expect_refusal. md5 tells a changed file as surely as the real test's sha256 does
# here, at half the cost under an emulated CPU.
before=$(md5sum <$backing)
run_loadgen
[ $status -eq $REFUSED ] || fail "loadgen exited $status, expected $REFUSED (refused) on a held device"
# The holders check must be the one that refused (not, say, the exclusive open that
# a held device also fails), naming the holder.
grep -q '(holders)' /tmp/stderr && grep -q "$holder" /tmp/stderr ||
	fail "the refusal is not the holders check naming $holder"
[ ! -e $out ] || fail "a refused run wrote $out"
[ "$(md5sum <$backing)" = "$before" ] || fail "a refused run changed $backing"
step "refused, nothing written"

if [ "${VMTEST_NO_HOLDER:-0}" != 1 ]; then
	DM_DISABLE_UDEV=1 dmsetup remove $dm_name || fail "dmsetup remove $dm_name failed"
	[ -z "$(ls "$holders_dir")" ] || fail "$loop still has holders: $(ls "$holders_dir")"
	step "removed $dm_name; $loop has no holder"
fi

# expect_success
before=$(md5sum <$backing)
run_loadgen
[ $status -eq 0 ] || fail "loadgen exited $status, expected 0 once the holder is gone"
[ -s $out ] || fail "no result document at $out"
[ "$(md5sum <$backing)" != "$before" ] || fail "a successful write run left $backing unchanged"
say "DOC BEGIN"
base64 $out
say "DOC END"
say "PASS"
off
