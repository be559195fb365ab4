// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.nic.PerNapiThreaded;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Turning threaded NAPI on NAPI by NAPI with netdev netlink {@code napi-set} (Linux 6.17): each planned NAPI that is
 * off, or is to busy-poll and does not, is set to 1 (2 to busy-poll); the kernel starts that NAPI's {@code
 * napi/IFACE-ID} thread as it takes the call, and the device's other NAPIs stay as they are. Each NAPI's previous
 * value is recorded ({@link NapiThreadedRecord}): the kernel keeps it past numaspread's exit.
 */
final class NapiThreadedSwitch implements Change {
    private final ChangeContext kernel;
    private final InterfaceName iface;
    private final ThreadedNapiOn threading;
    /** Each NAPI to switch with its {@code threaded} before, in the order switched. */
    private final Map<Integer, Integer> before = new LinkedHashMap<>();
    /** The NAPIs written, the one whose call failed too: setting a NAPI to the value it holds changes nothing. */
    private final Map<Integer, Integer> written = new LinkedHashMap<>();
    /** The NAPIs whose previous value this change added to the state file (an earlier apply's record stays). */
    private List<Integer> recorded = List.of();

    NapiThreadedSwitch(ChangeContext kernel, InterfaceName iface, ThreadedNapiOn threading) {
        this.kernel = kernel;
        this.iface = iface;
        this.threading = threading;
        threading
                .napisOff()
                .forEach(napiId ->
                        before.put(napiId, threading.perNapi().orElseThrow().get(napiId)));
    }

    /** The planned NAPIs' values came with the plan, from {@code napi-get}. */
    @Override
    public void read() {}

    @Override
    public boolean changesAnything() {
        return !before.isEmpty();
    }

    /** Sets one NAPI's {@code threaded} to the value it holds, which changes nothing. */
    @Override
    public void probe() {
        int napiId = before.keySet().iterator().next();
        try {
            kernel.perNapi().write(napiId, before.get(napiId));
        } catch (IOException e) {
            Errno errno = Errno.of(e);
            if (errno == Errno.EPERM || errno == Errno.EACCES) {
                throw ChangeContext.napiSetRefused(
                        "cannot turn threaded NAPI on for NAPI " + napiId, Errno.describe(e));
            }
            // Anything else is the write's to report, and to roll back.
        }
    }

    @Override
    public StateFile.State record(StateFile.State state) {
        recorded = NapiEntries.notIn(
                before.keySet(), state.record(NapiThreadedRecord.class).before());
        return state.recording(NapiThreadedRecord.of(before));
    }

    @Override
    public void apply() {
        for (int napiId : before.keySet()) {
            written.put(napiId, before.get(napiId));
            int wanted = threading.wanted(napiId);
            try {
                kernel.perNapi().write(napiId, wanted);
            } catch (IOException e) {
                throw new NumaspreadException(
                        NumaspreadException.Kind.ROLLED_BACK,
                        "NAPI " + napiId + ": netdev napi-set threaded " + wanted + " failed: " + Errno.describe(e));
            }
        }
        Map<Integer, Integer> now = kernel.perNapi().read(iface);
        for (int napiId : before.keySet()) {
            Integer back = now.get(napiId);
            int wanted = threading.wanted(napiId);
            // Threaded asked: 1 or 2 both run the thread. Busy-poll asked: only 2 spins.
            if (back == null || back == 0 || wanted == PerNapiThreaded.BUSY_POLL && back != wanted) {
                throw new NumaspreadException(
                        NumaspreadException.Kind.ROLLED_BACK,
                        "NAPI " + napiId + ": netdev napi-set threaded " + wanted + " was taken, but napi-get reports "
                                + (back == null ? "no such NAPI" : "threaded " + back) + " after it");
            }
        }
    }

