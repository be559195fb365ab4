// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;

/**
 * The kubelet's CPU manager checkpoint ({@code /var/lib/kubelet/cpu_manager_state}): with the static policy,
 * {@code entries} maps each pod UID to its containers' exclusive CPUs ({@code {"policyName": "static",
 * "defaultCpuSet": "0-1,6-7", "entries": {"<pod uid>": {"app": "2-5"}}, "checksum": 1234}}). Queue IRQs are kept
 * off those CPUs, so that Guaranteed pods run undisturbed.
 */
final class KubeletCpuState {
    private static final ObjectMapper JSON = new ObjectMapper();

    private KubeletCpuState() {}

    /**
     * The union of every container's exclusive CPUs; none when the file does not exist (no kubelet, or a policy
     * that keeps no checkpoint).
     *
     * @throws NumaspreadException (bad input) naming the file when it cannot be read or parsed
     */
    static CpuSet exclusiveCpus(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            return CpuSet.EMPTY;
        } catch (IOException e) {
            throw NumaspreadException.badInput("cannot read the kubelet's CPU state " + file + ": " + e.getMessage());
        }
        return parse(file, text);
    }

    static CpuSet parse(Path file, String text) {
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw NumaspreadException.badInput(
                    file + " is not the kubelet's CPU state (JSON): " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            throw NumaspreadException.badInput(file + " is not the kubelet's CPU state: not a JSON object");
        }
        JsonNode entries = root.path("entries");
        if (entries.isMissingNode() || entries.isNull()) {
            return CpuSet.EMPTY;
        }
        if (!entries.isObject()) {
            throw NumaspreadException.badInput(file + ": \"entries\" is not an object of pods");
        }
        CpuSet exclusive = CpuSet.EMPTY;
        for (Iterator<Map.Entry<String, JsonNode>> pods = entries.fields(); pods.hasNext(); ) {
            Map.Entry<String, JsonNode> pod = pods.next();
            for (Iterator<Map.Entry<String, JsonNode>> containers =
                            pod.getValue().fields();
                    containers.hasNext(); ) {
                Map.Entry<String, JsonNode> container = containers.next();
                try {
                    exclusive =
                            exclusive.union(CpuSet.parse(container.getValue().asText()));
                } catch (IllegalArgumentException e) {
                    throw NumaspreadException.badInput(file + ": pod " + pod.getKey() + " container "
                            + container.getKey() + ": " + e.getMessage());
                }
            }
        }
        return exclusive;
    }
}
