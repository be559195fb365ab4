# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# The kernel's netdev netlink answers about the guest's NIC ($VM_NIC), read and written with python3's plain
# sockets (generic netlink), never through numaspread: the check scripts judge numaspread by them (source it; bash).
# "-" stands where the kernel reports nothing.

# "Q NAPI IRQ" for each receive queue of the NIC, as netdev netlink (Linux 6.8+) links them: queue-get's NAPI ID
# of each rx queue, napi-get's IRQ of that NAPI; a queue linked to no NAPI is left out. The kernel's own map, so
# that a check judges connections by something numaspread did not read.
netdev_rx_queues() { netdev_netlink queues; }

# "Q NAPI" for each transmit queue of the NIC that queue-get links to a NAPI.
netdev_tx_queues() { netdev_netlink tx-queues; }

# "NAPI IRQ" for each NAPI instance of the NIC that napi-get lists, by NAPI ID.
netdev_napis() { netdev_netlink napis; }

# "NAPI THREADED PID" for each NAPI instance, by NAPI ID: its own threaded (0 off, 1 on, 2 busy-poll; Linux 6.17+)
# and its thread's PID.
netdev_threaded() { netdev_netlink threaded; }

# "NAPI IRQ DEFER GRO SUSPEND" for each NAPI instance: its IRQ and its own defer-hard-irqs, gro-flush-timeout and
# irq-suspend-timeout (ns; Linux 6.13+).
netdev_napi_settings() { netdev_netlink settings; }

# "NAPI RXQUEUE THREADED PID IRQ DEFER GRO SUSPEND" for each NAPI instance, by NAPI ID: all of the above in one line.
netdev_napi_table() { netdev_netlink table; }

# netdev_napi_set NAPI DEFER GRO [SUSPEND]: napi-set of one NAPI's defer-hard-irqs, gro-flush-timeout and, when
# given, irq-suspend-timeout (ns).
netdev_napi_set() { netdev_netlink set "$@"; }

# netdev_threaded_set NAPI THREADED: napi-set of one NAPI's threaded.
netdev_threaded_set() { netdev_netlink set-threaded "$@"; }

# netdev_netlink LISTING [ARGS...]: the one reader (and writer) behind the ones above.
netdev_netlink() {
  python3 - "$(</sys/class/net/"$VM_NIC"/ifindex)" "$@" <<'PY'
import socket, struct, sys

ifindex, listing, args = int(sys.argv[1]), sys.argv[2], [int(word) for word in sys.argv[3:]]
sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)  # NETLINK_GENERIC
sequence = 0


def attributes(data):
    found, offset = {}, 0
    while offset + 4 <= len(data):
        length, kind = struct.unpack_from("HH", data, offset)
        found[kind & 0x3FFF] = data[offset + 4:offset + length]
        offset += (length + 3) & ~3
    return found


def request(family, command, dump, attribute, ack=False):
    """Sends one generic netlink request; returns the attributes of each reply message. With ack, the kernel's
    acknowledgement is the reply (a command that has none, napi-set, would leave recv waiting)."""
    global sequence
    sequence += 1
    body = struct.pack("BBH", command, 1, 0) + attribute
    flags = 1 | (0x300 if dump else 0) | (4 if ack else 0)  # NLM_F_REQUEST, NLM_F_DUMP, NLM_F_ACK
    sock.send(struct.pack("IHHII", 16 + len(body), family, flags, sequence, 0) + body)
    replies = []
    while True:
        data, offset = sock.recv(65536), 0
        while offset < len(data):
            length, kind = struct.unpack_from("IH", data, offset)
            if kind == 3:  # NLMSG_DONE
                return replies
            if kind == 2:  # NLMSG_ERROR: an error, or the acknowledgement (0)
                error = struct.unpack_from("i", data, offset + 16)[0]
                if error:
                    sys.exit(f"netdev netlink: error {error} for command {command}")
                return replies
            replies.append(attributes(data[offset + 20:offset + length]))
            offset += (length + 3) & ~3
        if not dump:
            return replies


def u32(kind, number):
    return struct.pack("HHI", 8, kind, number)


def u64(kind, number):
    return struct.pack("<HHQ", 12, kind, number)  # no padding before the u64


def value(attrs, kind):
    """A u32 or uint attribute (a uint comes as 4 or 8 bytes), or "-" where the kernel sent none."""
    return int.from_bytes(attrs[kind], "little") if kind in attrs else "-"


