// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** deploy/kubernetes: the fields numaspread depends on, and their wiring to the ConfigMap and image. */
@Timeout(60)
class KubernetesManifestsTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private final JsonNode configMap = manifest("configmap.yaml");
    private final JsonNode daemonSet = manifest("daemonset.yaml");
    private final JsonNode serverPod = manifest("server-pod-example.yaml");
    private final JsonNode node = daemonSet.at("/spec/template/spec");
    private final JsonNode container = onlyContainer(node);

    @Test
    void daemonSetRunsInTheNodesNetworkAndPidNamespaces() {
        assertEquals("DaemonSet", daemonSet.path("kind").asText());
        assertEquals("apps/v1", daemonSet.path("apiVersion").asText());
        assertTrue(node.path("hostNetwork").asBoolean(), "the NIC and /sys/class/net are the node's");
        assertTrue(node.path("hostPID").asBoolean(), "apply must see the node's irqbalance");
        assertEquals("Exists", node.at("/tolerations/0/operator").asText(), "runs on every node, tainted or not");
        JsonNode selector = daemonSet.at("/spec/selector/matchLabels");
        selector.fields()
                .forEachRemaining(label -> assertEquals(
                        label.getValue(),
                        daemonSet.at("/spec/template/metadata/labels").path(label.getKey()),
                        "selector " + label.getKey()));
    }

    /** The least that was measured to work (DaemonSetContainerIT runs the container with exactly these). */
    @Test
    void daemonSetIsUnprivilegedWithNetAdminAlone() {
        JsonNode security = container.path("securityContext");
        assertFalse(security.path("privileged").asBoolean(true), "privileged: false, said so");
        assertEquals(List.of("ALL"), strings(security.at("/capabilities/drop")));
        assertEquals(List.of("NET_ADMIN"), strings(security.at("/capabilities/add")), "XPS writes");
        assertFalse(security.path("allowPrivilegeEscalation").asBoolean(true));
        assertTrue(security.path("readOnlyRootFilesystem").asBoolean());
        assertEquals("RuntimeDefault", security.at("/seccompProfile/type").asText());
        assertEquals(0, security.path("runAsUser").asInt(-1), "/proc/irq's files are the host root's");
        assertFalse(node.path("automountServiceAccountToken").asBoolean(true), "it never calls the API server");
    }

    @Test
    void hostMountsForIrqsStateAndTheKubeletsCpuManager() {
        Map<String, JsonNode> mounts = mountsByPath(node, container);
        assertEquals(
                Set.of("/host/proc/irq", "/sys/devices", "/tmp", "/run/numaspread", "/host/kubelet", "/etc/numaspread"),
                mounts.keySet());
        // Outside /proc, where the runtime refuses mounts, and named to watch.
        assertHostPath(mounts.get("/host/proc/irq"), "/proc/irq", false);
        List<String> command = strings(container.path("command"));
        assertEquals("/host/proc/irq", command.get(command.indexOf("--proc-irq") + 1));
        assertHostPath(mounts.get("/sys/devices"), "/sys/devices", false);
        assertEquals("Memory", mounts.get("/tmp").at("/volume/emptyDir/medium").asText(), "the JVM's /tmp");
        assertHostPath(mounts.get("/run/numaspread"), "/run/numaspread", false);
        assertEquals(
                "DirectoryOrCreate",
                mounts.get("/run/numaspread").at("/volume/hostPath/type").asText());
        // The directory, not the file: the kubelet renames a new state file over the old one.
        assertHostPath(mounts.get("/host/kubelet"), "/var/lib/kubelet", true);
        assertEquals(
                "/host/kubelet/cpu_manager_state",
                command.get(command.indexOf("--kubelet-cpu-state") + 1),
                "watch reads the kubelet's exclusive CPUs itself");
    }

    /** A release's tag, the one the build makes (the Maven version without -SNAPSHOT), never :latest. */
    @Test
    void theImageIsPinnedToTheRelease() throws IOException {
        Matcher version = Pattern.compile("<version>(\\d+\\.\\d+\\.\\d+)(-SNAPSHOT)?</version>")
                .matcher(Files.readString(Repository.path("pom.xml")));
        assertTrue(version.find(), "pom.xml's version");
        assertEquals("numaspread:" + version.group(1), container.path("image").asText());
    }

    @Test
    void commandIsWatchWithItsOptionsFromTheConfigMap() throws IOException {
        List<String> command = strings(container.path("command"));
        assertEquals(List.of("numaspread", "watch", "--nic", "$(NIC)"), command.subList(0, 4));
        assertTrue(command.contains("--restore-on-exit"), "the node's affinities come back when the pod stops");
        assertFalse(command.contains("sh"), "no shell loop: watch itself re-plans");
        assertTrue(
                Files.readString(Repository.path("deploy/Containerfile"))
                        .matches("(?s).*\\nCOPY target/deb/root/ /\\n.*"),
                "the image is the Debian package's tree, with numaspread in /usr/bin");
        Map<String, JsonNode> env = env(container);
        assertEquals(Map.of("NIC", "nic"), configMapKeys(env));
        assertEquals(configMap.at("/metadata/name"), env.get("NIC").at("/valueFrom/configMapKeyRef/name"));
        assertEquals(configMap.at("/metadata/namespace"), daemonSet.at("/metadata/namespace"));

        // The last word is picocli's @file: the ConfigMap's watch-options, mounted where it names.
        String atFile = command.get(command.size() - 1);
        assertTrue(atFile.startsWith("@"), atFile);
        Path options = Path.of(atFile.substring(1));
        JsonNode mount = mountsByPath(node, container).get(options.getParent().toString());
        assertEquals(configMap.at("/metadata/name"), mount.at("/volume/configMap/name"));
        assertEquals("watch-options", mount.at("/volume/configMap/items/0/key").asText());
        assertEquals(
                options.getFileName().toString(),
                mount.at("/volume/configMap/items/0/path").asText());
        assertEquals(Set.of("nic", "watch-options"), fieldNames(configMap.path("data")));

        // Every "$(VAR)" is defined, so that the kubelet expands it.
        for (String word : command) {
            Matcher variable = Pattern.compile("\\$\\((\\w+)\\)").matcher(word);
            while (variable.find()) {
                assertTrue(env.containsKey(variable.group(1)), word + " is defined in env");
            }
        }
    }

    /** Unauthenticated, so on the node's loopback alone: no port on the node's address, nothing to scrape there. */
    @Test
    void metricsAreServedOnTheNodesLoopbackOnly() {
        List<String> command = strings(container.path("command"));
        assertEquals("127.0.0.1", command.get(command.indexOf("--metrics-address") + 1));
        assertTrue(container.path("ports").isMissingNode(), "no port declared on the node's address");
        assertTrue(
                daemonSet.at("/spec/template/metadata/annotations").isMissingNode(),
                "no prometheus.io/scrape: the cluster's Prometheus could not reach 127.0.0.1");
    }

    @Test
    void theOptionsFileOfTheConfigMapIsReadByWatch(@TempDir Path directory) throws IOException {
        Path options = directory.resolve("watch-options");
        Files.writeString(options, configMap.at("/data/watch-options").asText() + "\n--interval 0\n");
        CliRun run = CliRun.of("watch", "--nic", "eth0", "@" + options);
        assertEquals(2, run.exitCode(), run.err());
        assertEquals("numaspread: --interval must be between 0 and 86400 seconds, not 0\n", run.err());
    }

    @Test
    void stoppingRestoresTheNicThroughWatchItself() {
        assertTrue(
                container.at("/lifecycle/preStop").isMissingNode(),
                "a preStop restore would race watch, which restores on SIGTERM with --restore-on-exit");
        assertTrue(node.path("terminationGracePeriodSeconds").asInt() >= 10, "restore needs a moment");
    }

    @Test
    void serverPodLoadsTheAgentCopiedFromTheImage() {
        JsonNode spec = serverPod.path("spec");
        JsonNode server = onlyContainer(spec);
        String options = env(server).get("JAVA_TOOL_OPTIONS").path("value").asText();
        Matcher agent = Pattern.compile("-javaagent:(/\\S+/numaspread-agent\\.jar)=(\\S+)")
                .matcher(options);
        assertTrue(agent.matches(), options);
        Map<String, String> agentOptions = new LinkedHashMap<>();
        for (String option : agent.group(2).split(",")) {
            String[] keyValue = option.split("=", 2);
            agentOptions.put(keyValue[0], keyValue[1]);
        }
        assertEquals(Set.of("threads", "nic"), agentOptions.keySet(), agent.group(2));
        assertTrue(spec.path("hostNetwork").asBoolean(), "nic=" + agentOptions.get("nic") + " is the node's NIC");

        Path jar = Path.of(agent.group(1));
        JsonNode serverMount = mountsByPath(spec, server).get(jar.getParent().toString());
        assertTrue(serverMount.path("readOnly").asBoolean(), "the server mounts the agent read-only");
        JsonNode copier = spec.path("initContainers").get(0);
        JsonNode copierMount = copier.path("volumeMounts").get(0);
        assertEquals(serverMount.path("name"), copierMount.path("name"), "one shared volume");
        assertEquals(
                List.of(
                        "cp",
                        "/usr/share/numaspread/numaspread-agent.jar",
                        copierMount.path("mountPath").asText() + "/"),
                strings(copier.path("command")),
                "copies the jar from where the package, and so the image, puts it");
        assertEquals(container.path("image"), copier.path("image"), "the numaspread image");
    }

    @Test
    void serverPodIsGuaranteedSoTheStaticCpuManagerGivesItExclusiveCpus() {
        JsonNode resources = onlyContainer(serverPod.path("spec")).path("resources");
        assertEquals(resources.path("requests"), resources.path("limits"));
        assertTrue(resources.at("/limits/cpu").asText().matches("[1-9][0-9]*"), "whole CPUs");
    }

    private static JsonNode manifest(String name) {
        try {
            return YAML.readTree(Repository.path("deploy/kubernetes/" + name).toFile());
        } catch (IOException e) {
            throw new IllegalStateException("deploy/kubernetes/" + name + " is not valid YAML", e);
        }
    }

    private static JsonNode onlyContainer(JsonNode podSpec) {
        assertEquals(1, podSpec.path("containers").size(), "containers");
        return podSpec.path("containers").get(0);
    }

    /** Each mount of the container by its mountPath, with its volume under "volume". */
    private static Map<String, JsonNode> mountsByPath(JsonNode podSpec, JsonNode container) {
        Map<String, JsonNode> volumes = new LinkedHashMap<>();
        podSpec.path("volumes")
                .forEach(volume -> volumes.put(volume.path("name").asText(), volume));
        Map<String, JsonNode> mounts = new LinkedHashMap<>();
        for (JsonNode mount : container.path("volumeMounts")) {
            JsonNode volume = volumes.get(mount.path("name").asText());
            assertTrue(volume != null, "volume " + mount.path("name") + " is defined");
            mounts.put(mount.path("mountPath").asText(), ((ObjectNode) mount.deepCopy()).set("volume", volume));
        }
        return mounts;
    }

    private static void assertHostPath(JsonNode mount, String hostPath, boolean readOnly) {
        assertEquals(hostPath, mount.at("/volume/hostPath/path").asText(), mount.toString());
        assertEquals(readOnly, mount.path("readOnly").asBoolean(), mount.toString());
    }

    private static Map<String, JsonNode> env(JsonNode container) {
        Map<String, JsonNode> env = new LinkedHashMap<>();
        container.path("env").forEach(variable -> env.put(variable.path("name").asText(), variable));
        return env;
    }

    /** Environment variable to the ConfigMap key it is taken from. */
    private static Map<String, String> configMapKeys(Map<String, JsonNode> env) {
        Map<String, String> keys = new LinkedHashMap<>();
        env.forEach((name, variable) -> {
            JsonNode reference = variable.at("/valueFrom/configMapKeyRef");
            if (!reference.isMissingNode()) {
                keys.put(name, reference.path("key").asText());
            }
        });
        return keys;
    }

    private static Set<String> fieldNames(JsonNode object) {
        Set<String> names = new TreeSet<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static List<String> strings(JsonNode array) {
        assertFalse(array.isMissingNode(), "missing");
        List<String> strings = new ArrayList<>();
        array.forEach(element -> strings.add(element.asText()));
        return strings;
    }
}
