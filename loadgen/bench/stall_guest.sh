#!/bin/busybox sh
# /init of loadgen/bench/stall_vm.py: PID 1 of a throwaway Debian kernel with
# device-mapper's delay target. A loop device over a 64 MiB file of random bytes, a
# `delay` target over it with no delay; three read-only 4KB random read runs of 6 s at
# QD4 on the dm device, each on its own: paced at $RATE IOPS with the delay raised to
# $STALL_MS ms from 2 s to 3 s (the stall), unpaced (closed loop) with the same stall, and
# paced without one (the baseline). Each document is printed in base64 between
# "STALL DOC BEGIN name" and "STALL DOC END"; "STALL DONE" ends, or "STALL FAIL: why".
# /etc/stall.env sets RATE and STALL_MS.

/bin/busybox --install -s
export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
echo
echo "STALL START"
fail() {
	echo "STALL FAIL: $*"
	sync
	poweroff -f
	sleep 30
	exit 1
}
mount -t proc proc /proc && mount -t sysfs sysfs /sys && mount -t devtmpfs devtmpfs /dev &&
	mount -t tmpfs -o size=256m tmpfs /tmp || fail "cannot mount proc, sysfs, devtmpfs, tmpfs"
. /etc/stall.env
while read -r module; do
	insmod "/lib/modules/$module.ko" || fail "insmod $module failed"
done </lib/modules/load-order

SIZE=$((64 << 20))
SECTORS=$((SIZE / 512))
dd if=/dev/urandom of=/tmp/disk.img bs=1M count=$((SIZE >> 20)) 2>/dev/null || fail "dd failed"
loop=$(losetup -f) && losetup "$loop" /tmp/disk.img || fail "losetup failed"
export DM_DISABLE_UDEV=1 # no udev: libdevmapper makes /dev/mapper/slow itself
dmsetup create slow --table "0 $SECTORS delay $loop 0 0" || fail "dmsetup create (delay) failed"
dev=/dev/mapper/slow

# The delay of every I/O from now on, in ms: the new table takes over at the resume.
delay() {
	dmsetup load slow --table "0 $SECTORS delay $loop 0 $1" && dmsetup suspend slow &&
		dmsetup resume slow || fail "cannot set the delay to $1 ms"
	echo "STALL STEP [$(cut -d' ' -f1 /proc/uptime) s] delay $1 ms"
}

# run NAME STALL(0|1) [loadgen options]
run() {
	name=$1 stall=$2
	shift 2
	loadgen run --target $dev --rw randread --qd 4 --time 6 --seed 46 --quiet \
		--output /tmp/$name.json "$@" 2>/tmp/$name.err &
	pid=$!
	if [ "$stall" = 1 ]; then
		sleep 2
		delay "$STALL_MS"
		sleep 1
		delay 0
	fi
	wait $pid || fail "loadgen ($name) exited $?: $(tail -3 /tmp/$name.err)"
	echo "STALL DOC BEGIN $name"
	base64 /tmp/$name.json
	echo "STALL DOC END"
}

run paced-stall 1 --rate "$RATE"
run unpaced-stall 1
run paced-baseline 0 --rate "$RATE"
echo "STALL DONE"
sync
poweroff -f
