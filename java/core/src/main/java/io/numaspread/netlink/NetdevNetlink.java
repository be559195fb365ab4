// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netlink;

import static io.numaspread.netlink.NetlinkCodec.NLA_HDRLEN;
import static io.numaspread.netlink.NetlinkCodec.NLMSG_HDRLEN;
import static io.numaspread.netlink.NetlinkCodec.NLM_F_ACK;
import static io.numaspread.netlink.NetlinkCodec.NLM_F_DUMP;
import static io.numaspread.netlink.NetlinkCodec.NLM_F_REQUEST;

import io.numaspread.netlink.NetlinkCodec.Attribute;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The generic netlink messages numaspread exchanges with the kernel's {@code netdev} family: the requests it
 * sends, built here, and the answers it reads, parsed from the bytes received. Pure.
 *
 * <p>A message is {@link NetlinkCodec}'s framing whose fixed header is a {@code struct genlmsghdr} (command,
 * version, reserved). The control family ({@code nlctrl}) maps a family name to the message type that reaches
 * it, and lists the commands the running kernel implements.
 *
 * <p>The netdev constants are written out here because Debian 12's kernel headers (6.1) predate them; they are
 * the kernel's {@code include/uapi/linux/netdev.h}, the ABI that newer kernels only extend.
 */
public final class NetdevNetlink {
    // <linux/genetlink.h>
    static final int GENL_HDRLEN = 4;
    static final int GENL_ID_CTRL = 0x10;
    static final int CTRL_CMD_GETFAMILY = 3;
    static final int CTRL_ATTR_FAMILY_ID = 1;
    static final int CTRL_ATTR_FAMILY_NAME = 2;
    static final int CTRL_ATTR_OPS = 6;
    static final int CTRL_ATTR_OP_ID = 1;
    static final int CTRL_CMD_GETPOLICY = 10;
    static final int CTRL_ATTR_POLICY = 8;
    static final int CTRL_ATTR_OP_POLICY = 9;
    static final int CTRL_ATTR_OP = 10;
    static final int CTRL_ATTR_POLICY_DO = 1;
    static final int NL_POLICY_TYPE_ATTR_MAX_VALUE_U = 5;

    // <linux/netdev.h> (uapi): the family, its commands and the attributes numaspread reads or writes.
    public static final String NETDEV_FAMILY_NAME = "netdev";
    static final int NETDEV_FAMILY_VERSION = 1;
    /** Linux 6.8. */
    public static final int NETDEV_CMD_QUEUE_GET = 10;
    /** Linux 6.8. */
    public static final int NETDEV_CMD_NAPI_GET = 11;
    /** Linux 6.10. */
    public static final int NETDEV_CMD_QSTATS_GET = 12;
    /** Linux 6.13. */
    public static final int NETDEV_CMD_NAPI_SET = 14;
    /**
     * Linux 7.0: creates a queue on a virtual device (netkit) that leases an rx queue of a physical one. Its
     * presence in the family's op list is how a kernel with queue leasing shows itself; numaspread never sends it.
     */
    public static final int NETDEV_CMD_QUEUE_CREATE = 16;

    static final int NETDEV_A_QUEUE_ID = 1;
    static final int NETDEV_A_QUEUE_IFINDEX = 2;
    static final int NETDEV_A_QUEUE_TYPE = 3;
    static final int NETDEV_A_QUEUE_NAPI_ID = 4;
    /** Linux 7.0: a nest of the {@code lease} set, in a physical device's leased rx queue. */
    static final int NETDEV_A_QUEUE_LEASE = 8;
    // The lease attribute set; its queue is a nest of the queue-id subset (NETDEV_A_QUEUE_ID and _TYPE).
    static final int NETDEV_A_LEASE_IFINDEX = 1;
    static final int NETDEV_A_LEASE_QUEUE = 2;
    static final int NETDEV_A_LEASE_NETNS_ID = 3;
    /** {@code enum netdev_queue_type}. */
    public static final int NETDEV_QUEUE_TYPE_RX = 0;

