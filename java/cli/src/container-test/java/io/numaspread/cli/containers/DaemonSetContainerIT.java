// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.containers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.Volume;
import io.numaspread.CpuSet;
import io.numaspread.testing.NeedsContainerEngine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/kubernetes/daemonset.yaml's container under podman with exactly the privileges its manifest asks for, read
 * from it: its capabilities, its mounts (hostPath as host paths, read-only where it says so), the node's network and
 * PID namespaces, a read-only root and no privilege escalation. With them {@code apply} changes the host's eth0
 * IRQs as planned and {@code restore} puts them back; with any one of them less, the write that needs it fails.
 * The host's affinities are put back after every test.
 */
@NeedsContainerEngine
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class DaemonSetContainerIT {
    private static final String NIC = "eth0";
    /** The kernel checks CAP_NET_ADMIN on this write as on XPS's (net-sysfs), and this NIC has no XPS files. */
    private static final String THREADED = "/sys/class/net/" + NIC + "/threaded";

    private final HostIrqs irqs = new HostIrqs(NIC);
    private final JsonNode podSpec = manifest().at("/spec/template/spec");
    private final JsonNode container = podSpec.path("containers").get(0);
    private Map<Integer, CpuSet> original;

    /** Stands in for the node's /run/numaspread, and for the kubelet's directory and the ConfigMap's files. */
    @TempDir
    Path hostFiles;

    @BeforeEach
    void rememberTheHostsAffinities() {
        original = irqs.affinities();
    }

    @AfterEach
    void putTheHostsAffinitiesBack() {
        HostIrqs.set(original);
    }

    @Test
    void theManifestsPrivilegesApplyAndRestore() throws Exception {
        Map<Integer, CpuSet> planned = irqs.plannedQueueAffinities();
        Map<Integer, CpuSet> before = irqs.startAwayFromThePlan(planned);
        try (NumaspreadContainer pod = start(UnaryOperator.identity())) {
            pod.numaspread("apply", "--nic", NIC, "--proc-irq", procIrq()).expectSuccess();
            Map<Integer, CpuSet> expected = new TreeMap<>(before);
            expected.putAll(planned);
            assertEquals(expected, irqs.affinities(), "queue vectors as planned, the others untouched");
            pod.numaspread("restore", "--nic", NIC, "--proc-irq", procIrq()).expectSuccess();
        }
        assertEquals(before, irqs.affinities());
    }

    @Test
    void withTheHostsProcIrqReadOnlyApplyIsRefusedAndChangesNothing() throws Exception {
        Map<Integer, CpuSet> before = irqs.startAwayFromThePlan(irqs.plannedQueueAffinities());
        try (NumaspreadContainer pod = start(mounts -> {
            mounts.put(procIrq(), new Mount("/proc/irq", true));
            return mounts;
        })) {
            NumaspreadContainer.Run run = pod.numaspread("apply", "--nic", NIC, "--proc-irq", procIrq());
            assertEquals(3, run.exitCode(), run::toString);
            assertTrue(run.err().contains("EROFS"), run::toString);
        }
        assertEquals(before, irqs.affinities());
    }

    @Test
    void theNicsAttributesNeedNetAdminAndTheHostsSysDevices() {
        String rewrite = "value=$(cat " + THREADED + ") && echo \"$value\" > " + THREADED;
        try (NumaspreadContainer pod = start(UnaryOperator.identity())) {
            pod.exec("sh", "-c", rewrite).expectSuccess();
        }
        try (NumaspreadContainer pod = start(UnaryOperator.identity(), List.of())) {
            NumaspreadContainer.Run run = pod.exec("sh", "-c", rewrite);
            assertNotEquals(0, run.exitCode(), "without CAP_NET_ADMIN: " + run);
        }
        try (NumaspreadContainer pod = start(mounts -> {
            mounts.remove("/sys/devices");
            return mounts;
        })) {
            NumaspreadContainer.Run run = pod.exec("sh", "-c", rewrite);
            assertNotEquals(0, run.exitCode(), "without the host's /sys/devices: " + run);
            assertTrue(run.err().contains("Read-only file system"), run::toString);
        }
    }

    /** A mount of the pod: where it comes from on the host, read-only or not; an emptyDir is a tmpfs (null host). */
    private record Mount(String host, boolean readOnly) {}

    private NumaspreadContainer start(UnaryOperator<Map<String, Mount>> change) {
        return start(change, strings(container.at("/securityContext/capabilities/add")));
    }

    /** A container with the manifest's privileges, its mounts (by container path) as {@code change} makes them. */
    private NumaspreadContainer start(UnaryOperator<Map<String, Mount>> change, List<String> capabilities) {
        JsonNode security = container.path("securityContext");
        assertFalse(security.path("privileged").asBoolean(true), "the manifest's container is unprivileged");
        assertEquals(List.of("ALL"), strings(security.at("/capabilities/drop")));
        Map<String, Mount> mounts = change.apply(mounts());
        return NumaspreadContainer.start(host -> {
            host.withCapDrop(Capability.ALL)
                    .withCapAdd(capabilities.stream().map(Capability::valueOf).toArray(Capability[]::new))
                    .withPrivileged(false)
                    .withNetworkMode(podSpec.path("hostNetwork").asBoolean() ? "host" : "bridge")
                    .withPidMode(podSpec.path("hostPID").asBoolean() ? "host" : null)
                    .withReadonlyRootfs(security.path("readOnlyRootFilesystem").asBoolean())
                    .withSecurityOpts(
                            security.path("allowPrivilegeEscalation").asBoolean(true)
                                    ? List.of()
                                    : List.of("no-new-privileges"));
            List<Bind> binds = new ArrayList<>(host.getBinds() == null ? List.of() : Arrays.asList(host.getBinds()));
            Map<String, String> tmpfs = new LinkedHashMap<>();
            mounts.forEach((path, mount) -> {
                if (mount.host() == null) {
                    tmpfs.put(path, "");
                } else {
                    binds.add(
                            new Bind(mount.host(), new Volume(path), mount.readOnly() ? AccessMode.ro : AccessMode.rw));
                }
            });
            host.withBinds(binds).withTmpFs(tmpfs);
        });
    }

    /**
     * The manifest's mounts by container path. hostPath volumes are the host's paths, but the node's
     * /run/numaspread and /var/lib/kubelet, and the ConfigMap, which are directories of this test.
     */
    private Map<String, Mount> mounts() {
        Map<String, JsonNode> volumes = new LinkedHashMap<>();
        podSpec.path("volumes")
                .forEach(volume -> volumes.put(volume.path("name").asText(), volume));
        Map<String, Mount> mounts = new LinkedHashMap<>();
        for (JsonNode mount : container.path("volumeMounts")) {
            JsonNode volume = volumes.get(mount.path("name").asText());
            String path = mount.path("mountPath").asText();
            boolean readOnly = mount.path("readOnly").asBoolean();
            String hostPath = volume.at("/hostPath/path").asText(null);
            if (volume.has("emptyDir")) {
                mounts.put(path, new Mount(null, false));
            } else if (hostPath != null
                    && !hostPath.equals("/run/numaspread")
                    && !hostPath.equals("/var/lib/kubelet")) {
                mounts.put(path, new Mount(hostPath, readOnly));
            } else {
                mounts.put(path, new Mount(directory(mount.path("name").asText()), readOnly));
            }
        }
        return mounts;
    }

    private String directory(String name) {
        try {
            return Files.createDirectories(hostFiles.resolve(name)).toString();
        } catch (IOException e) {
            throw new IllegalStateException("cannot make " + name + " under " + hostFiles, e);
        }
    }

    /** The manifest's --proc-irq, the mount path of the host's /proc/irq. */
    private String procIrq() {
        List<String> command = strings(container.path("command"));
        return command.get(command.indexOf("--proc-irq") + 1);
    }

    private static JsonNode manifest() {
        try {
            return new ObjectMapper(new YAMLFactory())
                    .readTree(NumaspreadContainer.home()
                            .resolve("deploy/kubernetes/daemonset.yaml")
                            .toFile());
        } catch (IOException e) {
            throw new IllegalStateException("deploy/kubernetes/daemonset.yaml is not valid YAML", e);
        }
    }

    private static List<String> strings(JsonNode array) {
        List<String> strings = new ArrayList<>();
        array.forEach(element -> strings.add(element.asText()));
        return strings;
    }
}
