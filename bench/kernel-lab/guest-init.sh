#!/bin/busybox sh
# guest-init.sh: /init of the kernel lab's busybox initramfs (packed by
# run-in-guest; do not run it on the host).
#
# What it does inside the guest, in order:
#   1. mounts proc/sys/dev for itself; brings up the loopback interface
#   2. mounts the 9p share "results" (the host's run-in-guest --out folder) on
#      /out and reads /out/.guest/config (written by run-in-guest):
#        OUTPATH   host path of the results folder (mounted at the same path
#                  inside the new root, so commands can use host paths)
#        OVERLAY_SIZE TMP_SIZE SHM_SIZE   tmpfs sizes
#        NSHARES, SHARE_1..SHARE_n        extra writable 9p shares
#                  (tags share1..sharen, mounted at the same host paths)
#   3. mounts the 9p share "hostroot" (host /) read-only, lays an overlay
#      with a tmpfs upper layer on it (so the guest can write anywhere;
#      writes vanish at power off)
#   4. in the new root: proc, sysfs, debugfs (/sys/kernel/debug), devtmpfs,
#      devpts, tmpfs on /dev/shm, /tmp (TMP_SIZE) and /run
#   5. chroots and runs OUTPATH/.guest/job.sh with /bin/bash of the host
#   6. writes the exit code to OUTPATH/exit-code, syncs, powers off
# Console lines of its own start with "kernel-lab:". Any failure before the
# command runs powers off without writing exit-code (run-in-guest reports it).
/bin/busybox mkdir -p /proc /sys /dev /bin /sbin /tmp
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1

log() { echo "kernel-lab: $*"; }
die() {
    log "FATAL: $*"
    sync
    poweroff -f
    sleep 5
    echo o > /proc/sysrq-trigger
}

ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null || log "warning: could not bring up lo"
hostname kernel-lab 2>/dev/null

O9P="trans=virtio,version=9p2000.L,msize=524288"
mkdir -p /out /lower /rw /newroot
mount -t 9p -o "$O9P" results /out || die "cannot mount 9p share 'results'"
[ -f /out/.guest/config ] || die "no /out/.guest/config in the results share"
. /out/.guest/config
[ -n "$OUTPATH" ] || die "OUTPATH not set in .guest/config"

mount -t 9p -o "$O9P,ro,cache=loose" hostroot /lower || die "cannot mount 9p share 'hostroot'"
mount -t tmpfs -o "size=${OVERLAY_SIZE:-1g},mode=0755" overlay-rw /rw || die "cannot mount tmpfs for the overlay"
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /newroot \
    || die "cannot mount the overlay on the host root"

R=/newroot
for d in proc sys dev tmp run; do mkdir -p "$R/$d"; done
mount -t proc proc "$R/proc" || die "mount proc"
mount -t sysfs sysfs "$R/sys" || die "mount sysfs"
mount -t debugfs debugfs "$R/sys/kernel/debug" || log "warning: cannot mount debugfs"
mount -t devtmpfs devtmpfs "$R/dev" || die "mount devtmpfs"
mkdir -p "$R/dev/pts" "$R/dev/shm"
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts "$R/dev/pts" || log "warning: cannot mount devpts"
mount -t tmpfs -o "size=${SHM_SIZE:-512m},mode=1777" shm "$R/dev/shm" || die "mount /dev/shm"
mount -t tmpfs -o "size=${TMP_SIZE:-1536m},mode=1777" tmp "$R/tmp" || die "mount /tmp"
mount -t tmpfs -o mode=0755 run "$R/run" || die "mount /run"
mkdir -p "$R/run/lock" && chmod 1777 "$R/run/lock"
# Recreate the host's /run/<dir> folders that daemons expect (e.g.
# /run/postgresql), empty, with the host's owner and mode.
for d in /lower/run/*; do
    [ -d "$d" ] && [ ! -L "$d" ] || continue
    n=${d#/lower/run/}
    case $n in user|systemd|lock) continue ;; esac
    mkdir -p "$R/run/$n"
    chown "$(stat -c %u:%g "$d")" "$R/run/$n" 2>/dev/null
    chmod "$(stat -c %a "$d")" "$R/run/$n" 2>/dev/null
done

mkdir -p "$R$OUTPATH" || die "cannot create $OUTPATH in the guest root"
mount --move /out "$R$OUTPATH" 2>/dev/null || mount -o move /out "$R$OUTPATH" \
    || die "cannot move the results share to $OUTPATH"
i=1
while [ "$i" -le "${NSHARES:-0}" ]; do
    eval "p=\$SHARE_$i"
    mkdir -p "$R$p" && mount -t 9p -o "$O9P" "share$i" "$R$p" || die "cannot mount share$i at $p"
    i=$((i + 1))
done

log "running job as root: $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs, $(awk '/MemTotal/{print int($2/1024) " MiB"}' /proc/meminfo)"
env -i TERM="${TERM:-linux}" chroot "$R" /bin/bash "$OUTPATH/.guest/job.sh" </dev/null
rc=$?
echo "$rc" > "$R$OUTPATH/exit-code.tmp" && mv "$R$OUTPATH/exit-code.tmp" "$R$OUTPATH/exit-code"
sync
log "job exit code $rc, powering off"
umount "$R$OUTPATH" 2>/dev/null
poweroff -f
sleep 5
echo o > /proc/sysrq-trigger