    public static final int NETDEV_QUEUE_TYPE_TX = 1;
    public static final int NETDEV_A_NAPI_IFINDEX = 1;
    static final int NETDEV_A_NAPI_ID = 2;
    static final int NETDEV_A_NAPI_IRQ = 3;
    static final int NETDEV_A_NAPI_PID = 4;
    /** Linux 6.13, as are the two timeouts. */
    static final int NETDEV_A_NAPI_DEFER_HARD_IRQS = 5;

    static final int NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT = 6;
    public static final int NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT = 7;
    /**
     * Linux 6.17: whether this one NAPI polls in its own kernel thread ({@code enum netdev_napi_threaded}: 0
     * disabled, 1 enabled, from Linux 6.19 also 2 for a thread that busy-polls). napi-get reports it for every
     * NAPI; napi-set sets it for one, where before only the device's sysfs {@code threaded} switched them all.
     */
    public static final int NETDEV_A_NAPI_THREADED = 8;

    public static final int NETDEV_NAPI_THREADED_BUSY_POLL = 2;
    static final int NETDEV_A_QSTATS_IFINDEX = 1;
    static final int NETDEV_A_QSTATS_QUEUE_TYPE = 2;
    static final int NETDEV_A_QSTATS_QUEUE_ID = 3;
    static final int NETDEV_A_QSTATS_SCOPE = 4;
    static final int NETDEV_A_QSTATS_RX_PACKETS = 8;
    static final int NETDEV_A_QSTATS_RX_BYTES = 9;
    static final int NETDEV_A_QSTATS_TX_PACKETS = 10;
    static final int NETDEV_A_QSTATS_TX_BYTES = 11;
    /** {@code enum netdev_qstats_scope}: one answer per queue instead of the device's sum. */
    static final int NETDEV_QSTATS_SCOPE_QUEUE = 1;

    /** The netdev family as the running kernel registered it: its message type and the commands it implements. */
    public record Family(int id, Set<Integer> commands) {
        public Family {
            commands = Set.copyOf(commands);
        }

        public boolean has(int command) {
            return commands.contains(command);
        }
    }

    /**
     * The attributes a command accepts, as the kernel's policy for it lists them ({@code CTRL_CMD_GETPOLICY}),
     * each with the largest unsigned value the policy allows, when it bounds one.
     */
    public record Policy(Map<Integer, OptionalLong> maxima) {
        public Policy {
            maxima = Map.copyOf(maxima);
        }

        public boolean accepts(int attribute) {
            return maxima.containsKey(attribute);
        }

        public OptionalLong max(int attribute) {
            return maxima.getOrDefault(attribute, OptionalLong.empty());
        }
    }

    /**
     * One queue from {@code queue-get}; the driver links it to a NAPI instance or not, and from Linux 7.0 a
     * physical device's rx queue may be leased to a virtual device's queue.
     */
    public record Queue(int id, int type, int ifindex, OptionalInt napiId, Optional<Lease> lease) {
        /** A queue that is not leased, as every kernel before 7.0 reports them. */
        public Queue(int id, int type, int ifindex, OptionalInt napiId) {
            this(id, type, ifindex, napiId, Optional.empty());
        }
    }

    /**
     * The other end of a leased queue, as {@code queue-get} reports it on the physical device: the lessee's
     * interface, its queue there, and its network namespace.
     *
     * @param ifindex the lessee device's ifindex, in its own namespace
     * @param queue the lessee's queue id
     * @param queueType the lessee queue's type ({@link #NETDEV_QUEUE_TYPE_RX}: only rx queues are leased)
     * @param netnsId the lessee's namespace as an id the physical device's namespace assigned it ({@code
     *     peernet2id}, as {@code ip netns list} shows); empty when both devices share a namespace
     */
    public record Lease(int ifindex, int queue, int queueType, OptionalInt netnsId) {}

