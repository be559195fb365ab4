// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * irqs and apply name a systemd .link file that has udev place eth0's IRQs, read from a host root laid out as
 * systemd-udevd 260+ leaves it: the .link file and udev's database entry for eth0's interface index.
 */
class LinkPolicyCliTest extends StandInCliTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String LINK = "/etc/systemd/network/10-eth0.link";

    @TempDir
    Path host;

    private void write(Path root, String path, String text) throws IOException {
        Path file = root.resolve(path.replaceFirst("^/", ""));
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    private void udevPlacesEth0(String policy) throws IOException {
        write(sys, "class/net/eth0/ifindex", "7\n");
        write(host, LINK, "[Match]\nOriginalName=eth0\n[Link]\nIRQAffinityPolicy=" + policy + "\n");
        write(host, "run/udev/data/n7", "I:1\nE:ID_NET_LINK_FILE=" + LINK + "\nE:ID_NET_NAME=eth0\n");
    }

    @Test
    void irqsNamesTheLinkFileAndHowToHandTheIrqsOver() throws Exception {
        udevPlacesEth0("spread");
        CliRun text = CliRun.of(args("irqs", "--nic", "eth0", "--host-root", host.toString()));
        assertEquals(0, text.exitCode(), text.err());
        assertTrue(
                text.out()
                        .contains("udev: " + LINK + " sets IRQAffinityPolicy=spread for eth0 (udev's database):"
                                + " systemd-udevd places the IRQs again"),
                text.out());
        assertTrue(
                text.out().contains("(/etc/systemd/network/10-eth0.link.d/numaspread.conf: [Link] IRQAffinityPolicy=)"),
                text.out());

        CliRun json = CliRun.of(args("irqs", "--nic", "eth0", "--json", "--host-root", host.toString()));
        assertEquals(0, json.exitCode(), json.err());
        JsonNode policies = JSON.readTree(json.out()).get("link_irq_policies");
        assertEquals(1, policies.size(), json.out());
        assertEquals(LINK, policies.at("/0/file").asText());
        assertEquals("spread", policies.at("/0/policy").asText());
        assertTrue(policies.at("/0/from_udev_database").asBoolean());
    }

    @Test
    void applyNotesItAndStillApplies() throws Exception {
        udevPlacesEth0("single");
        CliRun apply = CliRun.of(withState("apply", "--nic", "eth0", "--host-root", host.toString()));
        assertEquals(0, apply.exitCode(), apply.err());
        assertTrue(
                apply.out().contains("note: udev: " + LINK + " sets IRQAffinityPolicy=single for eth0"), apply.out());
        assertEquals("1", affinity(52), "the plan was written: udev acts only when the device is added");
    }

    @Test
    void withoutUdevsDatabaseALinkFileThatMayMatchIsNamedAsSuch() throws Exception {
        write(host, LINK, "[Match]\nDriver=i40e\n[Link]\nIRQAffinityPolicy=spread\n");
        CliRun text = CliRun.of(args("irqs", "--nic", "eth0", "--host-root", host.toString()));
        assertEquals(0, text.exitCode(), text.err());
        assertTrue(
                text.out()
                        .contains("udev: " + LINK + " sets IRQAffinityPolicy=spread for the NICs it matches"
                                + " (udev's database for eth0 is not readable here"),
                text.out());
    }

    @Test
    void aLinkFileThatSetsNoPolicyIsNotMentioned() throws Exception {
        udevPlacesEth0("");
        CliRun text = CliRun.of(args("irqs", "--nic", "eth0", "--host-root", host.toString()));
        assertEquals(0, text.exitCode(), text.err());
        assertFalse(text.out().contains("udev:"), text.out());
        CliRun json = CliRun.of(args("irqs", "--nic", "eth0", "--json", "--host-root", host.toString()));
        assertEquals(0, JSON.readTree(json.out()).get("link_irq_policies").size(), json.out());
    }
}
