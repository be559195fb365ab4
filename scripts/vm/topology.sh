# shellcheck shell=bash
# Reads a topology definition (scripts/vm/topologies/NAME) for vm-test on the host and the checks in the guest.
# Sets smp, node_cpus, distances and nic_node (from the file) and cpu_count, node_count, cores_per_socket and
# threads_per_core (derived).
load_topology() {
  # shellcheck source=topologies/mana
  source "$1"
  local part
  cpu_count=1 cores_per_socket=1 threads_per_core=1
  for part in ${smp//,/ }; do
    cpu_count=$((cpu_count * ${part#*=}))
    case ${part%%=*} in
      cores) cores_per_socket=${part#*=} ;;
      threads) threads_per_core=${part#*=} ;;
    esac
  done
  node_count=${#node_cpus[@]}
}