    /**
     * One NAPI instance from {@code napi-get}. The IRQ is there when the driver links one, the PID when NAPI is
     * threaded, the three settings from Linux 6.13, and whether this NAPI is threaded from Linux 6.17.
     */
    public record Napi(
            int id,
            int ifindex,
            OptionalInt irq,
            OptionalInt threadPid,
            OptionalLong deferHardIrqs,
            OptionalLong groFlushTimeoutNanos,
            OptionalLong irqSuspendTimeoutNanos,
            OptionalInt threaded) {}

    /**
     * One queue's counters from {@code qstats-get}: RX or TX, its id, and its packets and bytes in that
     * direction (absent when the driver does not keep them).
     */
    public record QueueCounts(boolean receive, int queue, OptionalLong packets, OptionalLong bytes) {}

    private NetdevNetlink() {}

    /** A {@code qstats-get} dump of interface {@code ifindex}'s counters, one answer per queue. */
    public static byte[] queueStatsDumpRequest(Family family, int sequence, int ifindex) {
        return request(family.id(), NLM_F_REQUEST | NLM_F_DUMP, sequence, NETDEV_CMD_QSTATS_GET, NETDEV_FAMILY_VERSION)
                .u32(NETDEV_A_QSTATS_IFINDEX, ifindex)
                .u32(NETDEV_A_QSTATS_SCOPE, NETDEV_QSTATS_SCOPE_QUEUE)
                .bytes();
    }

    /**
     * The per-queue counters of interface {@code ifindex} in a {@code qstats-get} dump; a counter the driver
     * does not keep is absent.
     */
    public static List<QueueCounts> queueCounters(List<byte[]> answer, int ifindex) {
        List<QueueCounts> counters = new ArrayList<>();
        for (byte[] message : answer) {
            int owner = -1;
            int type = -1;
            int queue = -1;
            OptionalLong packets = OptionalLong.empty();
            OptionalLong bytes = OptionalLong.empty();
            OptionalLong rxPackets = OptionalLong.empty();
            OptionalLong rxBytes = OptionalLong.empty();
            OptionalLong txPackets = OptionalLong.empty();
            OptionalLong txBytes = OptionalLong.empty();
            for (Attribute attribute : attributes(message)) {
                switch (attribute.type()) {
                    case NETDEV_A_QSTATS_IFINDEX -> owner = attribute.u32();
                    case NETDEV_A_QSTATS_QUEUE_TYPE -> type = attribute.u32();
                    case NETDEV_A_QSTATS_QUEUE_ID -> queue = attribute.u32();
                    case NETDEV_A_QSTATS_RX_PACKETS -> rxPackets = OptionalLong.of(attribute.unsigned());
                    case NETDEV_A_QSTATS_RX_BYTES -> rxBytes = OptionalLong.of(attribute.unsigned());
                    case NETDEV_A_QSTATS_TX_PACKETS -> txPackets = OptionalLong.of(attribute.unsigned());
                    case NETDEV_A_QSTATS_TX_BYTES -> txBytes = OptionalLong.of(attribute.unsigned());
                    default -> {}
                }
            }
            if (type == NETDEV_QUEUE_TYPE_RX) {
                packets = rxPackets;
                bytes = rxBytes;
            } else if (type == NETDEV_QUEUE_TYPE_TX) {
                packets = txPackets;
                bytes = txBytes;
            }
            if (owner == ifindex && queue >= 0 && type >= 0) {
                counters.add(new QueueCounts(type == NETDEV_QUEUE_TYPE_RX, queue, packets, bytes));
            }
        }
        return counters;
    }

    /** {@code CTRL_CMD_GETFAMILY} for the netdev family, acknowledged. */
    public static byte[] getFamilyRequest(int sequence) {
        return request(GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK, sequence, CTRL_CMD_GETFAMILY, 1)
                .string(CTRL_ATTR_FAMILY_NAME, NETDEV_FAMILY_NAME)
                .bytes();
    }

