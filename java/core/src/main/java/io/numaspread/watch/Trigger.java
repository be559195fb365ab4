// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

/** Why a check of a NIC runs: the start, a burst of events, the recheck after one, or the drift interval. */
enum Trigger {
    START,
    EVENT,
    RECHECK,
    DRIFT_CHECK
}
