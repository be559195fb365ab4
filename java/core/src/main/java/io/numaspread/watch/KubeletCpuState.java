// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.irq.MiniJson;
import io.numaspread.kernel.KernelText;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The kubelet's CPU manager checkpoint ({@code /var/lib/kubelet/cpu_manager_state}): with the static policy,
 * {@code entries} maps each pod UID to its containers' exclusive CPUs ({@code {"policyName": "static",
 * "defaultCpuSet": "0-1,6-7", "entries": {"<pod uid>": {"app": "2-5"}}, "checksum": 1234}}). Queue IRQs are kept
 * off those CPUs, so that Guaranteed pods run undisturbed.
 */
public final class KubeletCpuState {
    private KubeletCpuState() {}

    /**
     * The union of every container's exclusive CPUs; none when the file does not exist (no kubelet, or a policy
     * that keeps no checkpoint).
     *
     * @throws NumaspreadException (bad input) naming the file when it cannot be read or parsed
     */
    public static CpuSet exclusiveCpus(Path file) {
        String text;
        try {
            text = KernelText.readUtf8(file, KernelText.MAX_ATTRIBUTE_BYTES);
        } catch (NoSuchFileException e) {
            return CpuSet.EMPTY;
        } catch (IOException e) {
            throw NumaspreadException.badInput("cannot read the kubelet's CPU state " + file + ": " + e.getMessage());
        }
        return parse(file, text);
    }

    static CpuSet parse(Path file, String text) {
        if (text.isBlank()) {
            // An empty file holds no JSON value at all, so it is not an object rather than malformed.
            throw NumaspreadException.badInput(file + " is not the kubelet's CPU state: not a JSON object");
        }
        Object root;
        try {
            root = MiniJson.parse(text);
        } catch (IllegalArgumentException e) {
            throw NumaspreadException.badInput(file + " is not the kubelet's CPU state (JSON): " + e.getMessage());
        }
        if (!(root instanceof Map<?, ?> object)) {
            throw NumaspreadException.badInput(file + " is not the kubelet's CPU state: not a JSON object");
        }
        Object entries = object.get("entries");
        if (entries == null) {
            return CpuSet.EMPTY;
        }
        if (!(entries instanceof Map<?, ?> pods)) {
            throw NumaspreadException.badInput(file + ": \"entries\" is not an object of pods");
        }
        CpuSet exclusive = CpuSet.EMPTY;
        for (Map.Entry<?, ?> pod : pods.entrySet()) {
            if (!(pod.getValue() instanceof Map<?, ?> containers)) {
                continue; // a pod that is not an object names no containers
            }
            for (Map.Entry<?, ?> container : containers.entrySet()) {
                try {
                    exclusive = exclusive.union(CpuSet.parse(text(container.getValue())));
                } catch (IllegalArgumentException e) {
                    throw NumaspreadException.badInput(file + ": pod " + pod.getKey() + " container "
                            + container.getKey() + ": " + e.getMessage());
                }
            }
        }
        return exclusive;
    }

    /** A container's CPU list as text: a string as it is, a number or a word as written, an object or array as none. */
    private static String text(Object value) {
        if (value instanceof Map<?, ?> || value instanceof List<?>) {
            return "";
        }
        return String.valueOf(value);
    }
}
