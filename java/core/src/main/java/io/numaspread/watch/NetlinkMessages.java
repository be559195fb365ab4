// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Parses what the kernel sends on the two netlink sockets {@code watch} reads, from the bytes received. Pure.
 *
 * <p>rtnetlink: a datagram holds one or more {@code struct nlmsghdr} (length, type, flags, sequence, port id;
 * host byte order), each 4-byte aligned; a link message's payload is a {@code struct ifinfomsg} (family, type,
 * index, flags, change) followed by {@code struct rtattr}s (length, type, value, 4-byte aligned), of which
 * {@code IFLA_IFNAME} names the interface.
 *
 * <p>kobject uevents: one datagram is {@code ACTION@DEVPATH}, then {@code KEY=VALUE} strings, each ending in NUL.
 */
public final class NetlinkMessages {
    static final int RTM_NEWLINK = 16;
    static final int RTM_DELLINK = 17;
    static final int NLMSG_HDRLEN = 16;
    static final int IFINFOMSG_LEN = 16;
    static final int IFLA_IFNAME = 3;
    static final int IFF_UP = 1;
    static final int IFF_LOWER_UP = 0x10000;

    /** A link message: its type, interface index and name, and whether it is up. */
    public record Link(int type, int index, Optional<String> name, int flags) {
        public boolean deleted() {
            return type == RTM_DELLINK;
        }

        public String describe() {
            String state = deleted() ? "removed" : (flags & IFF_UP) == 0 ? "down"
                    : (flags & IFF_LOWER_UP) == 0 ? "up, no carrier" : "up";
            return name.orElse("ifindex " + index) + " " + (deleted() ? "RTM_DELLINK" : "RTM_NEWLINK") + " (" + state + ")";
        }
    }

    /** A kobject uevent: its action, device path and environment. */
    public record Uevent(String action, String devpath, Map<String, String> environment) {
        public Uevent {
            environment = Map.copyOf(environment);
        }

        public Optional<String> get(String key) {
            return Optional.ofNullable(environment.get(key));
        }
    }

    private NetlinkMessages() {
    }

    /**
     * The link messages in one rtnetlink datagram; other message types are skipped.
     *
     * @throws IllegalArgumentException when a length field points outside the datagram
     */
    public static List<Link> links(byte[] datagram, int length) {
        ByteBuffer buffer = ByteBuffer.wrap(datagram, 0, length).order(ByteOrder.nativeOrder());
        List<Link> links = new ArrayList<>();
        int offset = 0;
        while (offset + NLMSG_HDRLEN <= length) {
            int messageLength = buffer.getInt(offset);
            int type = Short.toUnsignedInt(buffer.getShort(offset + 4));
            if (messageLength < NLMSG_HDRLEN || offset + messageLength > length) {
                throw new IllegalArgumentException("netlink message at byte " + offset + " claims " + messageLength
                        + " bytes; the datagram has " + (length - offset) + " left");
            }
            if ((type == RTM_NEWLINK || type == RTM_DELLINK) && messageLength >= NLMSG_HDRLEN + IFINFOMSG_LEN) {
                int info = offset + NLMSG_HDRLEN;
                int index = buffer.getInt(info + 4);
                int flags = buffer.getInt(info + 8);
                links.add(new Link(type, index, name(buffer, info + IFINFOMSG_LEN, offset + messageLength), flags));
            }
            offset += align(messageLength);
        }
        return links;
    }

