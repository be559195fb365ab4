// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes an upper device (bond, VLAN, macvlan, bridge, team) the way the kernel shows it in sysfs: a directory
 * under {@code devices/virtual/net/}, linked from {@code class/net/}, with its {@code uevent} ({@code DEVTYPE}
 * when the kind has one), {@code ifindex}, {@code iflink} and a {@code lower_NAME} link to each lower device. The
 * lower devices are written first ({@link NicFixture}, or this).
 */
public final class UpperDeviceFixture {
    private UpperDeviceFixture() {}

    /**
     * @param devtype {@code DEVTYPE} ("bond", "vlan", "bridge"), or null for a kind without one (team, macvlan)
     * @param iflink its {@code iflink}: {@code ifindex} for a master, the lower device's index for a VLAN or macvlan
     */
    public static void write(Path sysfs, String name, String devtype, int ifindex, int iflink, String... lowers) {
        Path dir = sysfs.resolve("devices/virtual/net/" + name);
        NicFixture.file(
                dir.resolve("uevent"),
                (devtype == null ? "" : "DEVTYPE=" + devtype + "\n") + "INTERFACE=" + name + "\nIFINDEX=" + ifindex);
        NicFixture.file(dir.resolve("ifindex"), Integer.toString(ifindex));
        NicFixture.file(dir.resolve("iflink"), Integer.toString(iflink));
        link(sysfs.resolve("class/net/" + name), dir);
        for (String lower : lowers) {
            link(dir.resolve("lower_" + lower), sysfs.resolve("class/net/" + lower));
        }
    }

    /** A virtual device with no lower devices and no {@code device} link (a veth, a dummy). */
    public static void virtual(Path sysfs, String name, int ifindex) {
        write(sysfs, name, null, ifindex, ifindex);
    }

    /** Adds a {@code lower_NAME} link to a device written before (to make a loop no kernel would allow). */
    public static void addLower(Path sysfs, String upper, String lower) {
        try {
            Path dir = sysfs.resolve("class/net/" + upper).toRealPath();
            link(dir.resolve("lower_" + lower), sysfs.resolve("class/net/" + lower));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void link(Path link, Path target) {
        try {
            Files.createDirectories(link.getParent());
            Files.createSymbolicLink(link, link.getParent().relativize(target));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
