// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.NumaspreadException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The files and udev database entries are laid out as systemd-udevd 260+ writes and reads them. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LinkIrqPolicyTest {
    private static final String MATCH_ETH0 = "[Match]\nOriginalName=eth0\n";

    @TempDir
    Path root;

    private void write(String path, String text) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    private void udevEntry(int ifindex, String... properties) throws IOException {
        StringBuilder entry = new StringBuilder("I:1234567\n");
        for (String property : properties) {
            entry.append("E:").append(property).append('\n');
        }
        entry.append("G:systemd\n");
        write("run/udev/data/n" + ifindex, entry.toString());
    }

    @Test
    void theFileUdevRecordedForTheNicWithItsDropInsInOrder() throws IOException {
        write("etc/systemd/network/10-eth0.link", MATCH_ETH0 + "[Link]\nIRQAffinityPolicy=spread\n");
        write("etc/systemd/network/10-eth0.link.d/50-single.conf", "[Link]\n# why\nIRQAffinityPolicy = single\n");
        udevEntry(
                2,
                "ID_NET_LINK_FILE=/etc/systemd/network/10-eth0.link",
                "ID_NET_LINK_FILE_DROPINS=/etc/systemd/network/10-eth0.link.d/50-single.conf",
                "ID_NET_NAME=eth0");
        assertEquals(
                List.of(new LinkIrqPolicy(Path.of("/etc/systemd/network/10-eth0.link"), "single", true)),
                LinkIrqPolicy.find(root, 2));
        assertEquals(
                List.of(),
                LinkIrqPolicy.find(root, 3).stream()
                        .filter(LinkIrqPolicy::fromUdevDatabase)
                        .toList(),
                "another NIC's entry is absent, so nothing is udev's word for it");
    }

    @Test
    void anEmptyAssignmentInADropInHandsTheNicBack() throws IOException {
        write("usr/lib/systemd/network/99-default.link", "[Match]\nOriginalName=*\n[Link]\nIRQAffinityPolicy=spread\n");
        write("etc/systemd/network/99-default.link.d/numaspread.conf", "[Link]\nIRQAffinityPolicy=\n");
        udevEntry(
                2,
                "ID_NET_LINK_FILE=/usr/lib/systemd/network/99-default.link",
                "ID_NET_LINK_FILE_DROPINS=/etc/systemd/network/99-default.link.d/numaspread.conf");
        assertEquals(List.of(), LinkIrqPolicy.find(root, 2));
    }

    @Test
    void aValueUdevCannotParseKeepsTheEarlierOneAndOtherSectionsDoNotCount() throws IOException {
        write(
                "etc/systemd/network/10-eth0.link",
                MATCH_ETH0 + "IRQAffinityPolicy=single\n[Link]\n"
                        + "IRQAffinityPolicy=spread\nIRQAffinityPolicy=numa\n[SR-IOV]\nIRQAffinityPolicy=single\n");
        udevEntry(2, "ID_NET_LINK_FILE=/etc/systemd/network/10-eth0.link");
        assertEquals("spread", LinkIrqPolicy.find(root, 2).get(0).policy());
    }

    @Test
    void aLinkFileWithoutAPolicyOrNoLinkFileAtAll() throws IOException {
        write("usr/lib/systemd/network/99-default.link", "[Match]\nOriginalName=*\n[Link]\nNamePolicy=kernel\n");
        udevEntry(2, "ID_NET_LINK_FILE=/usr/lib/systemd/network/99-default.link");
        udevEntry(3, "ID_NET_NAME=eth1");
        assertEquals(List.of(), LinkIrqPolicy.find(root, 2));
        assertEquals(List.of(), LinkIrqPolicy.find(root, 3));
    }

    @Test
    void aDropInWrittenSinceUdevLastRanCountsAsTheNextAddWillReadIt() throws IOException {
        write("etc/systemd/network/10-eth0.link", MATCH_ETH0 + "[Link]\nIRQAffinityPolicy=spread\n");
        udevEntry(2, "ID_NET_LINK_FILE=/etc/systemd/network/10-eth0.link");
        write("run/systemd/network/10-eth0.link.d/numaspread.conf", "[Link]\nIRQAffinityPolicy=\n");
        assertEquals(List.of(), LinkIrqPolicy.find(root, 2));
    }

    @Test
    void withoutUdevsDatabaseEveryLinkFileThatSetsAPolicyMayApply() throws IOException {
        // /etc masks /usr/lib's file of the same name; a file without [Match] is ignored by udev.
        write("usr/lib/systemd/network/10-eth0.link", MATCH_ETH0 + "[Link]\nIRQAffinityPolicy=spread\n");
        write("etc/systemd/network/10-eth0.link", MATCH_ETH0 + "[Link]\nMTUBytes=9000\n");
        write("usr/lib/systemd/network/20-nomatch.link", "[Link]\nIRQAffinityPolicy=single\n");
        write("usr/local/lib/systemd/network/30-ice.link", "[Match]\nDriver=ice\n");
        write("run/systemd/network/30-ice.link.d/irq.conf", "[Link]\nIRQAffinityPolicy=spread\n");
        write("usr/lib/systemd/network/99-default.link", "[Match]\nOriginalName=*\n[Link]\nIRQAffinityPolicy=single\n");
        write("etc/systemd/network/99-default.link.d/off.conf", "[Link]\nIRQAffinityPolicy=\n");
        assertEquals(
                List.of(new LinkIrqPolicy(Path.of("/usr/local/lib/systemd/network/30-ice.link"), "spread", false)),
                LinkIrqPolicy.find(root, 2));
    }

    @Test
    void aFileThatCannotBeReadIsNamed() throws IOException {
        Files.createDirectories(root.resolve("etc/systemd/network/10-eth0.link"));
        udevEntry(2, "ID_NET_LINK_FILE=/etc/systemd/network/10-eth0.link");
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> LinkIrqPolicy.find(root, 2));
        assertTrue(
                e.getMessage()
                        .contains(
                                root.resolve("etc/systemd/network/10-eth0.link").toString()),
                e.getMessage());
    }
}