    /**
     * The uevent in one datagram, or empty for udev's re-broadcasts (which start "libudev") and for datagrams
     * without {@code ACTION@DEVPATH}.
     */
    public static Optional<Uevent> uevent(byte[] datagram, int length) {
        List<String> strings = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= length; i++) {
            if (i == length || datagram[i] == 0) {
                if (i > start) {
                    strings.add(new String(datagram, start, i - start, StandardCharsets.UTF_8));
                }
                start = i + 1;
            }
        }
        if (strings.isEmpty() || !strings.get(0).contains("@")) {
            return Optional.empty();
        }
        String header = strings.get(0);
        Map<String, String> environment = new LinkedHashMap<>();
        for (String entry : strings.subList(1, strings.size())) {
            int equals = entry.indexOf('=');
            if (equals > 0) {
                environment.put(entry.substring(0, equals), entry.substring(equals + 1));
            }
        }
        int at = header.indexOf('@');
        return Optional.of(new Uevent(header.substring(0, at), header.substring(at + 1), environment));
    }

    /**
     * What a link message means to a watcher: every link message names its interface, and the watcher of
     * that interface looks again.
     */
    public static KernelEvent event(Link link) {
        return new KernelEvent("rtnetlink", link.describe(), link.name());
    }

    /**
     * What a uevent means to a watcher, or empty when it cannot change a NIC's queue IRQs: CPUs going offline
     * or online, network interfaces and their queues added or removed, and devices bound or unbound (the NIC's
     * PCI function or virtio device, whose interface is then gone or new).
     */
    public static Optional<KernelEvent> event(Uevent uevent) {
        String subsystem = uevent.get("SUBSYSTEM").orElse("");
        String device = uevent.devpath().substring(uevent.devpath().lastIndexOf('/') + 1);
        String action = uevent.action();
        switch (subsystem) {
            case "cpu":
                if (action.equals("online") || action.equals("offline") || action.equals("add")
                        || action.equals("remove")) {
                    return Optional.of(new KernelEvent("uevent", device + " " + action, Optional.empty()));
                }
                return Optional.empty();
            case "net":
                return Optional.of(new KernelEvent("uevent", uevent.get("INTERFACE").orElse(device) + " " + action,
                        Optional.of(uevent.get("INTERFACE").orElse(device))));
            case "queues":
                return interfaceOfQueue(uevent.devpath()).map(iface -> new KernelEvent("uevent",
                        iface + " queue " + device + " " + action, Optional.of(iface)));
            default:
                if (action.equals("bind") || action.equals("unbind")) {
                    String driver = uevent.get("DRIVER").map(d -> (action.equals("bind") ? " to " : " from ") + d)
                            .orElse("");
                    return Optional.of(new KernelEvent("uevent", device + " " + action + driver, Optional.empty()));
                }
                return Optional.empty();
        }
    }

    /** ".../net/eth0/queues/rx-2" names eth0. */
    private static Optional<String> interfaceOfQueue(String devpath) {
        String[] parts = devpath.split("/");
        for (int i = 0; i + 2 < parts.length; i++) {
            if (parts[i].equals("net") && parts[i + 2].equals("queues")) {
                return Optional.of(parts[i + 1]);
            }
        }
        return Optional.empty();
    }

    private static Optional<String> name(ByteBuffer buffer, int from, int end) {
        int offset = from;
        while (offset + 4 <= end) {
            int attributeLength = Short.toUnsignedInt(buffer.getShort(offset));
            int type = Short.toUnsignedInt(buffer.getShort(offset + 2)) & 0x3fff;
            if (attributeLength < 4 || offset + attributeLength > end) {
                throw new IllegalArgumentException("rtattr at byte " + offset + " claims " + attributeLength
                        + " bytes; its message has " + (end - offset) + " left");
            }
            if (type == IFLA_IFNAME) {
                int valueEnd = offset + 4;
                while (valueEnd < offset + attributeLength && buffer.get(valueEnd) != 0) {
                    valueEnd++;
                }
                byte[] value = new byte[valueEnd - offset - 4];
                buffer.get(offset + 4, value);
                return Optional.of(new String(value, StandardCharsets.UTF_8));
            }
            offset += align(attributeLength);
        }
        return Optional.empty();
    }

    private static int align(int length) {
        return (length + 3) & ~3;
    }
}
