#!/bin/busybox sh
# guest-init.sh: /init of the arm64 lab's initramfs (busybox sh, PID 1 of
# the qemu-system-aarch64 guest).  Never run on the host.
#
# Mounts proc, sys, devtmpfs, /dev/pts, tmpfs on /tmp and /dev/shm, brings
# up lo, runs /lab/guest-checks /out (its output on the console), then
# prints /out as a base64 tar.gz between the lines
#   ===== arm64-lab results begin =====
#   ===== arm64-lab results end =====
# and "arm64-lab guest exit N" (guest-checks' exit status), and powers off.
# The host (bench/arm64-lab/arm64-lab) cuts the results out of the console
# log.  Kernel command line: arm64lab.env=NAME=VALUE,... is exported first
# (e.g. LAB_HOGS=2,LAB_SKIP=regress).
export PATH=/usr/local/pgsql/bin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs -o size=512m tmpfs /dev/shm
mount -t tmpfs -o size=1536m,mode=1777 tmpfs /tmp
ip link set lo up
hostname arm64-lab
for a in $(cat /proc/cmdline); do
  case $a in
    arm64lab.env=*) for kv in $(echo "${a#arm64lab.env=}" | tr ',' ' '); do export "$kv"; done ;;
  esac
done
echo "arm64-lab guest: $(uname -r) $(uname -m), $(nproc) CPUs, $(awk '/MemTotal/ {print $2}' /proc/meminfo) kB"
/lab/guest-checks /out
rc=$?
echo "arm64-lab guest-checks exit $rc"
echo 1 > /proc/sys/kernel/printk   # no kernel message inside the archive
sleep 1
echo "===== arm64-lab results begin ====="
tar -C /out -czf - . | base64
echo "===== arm64-lab results end ====="
echo "arm64-lab guest exit $rc"
sync
poweroff -f
