# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# The kernel's netdev netlink answers about the guest's NIC ($VM_NIC), read and written with python3's plain
# sockets (generic netlink), never through numaspread: the check scripts judge numaspread by them (source it; bash).

# netdev_napis: "NAPI RXQUEUE THREADED PID IRQ DEFER GRO SUSPEND" per NAPI of the NIC, by NAPI ID, from napi-get
# and queue-get ("-" where the kernel reports none): its rx queue, its own threaded (Linux 6.17+), thread PID, IRQ,
# and defer-hard-irqs, gro-flush-timeout and irq-suspend-timeout (ns; Linux 6.13+).
# netdev_napis set ID VALUE: napi-set of that NAPI's threaded.
# netdev_napis settings ID DEFER GRO SUSPEND: napi-set of that NAPI's defer-hard-irqs, gro-flush-timeout and
# irq-suspend-timeout.
netdev_napis() {
  python3 - "$(</sys/class/net/"$VM_NIC"/ifindex)" "$@" <<'PY'
import socket, struct, sys

ifindex = int(sys.argv[1])
sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)  # NETLINK_GENERIC
sequence = 0


def attributes(data):
    found, offset = {}, 0
    while offset + 4 <= len(data):
        length, kind = struct.unpack_from("HH", data, offset)
        found[kind & 0x3FFF] = data[offset + 4:offset + length]
        offset += (length + 3) & ~3
    return found


def request(family, command, flags, attribute):
    """Sends one generic netlink request; returns the attributes of each reply message."""
    global sequence
    sequence += 1
    body = struct.pack("BBH", command, 1, 0) + attribute
    sock.send(struct.pack("IHHII", 16 + len(body), family, 1 | flags, sequence, 0) + body)  # NLM_F_REQUEST
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
        if not flags & 0x300:
            return replies


def u32(kind, number):
    return struct.pack("HHI", 8, kind, number)


def u64(kind, number):
    return struct.pack("<HHQ", 12, kind, number)  # no padding before the u64


def value(attrs, kind):
    return int.from_bytes(attrs[kind], "little") if kind in attrs else "-"


name = b"netdev\0"
named = struct.pack("HH", 4 + len(name), 2) + name + b"\0" * (-len(name) % 4)  # CTRL_ATTR_FAMILY_NAME
family = struct.unpack("H", request(0x10, 3, 0, named)[0][1][:2])[0]  # CTRL_CMD_GETFAMILY -> FAMILY_ID
if sys.argv[2:3] == ["set"]:
    # NAPI_SET (14), acknowledged (NLM_F_ACK): NAPI_ID (2) and NAPI_THREADED (8).
    request(family, 14, 4, u32(2, int(sys.argv[3])) + u32(8, int(sys.argv[4])))
    sys.exit(0)
if sys.argv[2:3] == ["settings"]:
    # NAPI_SET: NAPI_ID (2), NAPI_DEFER_HARD_IRQS (5, u32), NAPI_GRO_FLUSH_TIMEOUT (6) and
    # NAPI_IRQ_SUSPEND_TIMEOUT (7), both uint, sent as u64.
    defer, gro, suspend = (int(arg) for arg in sys.argv[4:7])
    request(family, 14, 4, u32(2, int(sys.argv[3])) + u32(5, defer) + u64(6, gro) + u64(7, suspend))
    sys.exit(0)
rx_queue = {}
for queue in request(family, 10, 0x300, u32(2, ifindex)):  # QUEUE_GET, dump by QUEUE_IFINDEX
    if value(queue, 3) == 0 and 4 in queue:  # QUEUE_TYPE rx, with a QUEUE_NAPI_ID
        rx_queue[value(queue, 4)] = value(queue, 1)
for napi in sorted(request(family, 11, 0x300, u32(1, ifindex)), key=lambda n: value(n, 2)):  # NAPI_GET dump
    napi_id = value(napi, 2)
    # NAPI_THREADED (8), NAPI_PID (4), NAPI_IRQ (3), NAPI_DEFER_HARD_IRQS (5), NAPI_GRO_FLUSH_TIMEOUT (6),
    # NAPI_IRQ_SUSPEND_TIMEOUT (7)
    print(napi_id, rx_queue.get(napi_id, "-"), *(value(napi, kind) for kind in (8, 4, 3, 5, 6, 7)))
PY
}
