// SPDX-License-Identifier: Apache-2.0
package io.numaspread.doctor;

import java.util.Objects;
import java.util.Optional;

/**
 * One thing the doctor looked at.
 *
 * @param area what kind of thing it is
 * @param feature its stable name ({@code napi_set}, {@code irqbalance}, ...)
 * @param state whether the machine has it ({@link State#PRESENT}) or not, or whether that could not be known
 * @param evidence how it was found: the file, the netlink answer, the kernel release
 * @param need what it takes when it is absent or unknown (a kernel version, a privilege, a flag); empty otherwise
 */
public record Finding(Area area, String feature, State state, String evidence, Optional<String> need) {
    public Finding {
        Objects.requireNonNull(area);
        Objects.requireNonNull(feature);
        Objects.requireNonNull(state);
        Objects.requireNonNull(evidence);
        Objects.requireNonNull(need);
    }

    static Finding present(Area area, String feature, String evidence) {
        return new Finding(area, feature, State.PRESENT, evidence, Optional.empty());
    }

    static Finding absent(Area area, String feature, String evidence, String need) {
        return new Finding(area, feature, State.ABSENT, evidence, Optional.of(need));
    }

    /** Absent, and nothing is needed: a backend skipped for its reason, a manager that is not there. */
    static Finding without(Area area, String feature, String evidence) {
        return new Finding(area, feature, State.ABSENT, evidence, Optional.empty());
    }

    static Finding unknown(Area area, String feature, String evidence, String need) {
        return new Finding(area, feature, State.UNKNOWN, evidence, Optional.of(need));
    }

    /** For a manager of IRQs, present means it is there and may move them. */
    public enum Area {
        KERNEL,
        BACKEND,
        PRIVILEGE,
        PROCESS,
        MANAGER,
        /** Who holds which CPU in the host's CPU lease registry (the CLI reads it, not the doctor). */
        LEASES
    }

    public enum State {
        PRESENT,
        ABSENT,
        UNKNOWN
    }
}
