# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Reads a topology definition (scripts/vm/topologies/NAME) for vm-test on the host and the checks in the guest.
# A definition is bash that sets:
#   smp        QEMU's -smp layout, "sockets=S,cores=C,threads=T" (CPUs are numbered socket, core, thread);
#              arm64 guests may add clusters=L (cores per cluster: C, cores per socket: L x C)
#   node_cpus  one cpulist per node, "" for a memory-only node
#   distances  one row of the distance matrix per node ("10 21")
#   nic_node   the node whose PCI host bridge holds the NIC (vm-test --nic-node overrides it)
# load_topology also derives cpu_count, node_count, cores_per_socket, cores_per_cluster and threads_per_core.
# shellcheck disable=SC2034 # the variables are for the scripts that source this file
load_topology() {
  # shellcheck source=topologies/mana
  source "$1"
  local part
  cpu_count=1 cores_per_socket=1 cores_per_cluster=1 threads_per_core=1
  for part in ${smp//,/ }; do
    cpu_count=$((cpu_count * ${part#*=}))
    case ${part%%=*} in
      clusters) cores_per_socket=$((cores_per_socket * ${part#*=})) ;;
      cores) cores_per_socket=$((cores_per_socket * ${part#*=})) cores_per_cluster=${part#*=} ;;
      threads) threads_per_core=${part#*=} ;;
    esac
  done
  node_count=${#node_cpus[@]}
}
