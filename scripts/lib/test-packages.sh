# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# shellcheck disable=SC2034 # the lists are for the scripts that source this file
# Sourced by scripts/test and scripts/fresh-rehearsal.
# Every Debian package that any stage of scripts/test needs on this machine. scripts/test installs them all
# before the stages that run side by side, so that a fresh machine runs one apt-get and fetches the package lists
# once. The scripts the stages run install what they need themselves too (through scripts/lib/apt.sh, which
# waits its turn), for when they run alone; under scripts/test they find it installed.
test_packages=(
  # the build: Maven, the agent's native libraries for x86_64 and arm64, libnuma for the backends' tests
  libnuma1 maven gcc make gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu libc6-dev-arm64-cross
  # the pictures (rsvg-convert), the man pages (asciidoctor), the tests' JSON (jq), their locales
  jq librsvg2-bin asciidoctor locales
  # watch: systemd-analyze checks its unit; the guests (which see this host's /) run ethtool -L and scrape with
  # curl, and vm-checks-rss reads netdev netlink with python3
  systemd ethtool curl python3
  # the minimal Debian roots (clean-root, deb-check, the test image, the guests' trixie, sid and arm64 roots)
  mmdebstrap
  # the container engine (scripts/container-engine)
  podman runc conmon netavark aardvark-dns iptables
  # the guests (scripts/vm-test, scripts/vm-test-arm64): bookworm's QEMU, the initramfs's busybox and modules
  qemu-system-x86 qemu-system-arm device-tree-compiler busybox-static kmod xz-utils
  # the bindings check, shellcheck and shfmt
  libnuma-dev binutils shellcheck shfmt
)

# Those of test_packages that a fresh Debian 12 machine of this project's kind already has: the rehearsal of a
# fresh machine (scripts/fresh-rehearsal) purges all the others, which scripts/test must then install itself.
fresh_machine_packages=(libnuma1 maven gcc make jq locales systemd curl python3 xz-utils binutils)