    /** {@code CTRL_CMD_GETPOLICY} for the netdev family's command {@code command}: a dump of its policy. */
    public static byte[] policyRequest(int sequence, int command) {
        return request(GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_DUMP, sequence, CTRL_CMD_GETPOLICY, 1)
                .string(CTRL_ATTR_FAMILY_NAME, NETDEV_FAMILY_NAME)
                .u32(CTRL_ATTR_OP, command)
                .bytes();
    }

    /**
     * The policy of {@code command}'s do request in the control family's answer to {@link #policyRequest}: the
     * answer names, per command, the index of its policy ({@code CTRL_ATTR_OP_POLICY}), and lists each policy's
     * attributes by index ({@code CTRL_ATTR_POLICY}).
     *
     * @throws IllegalArgumentException when the answer names no do policy for the command
     */
    public static Policy policy(List<byte[]> answer, int command) {
        int index = -1;
        Map<Integer, Map<Integer, OptionalLong>> policies = new HashMap<>();
        for (byte[] message : answer) {
            for (Attribute attribute : attributes(message)) {
                if (attribute.type() == CTRL_ATTR_OP_POLICY) {
                    for (Attribute op : attribute.nested()) {
                        for (Attribute field : op.nested()) {
                            if (op.type() == command && field.type() == CTRL_ATTR_POLICY_DO) {
                                index = field.u32();
                            }
                        }
                    }
                } else if (attribute.type() == CTRL_ATTR_POLICY) {
                    for (Attribute policy : attribute.nested()) {
                        Map<Integer, OptionalLong> maxima =
                                policies.computeIfAbsent(policy.type(), k -> new TreeMap<>());
                        for (Attribute accepted : policy.nested()) {
                            OptionalLong max = OptionalLong.empty();
                            for (Attribute field : accepted.nested()) {
                                if (field.type() == NL_POLICY_TYPE_ATTR_MAX_VALUE_U) {
                                    max = OptionalLong.of(field.unsigned());
                                }
                            }
                            maxima.put(accepted.type(), max);
                        }
                    }
                }
            }
        }
        if (index < 0) {
            throw new IllegalArgumentException("the kernel's policy answer names no do policy for command " + command);
        }
        return new Policy(policies.getOrDefault(index, Map.of()));
    }

    /** A {@code queue-get} dump of interface {@code ifindex}'s queues. */
    public static byte[] queueDumpRequest(Family family, int sequence, int ifindex) {
        return request(family.id(), NLM_F_REQUEST | NLM_F_DUMP, sequence, NETDEV_CMD_QUEUE_GET, NETDEV_FAMILY_VERSION)
                .u32(NETDEV_A_QUEUE_IFINDEX, ifindex)
                .bytes();
    }

    /** A {@code napi-get} dump of interface {@code ifindex}'s NAPI instances. */
    public static byte[] napiDumpRequest(Family family, int sequence, int ifindex) {
        return request(family.id(), NLM_F_REQUEST | NLM_F_DUMP, sequence, NETDEV_CMD_NAPI_GET, NETDEV_FAMILY_VERSION)
                .u32(NETDEV_A_NAPI_IFINDEX, ifindex)
                .bytes();
    }

    /** A {@code napi-get} of one NAPI instance, acknowledged. */
    public static byte[] napiGetRequest(Family family, int sequence, int napiId) {
        return request(family.id(), NLM_F_REQUEST | NLM_F_ACK, sequence, NETDEV_CMD_NAPI_GET, NETDEV_FAMILY_VERSION)
                .u32(NETDEV_A_NAPI_ID, napiId)
                .bytes();
    }

