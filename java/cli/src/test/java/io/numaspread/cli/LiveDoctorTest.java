// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaspread.testing.NeedsLiveNic;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * doctor on this machine's kernel, judged by the kernel's release read here on its own: the netdev features
 * came in known releases (napi-set and irq-suspend-timeout 6.13, per-NAPI threaded 6.17, threaded busy polling
 * and txq_reselection_ms 6.19, queue leasing's queue-create 7.0; io_uring's IORING_REGISTER_NAPI 6.9 and static
 * NAPI tracking 6.13), so the release says which the report must find and which it must say are needed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LiveDoctorTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    @NeedsLiveNic
    void theReportAgreesWithTheKernelRelease() throws Exception {
        String release = Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip();
        Matcher version = Pattern.compile("^(\\d+)\\.(\\d+)").matcher(release);
        assertTrue(version.find(), release);
        int kernel = Integer.parseInt(version.group(1)) * 1000 + Integer.parseInt(version.group(2));

        CliRun run = CliRun.of("doctor", "--nic", "eth0", "--json");
        assertEquals(0, run.exitCode(), run.err());
        JsonNode root = JSON.readTree(run.out());
        assertEquals(release, root.get("kernel_release").asText());
        Map<String, JsonNode> found = new HashMap<>();
        root.get("findings").forEach(finding -> found.put(finding.get("feature").asText(), finding));
        assertEquals(
                "present",
                found.get("netdev_family").get("state").asText(),
                found.get("netdev_family").toString());
        expect(found, "napi_set", kernel >= 6013, "Linux 6.13");
        expect(found, "irq_suspend", kernel >= 6013, "Linux 6.13");
        expect(found, "napi_threaded", kernel >= 6017, "Linux 6.17");
        expect(found, "threaded_busy_poll", kernel >= 6019, "Linux 6.19");
        expect(found, "txq_reselection_ms", kernel >= 6019, "Linux 6.19");
        expect(found, "queue_leasing", kernel >= 7000, "Linux 7.0");
        expect(found, "io_uring_napi", kernel >= 6009, "Linux 6.9");
        expect(found, "io_uring_napi_static", kernel >= 6013, "Linux 6.13");
        // this host's kernel.io_uring_disabled is 0
        assertEquals("present", found.get("io_uring_allowed").get("state").asText());
        // this host's eth0 is virtio_net: its queue names its NAPI (6.8+), its NAPI names no IRQ
        assertEquals("present", found.get("queue_napi_links").get("state").asText());
        assertEquals("absent", found.get("napi_irq_links").get("state").asText());
        assertTrue(found.get("napi_irq_links").get("evidence").asText().endsWith("(driver virtio_net)"));
    }

    private static void expect(Map<String, JsonNode> found, String feature, boolean present, String need) {
        JsonNode finding = found.get(feature);
        assertEquals(present ? "present" : "absent", finding.get("state").asText(), finding.toString());
        if (!present) {
            assertEquals(need, finding.get("need").asText(), finding.toString());
        }
    }
}
