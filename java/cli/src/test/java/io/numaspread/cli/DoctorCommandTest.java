// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaspread.testing.NicFixture;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** doctor over stand-in trees: the text report and the same findings as JSON. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DoctorCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path sys;

    @TempDir
    Path proc;

    @TempDir
    Path host;

    private String[] args(String... more) {
        String[] base = {
            "doctor",
            "--nic",
            "eth0",
            "--sysfs-root",
            sys.toString(),
            "--proc-root",
            proc.toString(),
            "--host-root",
            host.toString()
        };
        String[] all = new String[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    @Test
    void textAndJsonSayTheSameFindings() throws Exception {
        NicFixture.i40eOnMana(sys, proc);
        NicFixture.file(proc.resolve("sys/kernel/osrelease"), "7.3.4+deb13-amd64");
        NicFixture.file(proc.resolve("sys/net/core/txq_reselection_ms"), "1000");
        NicFixture.file(proc.resolve("self/status"), "Uid:\t1000\t1000\t1000\t1000\nCapEff:\t0000000000000000\n");
        NicFixture.file(host.resolve("etc/tuned/active_profile"), "throughput-performance");

        CliRun text = CliRun.of(args());
        assertEquals(0, text.exitCode(), text.err());
        String out = text.out();
        assertTrue(out.startsWith("kernel 7.3.4+deb13-amd64\n\nkernel features:\n"), out);
        assertTrue(
                out.contains("\n  txq_reselection_ms       present  " + proc.resolve("sys/net/core/txq_reselection_ms")
                        + " is 1000\n"),
                out);
        assertTrue(
                out.contains("\n  root                     absent   effective uid 1000 (" + proc.resolve("self/status")
                        + "); needs root, for apply and restore (sudo)\n"),
                out);
        assertTrue(out.contains("\n  tuned                    present  profile throughput-performance ("), out);
        assertTrue(out.contains("; to hand the IRQs to numaspread: a profile without"), out);
        assertTrue(out.contains("\nbackends:\n  backend_ffm"), out);
        assertTrue(out.contains("\nother managers of IRQs:\n  irqbalance               absent   no process"), out);

        CliRun json = CliRun.of(args("--json"));
        assertEquals(0, json.exitCode(), json.err());
        JsonNode root = JSON.readTree(json.out());
        assertEquals("7.3.4+deb13-amd64", root.get("kernel_release").asText());
        Map<String, JsonNode> byFeature = new HashMap<>();
        root.get("findings")
                .forEach(finding -> byFeature.put(finding.get("feature").asText(), finding));
        assertEquals(30, byFeature.size(), byFeature.keySet().toString());
        assertEquals("absent", byFeature.get("cpu_leases").get("state").asText(), "no registry in the stand-in tree");
        assertEquals("kernel", byFeature.get("isolated_cpus").get("area").asText());
        JsonNode napiSet = byFeature.get("napi_set");
        assertEquals("kernel", napiSet.get("area").asText());
        assertEquals("unknown", napiSet.get("state").asText(), "a stand-in tree is not asked over netlink");
        JsonNode txq = byFeature.get("txq_reselection_ms");
        assertEquals("present", txq.get("state").asText());
        assertTrue(txq.get("need").isNull());
        JsonNode netAdmin = byFeature.get("cap_net_admin");
        assertEquals("privilege", netAdmin.get("area").asText());
        assertEquals("absent", netAdmin.get("state").asText());
        assertEquals("CAP_NET_ADMIN, for napi-set", netAdmin.get("need").asText());
        for (JsonNode finding : root.get("findings")) {
            String line = "  "
                    + String.format(
                            "%-24s %-8s ",
                            finding.get("feature").asText(),
                            finding.get("state").asText())
                    + finding.get("evidence").asText();
            assertTrue(out.contains(line), "the text has the JSON's finding: " + line);
        }
    }

    @Test
    void anUnknownNicIsBadInputInOneLine() {
        NicFixture.i40eOnMana(sys, proc);
        CliRun run =
                CliRun.of("doctor", "--nic", "eth7", "--sysfs-root", sys.toString(), "--proc-root", proc.toString());
        assertEquals(Failures.BAD_INPUT, run.exitCode());
        assertEquals(1, run.err().strip().lines().count(), run.err());
        assertTrue(run.err().contains("eth7"), run.err());
    }
}