    /**
     * A {@code napi-set} of NAPI instance {@code napiId}'s three settings, acknowledged: {@code
     * defer-hard-irqs}, {@code gro-flush-timeout} and {@code irq-suspend-timeout} (both in nanoseconds).
     */
    public static byte[] napiSetRequest(
            Family family,
            int sequence,
            int napiId,
            long deferHardIrqs,
            long groFlushTimeoutNanos,
            long irqSuspendTimeoutNanos) {
        return request(family.id(), NLM_F_REQUEST | NLM_F_ACK, sequence, NETDEV_CMD_NAPI_SET, NETDEV_FAMILY_VERSION)
                .u32(NETDEV_A_NAPI_ID, napiId)
                .u32(NETDEV_A_NAPI_DEFER_HARD_IRQS, deferHardIrqs)
                .u64(NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT, groFlushTimeoutNanos)
                .u64(NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT, irqSuspendTimeoutNanos)
                .bytes();
    }

    /**
     * A {@code napi-set} of NAPI instance {@code napiId}'s {@code threaded} alone, acknowledged (Linux 6.17): the
     * kernel starts or stops that one NAPI's thread and keeps the value in the NAPI's persistent config.
     */
    public static byte[] napiSetThreadedRequest(Family family, int sequence, int napiId, int threaded) {
        return request(family.id(), NLM_F_REQUEST | NLM_F_ACK, sequence, NETDEV_CMD_NAPI_SET, NETDEV_FAMILY_VERSION)
                .u32(NETDEV_A_NAPI_ID, napiId)
                .u32(NETDEV_A_NAPI_THREADED, threaded)
                .bytes();
    }

    /**
     * The netdev family in the control family's answer to {@link #getFamilyRequest}.
     *
     * @throws IllegalArgumentException when the answer names no family id
     */
    public static Family family(List<byte[]> answer) {
        for (byte[] message : answer) {
            int id = -1;
            Set<Integer> commands = new TreeSet<>();
            for (Attribute attribute : attributes(message)) {
                if (attribute.type() == CTRL_ATTR_FAMILY_ID) {
                    id = attribute.u16();
                } else if (attribute.type() == CTRL_ATTR_OPS) {
                    for (Attribute op : attribute.nested()) {
                        for (Attribute field : op.nested()) {
                            if (field.type() == CTRL_ATTR_OP_ID) {
                                commands.add(field.u32());
                            }
                        }
                    }
                }
            }
            if (id >= 0) {
                return new Family(id, commands);
            }
        }
        throw new IllegalArgumentException("the kernel's answer about the netdev family names no family id");
    }

    /** The queues of interface {@code ifindex} in a {@code queue-get} dump (a kernel may ignore the filter). */
    public static List<Queue> queues(List<byte[]> answer, int ifindex) {
        List<Queue> queues = new ArrayList<>();
        for (byte[] message : answer) {
            int id = -1;
            int type = -1;
            int owner = -1;
            OptionalInt napiId = OptionalInt.empty();
            Optional<Lease> lease = Optional.empty();
            for (Attribute attribute : attributes(message)) {
                switch (attribute.type()) {
                    case NETDEV_A_QUEUE_ID -> id = attribute.u32();
                    case NETDEV_A_QUEUE_IFINDEX -> owner = attribute.u32();
                    case NETDEV_A_QUEUE_TYPE -> type = attribute.u32();
                    case NETDEV_A_QUEUE_NAPI_ID -> napiId = OptionalInt.of(attribute.u32());
                    case NETDEV_A_QUEUE_LEASE -> lease = Optional.of(lease(attribute));
                    default -> {}
                }
            }
            if (owner == ifindex && id >= 0 && type >= 0) {
                queues.add(new Queue(id, type, owner, napiId, lease));
            }
        }
        return queues;
    }

