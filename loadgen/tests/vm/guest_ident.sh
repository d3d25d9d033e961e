#!/bin/busybox sh
# /init of the identification VM test (ident_in_vm.py): PID 1 of a throwaway Debian
# kernel with QEMU's emulated NVMe controller and AHCI SATA disk. It runs `loadgen info`
# (text and --json) on both, on a loop device and on a zram disk, and a short write run
# on each emulated disk, and hands every output to the host to judge: each file in
# base64 between "VMTEST FILE name" and "VMTEST END name". With VMTEST_CAPTURE=1 it
# also prints the raw Identify and health pages (capture_pages) for the parsers'
# fixtures. It prints "VMTEST START" first and ends with "VMTEST DONE" or
# "VMTEST FAIL: why" before it powers the VM off.

/bin/busybox --install -s
export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
echo  # end the firmware's last line
echo "VMTEST START"

say() { echo "VMTEST $*"; }
step() { say "STEP [$(cut -d' ' -f1 /proc/uptime) s] $*"; }
off() {
	sync
	poweroff -f
	sleep 30
	exit 1
}
fail() {
	say "FAIL: $*"
	off
}
hand_over() { # name file
	say "FILE $1"
	base64 "$2"
	say "END $1"
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

# No udev: the disks appear once their drivers have probed them.
for dev in /dev/nvme0n1 /dev/sda; do
	waited=0
	while [ ! -b $dev ] && [ $waited -lt 100 ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	[ -b $dev ] || fail "$dev did not appear"
done
step "disks: $(ls /sys/block | tr '\n' ' ')"

dd if=/dev/zero of=/tmp/loop.img bs=1M count=16 2>/dev/null
loop=$(losetup -f) && losetup "$loop" /tmp/loop.img || fail "no loop device"
zram=
if [ -e /sys/block/zram0 ] && echo 16M >/sys/block/zram0/disksize; then
	zram=/dev/zram0
fi
step "virtual disks: $loop ${zram:-(no zram)}"

info() { # name device
	loadgen info "$2" >/tmp/info-$1.txt 2>/tmp/info-$1.err || fail "loadgen info $2 exited $?"
	loadgen info --json "$2" >/tmp/info-$1.json 2>>/tmp/info-$1.err ||
		fail "loadgen info --json $2 exited $?"
	hand_over info-$1.txt /tmp/info-$1.txt
	hand_over info-$1.json /tmp/info-$1.json
	hand_over info-$1.err /tmp/info-$1.err
}
run() { # name device
	timeout 60 loadgen run --target "$2" --rw write --bs 128k --qd 4 --time 1 \
		--output /tmp/run-$1.json "--destroy-data=$2" >/tmp/run-$1.out 2>/tmp/run-$1.err
	status=$?
	step "loadgen run on $2 exited $status"
	[ $status -eq 0 ] || { sed 's/^/  | /' /tmp/run-$1.err; fail "loadgen run on $2 exited $status"; }
	hand_over run-$1.json /tmp/run-$1.json
	hand_over run-$1.out /tmp/run-$1.out
	hand_over run-$1.err /tmp/run-$1.err
}

info nvme /dev/nvme0n1
info sata /dev/sda
info loop "$loop"
[ -n "$zram" ] && info zram $zram
run nvme /dev/nvme0n1
run sata /dev/sda

if [ "${VMTEST_CAPTURE:-0}" = 1 ]; then
	capture_pages identify /dev/nvme0n1 >/tmp/nvme-identify.hex || fail "capture identify"
	capture_pages health /dev/nvme0n1 >/tmp/nvme-smart-log.hex || fail "capture nvme health"
	capture_pages health /dev/sda >/tmp/ata-smart-data.hex || fail "capture ata health"
	for page in nvme-identify nvme-smart-log ata-smart-data; do
		hand_over $page.hex /tmp/$page.hex
	done
fi
say "DONE"
off
