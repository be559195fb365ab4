// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;

/**
 * A failure of one of an apply's NAPI features: refused before any change, or failed part way and put back. It
 * carries the feature as a value, so that each caller names it in its own terms (the CLI by its option); the
 * message states only the problem, naming the culprit (the NIC, its queue or NAPI, the kernel release, the file).
 */
public final class NapiFeatureFailure extends NumaspreadException {
    private static final long serialVersionUID = 1L;

    /** What the caller asked for that failed. */
    public enum Feature {
        /** Each planned queue's NAPI kernel thread pinned with its IRQ (threaded NAPI). */
        NAPI_THREADS,
        /** Polled queues' NAPI threads busy-polling on cores of their own (threaded busy polling). */
        BUSY_POLL,
        /** IRQ suspension's per-NAPI settings (netdev netlink napi-set). */
        IRQ_SUSPENSION,
        /** The busy-poll threads' scheduling class (sched_setscheduler). */
        POLL_SCHEDULING
    }

    private final Feature feature;

    NapiFeatureFailure(Kind kind, Feature feature, String problem) {
        super(kind, problem);
        this.feature = feature;
    }

    NapiFeatureFailure(Kind kind, Feature feature, String problem, Throwable cause) {
        super(kind, problem, cause);
        this.feature = feature;
    }

    /** This failure with what was put back said after it ("; threaded is 0 again"). */
    NapiFeatureFailure followedBy(String more) {
        return new NapiFeatureFailure(kind(), feature, getMessage() + more, this);
    }

    /** The feature that failed. */
    public Feature feature() {
        return feature;
    }
}