    /**
     * A queue's {@code lease} nest. Every kernel that sends one fills in the lessee's ifindex and its queue's id
     * and type (netdev-genl.c, {@code netdev_nl_queue_fill_one}), so a nest without them is refused rather than
     * read as no lease: planning a leased queue as the host's would put its IRQ on the wrong CPUs unsaid.
     *
     * @throws MalformedNetlinkException when the nest lacks the lessee's ifindex or queue, or a value is short
     */
    private static Lease lease(Attribute nest) {
        int ifindex = -1;
        int queue = -1;
        int queueType = -1;
        OptionalInt netnsId = OptionalInt.empty();
        for (Attribute attribute : nest.nested()) {
            switch (attribute.type()) {
                case NETDEV_A_LEASE_IFINDEX -> ifindex = attribute.u32();
                case NETDEV_A_LEASE_NETNS_ID -> netnsId = OptionalInt.of(attribute.u32());
                case NETDEV_A_LEASE_QUEUE -> {
                    for (Attribute field : attribute.nested()) {
                        switch (field.type()) {
                            case NETDEV_A_QUEUE_ID -> queue = field.u32();
                            case NETDEV_A_QUEUE_TYPE -> queueType = field.u32();
                            default -> {}
                        }
                    }
                }
                default -> {}
            }
        }
        if (ifindex < 0 || queue < 0 || queueType < 0) {
            throw new MalformedNetlinkException("a queue's lease attribute at byte " + (nest.valueOffset() - NLA_HDRLEN)
                    + " lacks the lessee's " + (ifindex < 0 ? "ifindex" : "queue id or type"));
        }
        return new Lease(ifindex, queue, queueType, netnsId);
    }

    /** The NAPI instances of interface {@code ifindex} in a {@code napi-get} answer, in the kernel's order. */
    public static List<Napi> napis(List<byte[]> answer, int ifindex) {
        List<Napi> napis = new ArrayList<>();
        for (byte[] message : answer) {
            int id = -1;
            int owner = -1;
            OptionalInt irq = OptionalInt.empty();
            OptionalInt pid = OptionalInt.empty();
            OptionalLong deferHardIrqs = OptionalLong.empty();
            OptionalLong groFlushTimeout = OptionalLong.empty();
            OptionalLong irqSuspendTimeout = OptionalLong.empty();
            OptionalInt threaded = OptionalInt.empty();
            for (Attribute attribute : attributes(message)) {
                switch (attribute.type()) {
                    case NETDEV_A_NAPI_ID -> id = attribute.u32();
                    case NETDEV_A_NAPI_IFINDEX -> owner = attribute.u32();
                    case NETDEV_A_NAPI_IRQ -> irq = OptionalInt.of(attribute.u32());
                    case NETDEV_A_NAPI_PID -> pid = OptionalInt.of(attribute.u32());
                    case NETDEV_A_NAPI_DEFER_HARD_IRQS -> deferHardIrqs = OptionalLong.of(attribute.unsigned());
                    case NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT -> groFlushTimeout = OptionalLong.of(attribute.unsigned());
                    case NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT -> irqSuspendTimeout = OptionalLong.of(attribute.unsigned());
                    case NETDEV_A_NAPI_THREADED -> threaded = OptionalInt.of((int) attribute.unsigned());
                    default -> {}
                }
            }
            if (owner == ifindex && id >= 0) {
                napis.add(new Napi(id, owner, irq, pid, deferHardIrqs, groFlushTimeout, irqSuspendTimeout, threaded));
            }
        }
        return napis;
    }

    /** The attributes after a generic netlink message's two headers. */
    public static List<Attribute> attributes(byte[] message) {
        if (message.length < NLMSG_HDRLEN + GENL_HDRLEN) {
            throw new IllegalArgumentException(
                    "a generic netlink message of " + message.length + " bytes is shorter than its two headers");
        }
        return NetlinkCodec.attributes(message, NLMSG_HDRLEN + GENL_HDRLEN);
    }

    /** A generic netlink request's two headers; its attributes follow. */
    private static NetlinkCodec.Builder request(int type, int flags, int sequence, int command, int version) {
        return new NetlinkCodec.Builder(type, flags, sequence)
                .u8(command)
                .u8(version)
                .u16(0);
    }
}
