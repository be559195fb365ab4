// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.NativeCallException;
import io.numaspread.nic.NapiConfig;
import io.numaspread.nic.NapiDiscovery;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiSettings;
import io.numaspread.pin.ThreadPinner;
import io.numaspread.testing.NeedsLiveNic;
import io.numaspread.testing.NeedsRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PinnedEventLoopGroup.Builder#napiSettings} on this machine's eth0 and kernel: from Linux 6.13 each
 * loop's queue's NAPI instance holds the settings while the group runs and its own ones again once the group
 * has terminated, and a setting the kernel rejects leaves every instance as it was; before 6.13 the build is
 * refused, naming the kernel needed.
 */
@NeedsLiveNic
@NeedsRoot
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NapiSettingsLiveTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");
    private static final NapiSettings WANTED = new NapiSettings(2, 200_000, 0);

    @TempDir
    Path run;

    private NativeBackend backend;
    private List<Integer> napiIds;
    private boolean hasNapiSet;

    @BeforeEach
    void eth0() throws Exception {
        backend = ThreadPinner.live().backend();
        napiIds = NapiDiscovery.discover(ETH0, KernelPaths.LIVE, backend).instances().stream()
                .filter(napi -> napi.queue().isPresent())
                .map(NapiInstance::id)
                .toList();
        hasNapiSet = LoopBusyPolling.atLeast(
                Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip(), 6, 13);
    }

    private Map<Integer, NapiSettings> settings() {
        Map<Integer, NapiSettings> settings = new LinkedHashMap<>();
        napiIds.forEach(id -> settings.put(id, NapiConfig.read(KernelPaths.LIVE, backend, id)));
        return settings;
    }

    private PinnedEventLoopGroup.Builder group(NapiSettings wanted) {
        return PinnedEventLoopGroup.builder(Transport.EPOLL.ioHandlerFactory())
                .nic(ETH0.value())
                .stateFile(run.resolve("eth0.json"))
                .napiSettings(wanted);
    }

    @Test
    void eachLoopsQueueHoldsTheSettingsUntilTheGroupHasTerminated() throws Exception {
        if (!hasNapiSet) {
            NumaspreadException refused =
                    assertThrows(NumaspreadException.class, () -> group(WANTED).build());
            assertEquals(NumaspreadException.Kind.REFUSED, refused.kind());
            assertTrue(refused.getMessage().contains("Linux 6.13"), refused.getMessage());
            return;
        }
        assertFalse(napiIds.isEmpty(), "eth0's NAPI map links its queues on this kernel");
        Map<Integer, NapiSettings> before = settings();
        assertFalse(before.containsValue(WANTED), "eth0 starts with other settings than the test's: " + before);
        PinnedEventLoopGroup group = group(WANTED).build();
        try {
            assertEquals(before, group.napiSettingsBefore());
            settings().forEach((id, now) -> assertEquals(WANTED, now, "NAPI " + id + " while the group runs"));
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((!settings().equals(before) || Files.exists(run.resolve("eth0.json"))) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(before, settings(), "put back once the group has terminated");
        assertFalse(Files.exists(run.resolve("eth0.json")), "its state file entries taken out, the file removed");
    }

    @Test
    void aSettingTheKernelRejectsLeavesEveryQueueAsItWas() throws Exception {
        // netdev's policy caps defer-hard-irqs at S32_MAX, though the attribute is a u32.
        NapiSettings tooMany = new NapiSettings(0x8000_0000L, 0, 0);
        if (!hasNapiSet) {
            assertEquals(
                    NumaspreadException.Kind.REFUSED,
                    assertThrows(NumaspreadException.class, () -> group(tooMany).build())
                            .kind());
            return;
        }
        Map<Integer, NapiSettings> before = settings();
        NativeCallException rejected =
                assertThrows(NativeCallException.class, () -> group(tooMany).build());
        assertTrue(rejected.function().startsWith("netlink netdev napi-set "), rejected.function());
        assertEquals(before, settings());
    }
}
