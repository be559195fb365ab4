// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.numaspread.nativeaccess.NativeCallException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * All or nothing over several NAPI instances, with the failures a real kernel gives only by chance: a write that
 * fails after others succeeded, and an instance that is gone by the time it is put back. The live path
 * ({@code napi-set} on this machine's kernel) is checked by {@code NapiDiscoveryLiveTest} and the Netty group's
 * {@code NapiSettingsLiveTest}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NapiSettingsChangeTest {
    private static final NapiSettings FOUND = new NapiSettings(0, 0, 0);
    private static final NapiSettings WANTED = new NapiSettings(2, 200_000, 0);

    /** Four NAPI instances in memory; a write to {@code failing} fails as the kernel would, with an errno. */
    private final Map<Integer, NapiSettings> kernel =
            new TreeMap<>(Map.of(8193, FOUND, 8194, FOUND, 8195, new NapiSettings(1, 10_000, 0), 8196, FOUND));

    private final Set<Integer> failing = new HashSet<>();
    private final List<String> calls = new ArrayList<>();

    private final NapiSettingsChange.Access access = new NapiSettingsChange.Access() {
        @Override
        public NapiSettings read(int napiId) {
            calls.add("read " + napiId);
            NapiSettings settings = kernel.get(napiId);
            if (settings == null) {
                throw new NativeCallException("netlink netdev napi-get " + napiId, 2, "No such file or directory", "");
            }
            return settings;
        }

        @Override
        public void write(int napiId, NapiSettings settings) {
            calls.add("write " + napiId);
            if (failing.contains(napiId) || !kernel.containsKey(napiId)) {
                throw new NativeCallException(
                        "netlink netdev napi-set " + napiId,
                        kernel.containsKey(napiId) ? 22 : 2,
                        "Invalid argument",
                        "");
            }
            kernel.put(napiId, settings);
        }
    };

    @Test
    void writesEveryInstanceAndPutsEachBackAsItWas() {
        Map<Integer, NapiSettings> before = Map.copyOf(kernel);
        NapiSettingsChange change = NapiSettingsChange.apply(access, List.of(8193, 8194, 8195), WANTED);
        assertEquals(Map.of(8193, WANTED, 8194, WANTED, 8195, WANTED, 8196, FOUND), kernel);
        assertEquals(Map.of(8193, FOUND, 8194, FOUND, 8195, new NapiSettings(1, 10_000, 0)), change.before());
        change.restore();
        assertEquals(before, kernel);
    }

    @Test
    void aWriteThatFailsPutsBackTheOnesWrittenAndChangesNothing() {
        Map<Integer, NapiSettings> before = Map.copyOf(kernel);
        failing.add(8195);
        NativeCallException e = assertThrows(
                NativeCallException.class,
                () -> NapiSettingsChange.apply(access, List.of(8193, 8194, 8195, 8196), WANTED));
        assertEquals(22, e.errno());
        assertEquals(before, kernel);
        assertEquals(
                List.of(
                        "read 8193",
                        "read 8194",
                        "read 8195",
                        "read 8196",
                        "write 8193",
                        "write 8194",
                        "write 8195",
                        "write 8193",
                        "write 8194"),
                calls,
                "every instance read before any write");
    }

    @Test
    void anInstanceThatCannotBeReadStopsItBeforeAnyWrite() {
        Map<Integer, NapiSettings> before = Map.copyOf(kernel);
        NativeCallException e = assertThrows(
                NativeCallException.class, () -> NapiSettingsChange.apply(access, List.of(8193, 9999), WANTED));
        assertEquals(2, e.errno());
        assertEquals(before, kernel);
        assertEquals(List.of("read 8193", "read 9999"), calls);
    }

    @Test
    void restoreSkipsAnInstanceThatIsGoneAndReportsOtherFailuresAfterTryingEveryOne() {
        NapiSettingsChange change = NapiSettingsChange.apply(access, List.of(8193, 8194, 8195), WANTED);
        kernel.remove(8193);
        change.restore();
        assertEquals(Map.of(8194, FOUND, 8195, new NapiSettings(1, 10_000, 0), 8196, FOUND), kernel);

        NapiSettingsChange again = NapiSettingsChange.apply(access, List.of(8194, 8195), WANTED);
        failing.add(8194);
        NativeCallException e = assertThrows(NativeCallException.class, again::restore);
        assertEquals("netlink netdev napi-set 8194", e.function());
        assertEquals(new NapiSettings(1, 10_000, 0), kernel.get(8195), "the one after the failure is put back");
    }
}
