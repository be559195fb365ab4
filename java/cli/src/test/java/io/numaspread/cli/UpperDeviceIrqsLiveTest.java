// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaspread.testing.IpLink;
import io.numaspread.testing.NeedsLiveNic;
import io.numaspread.testing.NeedsRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code irqs --nic} of a macvlan the running kernel makes on eth0 (down, so eth0 takes no address and no
 * promiscuity; deleted whatever happens): eth0's section, with eth0's vectors and plan.
 */
@NeedsRoot
@NeedsLiveNic
@Timeout(60)
class UpperDeviceIrqsLiveTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aMacvlanOnEth0ShowsEth0sQueues() throws Exception {
        String macvlan = IpLink.name("cmv");
        String eth0Flags = Files.readString(Path.of("/sys/class/net/eth0/flags"));
        IpLink.run("add", "link", "eth0", "name", macvlan, "type", "macvlan");
        try {
            CliRun text = CliRun.of("irqs", "--nic", macvlan);
            assertEquals(0, text.exitCode(), text.err());
            assertTrue(
                    text.out()
                            .startsWith(macvlan + ": macvlan over eth0\n\n== eth0, lower device of " + macvlan
                                    + " (macvlan)\neth0: driver virtio_net"),
                    text.out());
            JsonNode upper =
                    JSON.readTree(CliRun.of("irqs", "--nic", macvlan, "--json").out());
            JsonNode eth0 =
                    JSON.readTree(CliRun.of("irqs", "--nic", "eth0", "--json").out());
            assertEquals("macvlan", upper.at("/kind").asText());
            JsonNode section = upper.at("/nics/0");
            assertEquals("eth0", section.at("/interface").asText());
            for (String field : new String[] {"/driver", "/pci", "/origin", "/queues"}) {
                assertEquals(eth0.at(field), section.at(field), field);
            }
            assertEquals(eth0.at("/irqs").size(), section.at("/irqs").size());
            for (int i = 0; i < eth0.at("/irqs").size(); i++) {
                assertEquals(eth0.at("/irqs/" + i + "/name"), section.at("/irqs/" + i + "/name"));
                assertEquals(eth0.at("/irqs/" + i + "/planned"), section.at("/irqs/" + i + "/planned"));
            }
            assertEquals(eth0.at("/napi/instances"), section.at("/napi/instances"));
        } finally {
            IpLink.run("del", macvlan);
        }
        assertFalse(Files.exists(Path.of("/sys/class/net", macvlan)), macvlan + " is deleted");
        assertEquals(eth0Flags, Files.readString(Path.of("/sys/class/net/eth0/flags")), "eth0's flags as they were");
    }
}