    @Override
    public List<String> undo() {
        List<String> stuck = new ArrayList<>();
        List<Integer> putBack = new ArrayList<>();
        written.forEach((napiId, was) -> {
            try {
                kernel.perNapi().write(napiId, was);
                putBack.add(napiId);
            } catch (IOException e) {
                stuck.add("NAPI " + napiId + " (netdev napi-set threaded " + was + ": " + Errno.describe(e) + ")");
            }
        });
        Map<Integer, Integer> now =
                putBack.isEmpty() ? Map.of() : kernel.perNapi().read(iface);
        for (int napiId : putBack) {
            Integer back = now.get(napiId);
            int was = written.get(napiId);
            if (back != null && back != was) {
                stuck.add("NAPI " + napiId + " (napi-get reports threaded " + back + " after napi-set threaded " + was
                        + ")");
            }
        }
        return stuck;
    }

    @Override
    public StateFile.State forget(StateFile.State state) {
        return state.with(state.record(NapiThreadedRecord.class).without(recorded));
    }

    @Override
    public int undone() {
        return written.isEmpty() ? 0 : 1;
    }

    @Override
    public Optional<String> undoneWords() {
        if (written.isEmpty()) {
            return Optional.empty();
        }
        String ids = written.keySet().stream().map(String::valueOf).collect(Collectors.joining(", "));
        return Optional.of(
                written.values().stream().allMatch(was -> was == 0)
                        ? "threaded NAPI is off again for NAPI " + ids
                        : "NAPI " + ids + " are back to threaded "
                                + written.values().stream().map(String::valueOf).collect(Collectors.joining(", ")));
    }

    /**
     * Puts each recorded NAPI's own {@code threaded} back with {@code napi-set} and reads them back; a NAPI that no
     * longer exists (the device or the queue removed) has nothing to put back.
     */
    static PutBack restoring(NapiThreadedRecord record, ChangeContext kernel, InterfaceName iface) {
        return new PutBack() {
            /** Refuses without the privilege to set a recorded NAPI's {@code threaded}. */
            @Override
            public void probe() {
                if (!Files.exists(kernel.paths().netDevice(iface))) {
                    return;
                }
                Map<Integer, Integer> now = kernel.perNapi().read(iface);
                for (int napiId : record.before().keySet()) {
                    Integer current = now.get(napiId);
                    if (current == null) {
                        continue;
                    }
                    try {
                        kernel.perNapi().write(napiId, current);
                    } catch (IOException e) {
                        Errno errno = Errno.of(e);
                        if (errno == Errno.EPERM || errno == Errno.EACCES) {
                            throw ChangeContext.napiSetRefused(
                                    "cannot put back NAPI " + napiId + "'s threaded", Errno.describe(e));
                        }
                    }
                    return;
                }
            }

            @Override
            public List<String> putBack(List<AffinityTransaction.Result> results) {
                if (!Files.exists(kernel.paths().netDevice(iface))) {
                    return List.of();
                }
                Map<Integer, Integer> now = kernel.perNapi().read(iface);
                List<String> failures = new ArrayList<>();
                List<Integer> written = new ArrayList<>();
                record.before().forEach((napiId, before) -> {
                    Integer current = now.get(napiId);
                    if (current == null || current.equals(before)) {
                        return;
                    }
                    try {
                        kernel.perNapi().write(napiId, before);
                        written.add(napiId);
                    } catch (IOException e) {
                        failures.add("NAPI " + napiId + ": netdev napi-set threaded " + before + " failed: "
                                + Errno.describe(e));
                    }
                });
                Map<Integer, Integer> back =
                        written.isEmpty() ? Map.of() : kernel.perNapi().read(iface);
                for (int napiId : written) {
                    int before = record.before().get(napiId);
                    Integer reads = back.get(napiId);
                    if (reads != null && reads != before) {
                        failures.add("NAPI " + napiId + ": set threaded " + before + " but napi-get reports " + reads);
                    }
                }
                return failures;
            }
        };
    }
}
