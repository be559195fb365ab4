# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Debian sid's root (scripts/vm/sid-udev-root, built on the host) in a chroot inside a guest, for the tools the
# guest has not: systemd-udevd 262 and udevadm, which place a NIC's IRQs from a .link file, and irqbalance 1.9.4.
# The chroot sees the kernel's /proc, /sys and /dev, has a /run of its own whose udev/ is the guest's /run/udev
# (so that numaspread, outside, reads udev's database as on a real machine) and a writable
# /etc/systemd/network. Used by scripts/vm-checks-udev-link and scripts/vm-measure-placements (source after
# checks.sh); VM_NIC_DRIVER names the NIC's driver.

readonly chroot=/run/udev-sid
readonly link_name=10-numaspread-check.link
# shellcheck disable=SC2034 # dropin is scripts/vm-checks-udev-link's
readonly link=/etc/systemd/network/$link_name dropin=/etc/systemd/network/$link_name.d/numaspread.conf

# sid ARGS...: runs a command of sid's root in its chroot. systemd's tools refuse to act in a chroot unless told
# (the guest's command runs in one too); udevd's log goes to the kernel's ring buffer.
sid() {
  chroot "$chroot" /usr/bin/env SYSTEMD_IGNORE_CHROOT=1 SYSTEMD_LOG_TARGET=kmsg "$@"
}

# mount_sid ROOT: mounts the chroot of sid's ROOT (shown read-only from the host) at $chroot; fails if a step does.
mount_sid() {
  mkdir -p "$chroot" /run/udev
  mount --bind "$1" "$chroot" && mount -t proc proc "$chroot/proc" && mount --rbind /sys "$chroot/sys" &&
    mount --rbind /dev "$chroot/dev" && mount -t tmpfs -o mode=755 run "$chroot/run" &&
    mkdir "$chroot/run/udev" "$chroot/run/irqbalance" && mount --bind /run/udev "$chroot/run/udev" &&
    mount -t tmpfs -o mode=755 network "$chroot/etc/systemd/network" && mkdir "$chroot$link.d"
}

# write_link POLICY [LINE...]: the .link matching the NIC by its driver, with IRQAffinityPolicy=POLICY and the
# further [Link] LINEs; udevd reloads it.
write_link() {
  local policy=$1
  shift
  printf '[Match]\nDriver=%s\n\n[Link]\nIRQAffinityPolicy=%s\n' "$VM_NIC_DRIVER" "$policy" >"$chroot$link"
  (($#)) && printf '%s\n' "$@" >>"$chroot$link"
  sid udevadm control --reload
  check_equal "udevadm control --reload after IRQAffinityPolicy=$policy${1:+ $*} exits 0" 0 $?
}

# trigger LABEL: replays the NIC's add event through udevd and waits until it is handled.
trigger() {
  sid udevadm trigger --action=add --settle "/sys/class/net/$VM_NIC"
  check_equal "$1: udevadm trigger --action=add --settle $VM_NIC exits 0" 0 $?
}
