// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.NumaspreadException;
import io.numaspread.irq.AffinityTransaction;
import io.numaspread.irq.NapiSettingsRecord;
import io.numaspread.irq.NapiThreads;
import io.numaspread.irq.RecordedNapiSettings;
import io.numaspread.irq.StateFile;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nic.NapiConfig;
import io.numaspread.nic.NapiDiscovery;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiSettings;
import io.numaspread.nic.NapiSettingsChange;
import io.numaspread.pin.ThreadPinner;
import io.numaspread.testing.NeedsLiveNic;
import io.numaspread.testing.NeedsRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write-ahead record of a {@code napi-set} on this machine's eth0 and kernel, with every value written back
 * unchanged: the state file holds what the kernel's {@code napi-get} reports before the first write, and after a
 * "crash" (no restore of the writer's own) {@code restore} puts it back from the file and removes the file. Before
 * 6.13 the change is refused, naming the kernel needed, and nothing is recorded.
 */
@NeedsLiveNic
@NeedsRoot
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NapiSettingsStateLiveTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");

    @TempDir
    Path run;

    @Test
    void aCrashedWritersSettingsComeBackFromTheStateFile() throws Exception {
        NativeBackend backend = ThreadPinner.live().backend();
        NapiSettingsChange.Access netlink = NapiSettingsChange.Access.live(KernelPaths.LIVE, backend);
        Path state = run.resolve("eth0.json");
        int napiId = NapiDiscovery.discover(ETH0, KernelPaths.LIVE, backend).instances().stream()
                .filter(napi -> napi.queue().isPresent())
                .map(NapiInstance::id)
                .findFirst()
                .orElseThrow();
        boolean hasNapiSet = LoopBusyPolling.atLeast(
                Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip(), 6, 13);
        if (!hasNapiSet) {
            NumaspreadException refused = assertThrows(
                    NumaspreadException.class,
                    () -> RecordedNapiSettings.apply(state, ETH0, netlink, List.of(napiId), new NapiSettings(0, 0, 0)));
            assertTrue(refused.getMessage().contains(NapiConfig.NEEDED_KERNEL), refused.getMessage());
            assertFalse(Files.exists(state));
            return;
        }
        NapiSettings before = NapiConfig.read(KernelPaths.LIVE, backend, napiId);
        // Unchanged: the same values go back, so the NIC is as it was whatever happens here.
        RecordedNapiSettings.apply(state, ETH0, netlink, List.of(napiId), before);
        assertEquals(
                Map.of(napiId, before),
                StateFile.read(state)
                        .orElseThrow()
                        .record(NapiSettingsRecord.class)
                        .before(),
                "recorded as napi-get reports them");
        List<AffinityTransaction.Result> results = new AffinityTransaction(
                        KernelPaths.LIVE, KernelFiles.DIRECT, SysfsTree.live().maskBits(), NapiThreads.NONE, netlink)
                .restore(state, Optional.of(ETH0));
        assertTrue(results.isEmpty(), "no IRQ or XPS entries: " + results);
        assertFalse(Files.exists(state), "restored, the state file is removed");
        assertEquals(before, NapiConfig.read(KernelPaths.LIVE, backend, napiId), "napi-get after the restore");
    }

    /**
     * A group's {@code napiSettings} of the values eth0's NAPIs hold already: recorded in the group's state file
     * while it runs, the file gone once it has terminated.
     */
    @Test
    void aGroupRecordsItsNapisWhileItRunsAndTakesThemOutWhenDone() throws Exception {
        NativeBackend backend = ThreadPinner.live().backend();
        Path state = run.resolve("eth0.json");
        if (!LoopBusyPolling.atLeast(
                Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip(), 6, 13)) {
            NumaspreadException refused = assertThrows(
                    NumaspreadException.class,
                    () -> PinnedEventLoopGroup.builder(Transport.EPOLL.ioHandlerFactory())
                            .nic(ETH0.value())
                            .stateFile(state)
                            .napiSettings(new NapiSettings(0, 0, 0))
                            .build());
            assertTrue(refused.getMessage().contains(NapiConfig.NEEDED_KERNEL), refused.getMessage());
            assertFalse(Files.exists(state), "nothing recorded");
            return;
        }
        Map<Integer, NapiSettings> own = new java.util.TreeMap<>();
        NapiDiscovery.discover(ETH0, KernelPaths.LIVE, backend).instances().stream()
                .filter(napi -> napi.queue().isPresent())
                .forEach(napi -> own.put(napi.id(), NapiConfig.read(KernelPaths.LIVE, backend, napi.id())));
        assertEquals(1, Set.copyOf(own.values()).size(), "eth0's NAPIs hold one set of settings: " + own);
        NapiSettings unchanged = own.values().iterator().next();
        PinnedEventLoopGroup group = PinnedEventLoopGroup.builder(Transport.EPOLL.ioHandlerFactory())
                .nic(ETH0.value())
                .stateFile(state)
                .napiSettings(unchanged)
                .build();
        try {
            Map<Integer, NapiSettings> recorded = StateFile.read(state)
                    .orElseThrow()
                    .record(NapiSettingsRecord.class)
                    .before();
            assertFalse(recorded.isEmpty(), "the loops' NAPIs are recorded");
            recorded.forEach((id, settings) -> assertEquals(own.get(id), settings, "NAPI " + id));
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (Files.exists(state) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertFalse(Files.exists(state), "the group's entries taken out, the file removed");
    }
}
