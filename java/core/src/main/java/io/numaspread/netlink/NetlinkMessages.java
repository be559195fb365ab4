// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netlink;

import static io.numaspread.netlink.NetlinkCodec.NLMSG_HDRLEN;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Parses what the kernel multicasts on the two netlink sockets {@code watch} reads, from the bytes received. Pure.
 *
 * <p>rtnetlink: {@link NetlinkCodec}'s framing; a link message's fixed header is a {@code struct ifinfomsg}
 * (family, type, index, flags, change), and of its attributes {@code IFLA_IFNAME} names the interface.
 *
 * <p>kobject uevents: one datagram is {@code ACTION@DEVPATH}, then {@code KEY=VALUE} strings, each ending in NUL.
 */
public final class NetlinkMessages {
    static final int RTM_NEWLINK = 16;
    static final int RTM_DELLINK = 17;
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
            String state = deleted()
                    ? "removed"
                    : (flags & IFF_UP) == 0 ? "down" : (flags & IFF_LOWER_UP) == 0 ? "up, no carrier" : "up";
            return name.orElse("ifindex " + index) + " " + (deleted() ? "RTM_DELLINK" : "RTM_NEWLINK") + " (" + state
                    + ")";
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

    private NetlinkMessages() {}

    /**
     * The link messages in one rtnetlink datagram; other message types are skipped.
     *
     * @throws MalformedNetlinkException when a length field points outside the datagram
     */
    public static List<Link> links(byte[] datagram, int length) {
        List<Link> links = new ArrayList<>();
        for (NetlinkCodec.Message message : NetlinkCodec.messages(datagram, length, "rtnetlink")) {
            int type = message.type();
            if ((type == RTM_NEWLINK || type == RTM_DELLINK) && message.length() >= NLMSG_HDRLEN + IFINFOMSG_LEN) {
                int index = message.buffer().getInt(message.payload() + 4);
                int flags = message.buffer().getInt(message.payload() + 8);
                Optional<String> name = message.attributes(IFINFOMSG_LEN).stream()
                        .filter(attribute -> attribute.type() == IFLA_IFNAME)
                        .findFirst()
                        .map(NetlinkCodec.Attribute::string);
                links.add(new Link(type, index, name, flags));
            }
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
}