name = b"netdev\0"
named = struct.pack("HH", 4 + len(name), 2) + name + b"\0" * (-len(name) % 4)  # CTRL_ATTR_FAMILY_NAME
family = struct.unpack("H", request(0x10, 3, False, named)[0][1][:2])[0]  # CTRL_CMD_GETFAMILY -> FAMILY_ID
if listing == "set":
    # NAPI_SET (14): NAPI_ID (2), NAPI_DEFER_HARD_IRQS (5, u32), NAPI_GRO_FLUSH_TIMEOUT (6) and
    # NAPI_IRQ_SUSPEND_TIMEOUT (7), both uint, sent as u64.
    napi_id, defer, gro, *suspend = args
    request(family, 14, False, u32(2, napi_id) + u32(5, defer) + u64(6, gro) + b"".join(u64(7, s) for s in suspend),
            ack=True)
    sys.exit()
if listing == "set-threaded":
    request(family, 14, False, u32(2, args[0]) + u32(8, args[1]), ack=True)  # NAPI_ID (2), NAPI_THREADED (8)
    sys.exit()
# NAPI_GET (11), dump by NAPI_IFINDEX (1): NAPI_ID (2), IRQ (3), PID (4), DEFER_HARD_IRQS (5),
# GRO_FLUSH_TIMEOUT (6), IRQ_SUSPEND_TIMEOUT (7), THREADED (8)
napis = sorted(request(family, 11, True, u32(1, ifindex)), key=lambda napi: value(napi, 2))
fields = {"napis": (2, 3), "threaded": (2, 8, 4), "settings": (2, 3, 5, 6, 7)}
if listing in fields:
    for napi in napis:
        print(*(value(napi, kind) for kind in fields[listing]))
    sys.exit()
# QUEUE_GET (10), dump by QUEUE_IFINDEX (2): QUEUE_ID (1), QUEUE_TYPE (3, rx 0, tx 1), QUEUE_NAPI_ID (4)
queues = [queue for queue in request(family, 10, True, u32(2, ifindex)) if 4 in queue]
irq_of = {value(napi, 2): value(napi, 3) for napi in napis}
if listing == "table":
    rx_queue = {value(queue, 4): value(queue, 1) for queue in queues if value(queue, 3) == 0}
    for napi in napis:
        print(value(napi, 2), rx_queue.get(value(napi, 2), "-"), *(value(napi, kind) for kind in (8, 4, 3, 5, 6, 7)))
elif listing == "tx-queues":
    for queue in queues:
        if value(queue, 3) == 1:
            print(value(queue, 1), value(queue, 4))
elif listing == "queues":
    for queue in queues:
        if value(queue, 3) == 0:
            print(value(queue, 1), value(queue, 4), irq_of.get(value(queue, 4), "-"))
else:
    sys.exit(f"netdev netlink: no listing {listing}")
PY
}

# Steps of the busy-poll checks (vm-checks-poll, -poll-loops, -watch-poll; source checks.sh first).

# print_threaded WHEN: napi-get's "NAPI THREADED PID" lines under a heading saying WHEN, kept in $threaded.
print_threaded() {
  threaded=$(netdev_threaded)
  echo "napi-get $1 (NAPI threaded pid):"
  echo "$threaded"
}

# check_rx_queue0_napi: rx queue 0's NAPI, which queue-get must link; kept in $queue0_napi.
check_rx_queue0_napi() {
  queue0_napi=$(netdev_rx_queues | awk '$1 == 0 { print $2 }')
  check_equal "queue-get links rx queue 0 to a NAPI" yes "$([[ $queue0_napi =~ ^[0-9]+$ ]] && echo yes)"
}

# check_busy_poll_thread: after apply --poll-queues 1, napi-get reports $queue0_napi threaded 2 with a PID that is
# its kernel thread (print_threaded's $threaded); the PID is kept in $pid.
check_busy_poll_thread() {
  print_threaded "after apply"
  check_equal "napi-get: NAPI $queue0_napi is threaded 2 (busy-poll)" 2 \
    "$(awk -v id="$queue0_napi" '$1 == id { print $2 }' <<<"$threaded")"
  pid=$(awk -v id="$queue0_napi" '$1 == id { print $3 }' <<<"$threaded")
  check_napi_thread "$pid" "$queue0_napi"
}

# check_threaded_back BEFORE NOW: every NAPI's threaded in NOW (print_threaded's $threaded) is as in BEFORE.
check_threaded_back() {
  check_equal "napi-get: every NAPI's threaded is back as it was" "$(awk '{ printf "%s:%s ", $1, $2 }' <<<"$1")" \
    "$(awk '{ printf "%s:%s ", $1, $2 }' <<<"$2")"
}
