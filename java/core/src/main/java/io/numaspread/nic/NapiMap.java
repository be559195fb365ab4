// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import io.numaspread.kernel.InterfaceName;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

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
