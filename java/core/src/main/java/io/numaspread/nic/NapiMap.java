// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import io.numaspread.kernel.InterfaceName;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A NIC's NAPI instances as found at one moment, and the source they came from.
 *
 * @param instances ordered by NAPI ID; empty when the source is {@link NapiSource#INTERRUPTS}
 * @param detail one line for people: what was read, and for a derived map how the queues were derived
 */
public record NapiMap(InterfaceName iface, List<NapiInstance> instances, NapiSource source, String detail) {
    public NapiMap {
        instances = List.copyOf(instances);
    }

    /**
     * Pure: the maps of an upper device's NICs (a bond's members, {@link LowerDevices}) as one map of {@code
     * device}, which can hold them all since NAPI IDs are unique on a host. NIC m's queue q becomes {@code
     * offset(m) + q}, where {@code offset(m)} is the sum of the shares before it, so that loop i of one group over
     * all the NICs owns queue i; a queue at or beyond its NIC's share gets none. The source is the least trusted of
     * the NICs' ({@link NapiSource} is in that order), the detail each NIC's in turn.
     *
     * @param shares how many queues of each NIC have a place, in the order of {@code nics}
     * @throws IllegalArgumentException when the lists differ in length or two NICs give one NAPI ID (maps of
     *     different moments or hosts)
     */
    public static NapiMap merged(InterfaceName device, List<NapiMap> nics, List<Integer> shares) {
        if (nics.size() != shares.size() || nics.isEmpty()) {
            throw new IllegalArgumentException(nics.size() + " NAPI maps and " + shares.size() + " shares");
        }
        List<NapiInstance> all = new ArrayList<>();
        Set<Integer> ids = new HashSet<>();
        int offset = 0;
        for (int m = 0; m < nics.size(); m++) {
            int share = shares.get(m);
            for (NapiInstance napi : nics.get(m).instances()) {
                if (!ids.add(napi.id())) {
                    throw new IllegalArgumentException("NAPI ID " + napi.id() + " is in two maps, "
                            + nics.get(m).iface() + "'s and another's");
                }
                OptionalInt queue = napi.queue().isPresent() && napi.queue().getAsInt() < share
                        ? OptionalInt.of(offset + napi.queue().getAsInt())
                        : OptionalInt.empty();
                all.add(new NapiInstance(napi.id(), queue, napi.irq(), napi.threadPid(), napi.threaded()));
            }
            offset += share;
        }
        all.sort(Comparator.comparingInt(NapiInstance::id));
        NapiSource source = nics.stream()
                .map(NapiMap::source)
                .max(Comparator.naturalOrder())
                .orElseThrow();
        String detail =
                nics.stream().map(map -> map.iface() + ": " + map.detail()).collect(Collectors.joining("; "));
        return new NapiMap(device, all, source, detail);
    }

    public Optional<NapiInstance> byId(int napiId) {
        for (NapiInstance instance : instances) {
            if (instance.id() == napiId) {
                return Optional.of(instance);
            }
        }
        return Optional.empty();
    }

    /** The receive queue that NAPI {@code napiId} polls, when this map knows it. */
    public OptionalInt queueOf(int napiId) {
        return byId(napiId).map(NapiInstance::queue).orElse(OptionalInt.empty());
    }

    /** The NAPI instance that polls receive queue {@code queue}, when this map knows it. */
    public Optional<NapiInstance> forQueue(int queue) {
        for (NapiInstance instance : instances) {
            if (instance.queue().isPresent() && instance.queue().getAsInt() == queue) {
                return Optional.of(instance);
            }
        }
        return Optional.empty();
    }
}
