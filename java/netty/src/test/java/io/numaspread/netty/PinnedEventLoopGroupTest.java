package io.numaspread.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.ProcStatus;
import io.numaspread.testing.SysfsFixture;
import io.numaspread.topology.SysfsTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PinnedEventLoopGroupTest {
    @Test
    void forNicMakesOneLoopPerQueueOfARealNic() throws Exception {
        NicQueues loopback = NicQueues.read(SysfsTree.live(), "lo");
        PinnedEventLoopGroup group = PinnedEventLoopGroup.forNic("lo", Transport.NIO.ioHandlerFactory());
        try {
            assertEquals(loopback.queues(), group.loops().size());
            assertEquals(Optional.empty(), loopback.node(), "lo has no device, so no node");
            for (PinnedLoop loop : group.loops()) {
                assertEquals(loop.assignment().cpus(), loop.cpus());
                assertEquals(loop.cpus(), ProcStatus.cpusAllowed(loop.tid()));
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void forNodeSpreadsTheLoopsOverTheSiblingGroupsOfTheAllowedCpus() throws Exception {
        PinnedEventLoopGroup group = PinnedEventLoopGroup.forNode(0, 3, Transport.EPOLL.ioHandlerFactory());
        try {
            List<CpuSet> cpus = group.loops().stream().map(PinnedLoop::cpus).toList();
            assertEquals(group.loops().stream().map(l -> l.assignment().cpus()).toList(), cpus);
            for (PinnedLoop loop : group.loops()) {
                assertEquals(loop.cpus(), ProcStatus.cpusAllowed(loop.tid()), loop.threadName());
                assertEquals("numaspread-loop-" + loop.index(), loop.threadName());
            }
            assertEquals(3, cpus.size());
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void readsAPhysicalNicsQueuesAndNode(@TempDir Path root) throws Exception {
        SysfsFixture.write(MachineShape.singleNodeVm(), root);
        Path nic = root.resolve("class/net/eth7");
        for (int queue = 0; queue < 4; queue++) {
            Files.createDirectories(nic.resolve("queues/rx-" + queue));
            Files.createDirectories(nic.resolve("queues/tx-" + queue));
        }
        SysfsFixture.write(root, "class/net/eth7/device/numa_node", "1\n");
        assertEquals(new NicQueues("eth7", 4, Optional.of(1)), NicQueues.read(SysfsTree.at(root), "eth7"));
        SysfsFixture.write(root, "class/net/eth7/device/numa_node", "-1\n");
        assertEquals(Optional.empty(), NicQueues.read(SysfsTree.at(root), "eth7").node());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> NicQueues.read(SysfsTree.at(root), "eth9"));
        assertEquals("no NIC \"eth9\" in " + root.resolve("class/net") + "; the NICs are [eth7]",
                unknown.getMessage());
    }

    @Test
    void wantsExactlyOnePlacement() {
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> PinnedEventLoopGroup.builder(Transport.NIO.ioHandlerFactory()).build());
        IllegalArgumentException two = assertThrows(IllegalArgumentException.class,
                () -> PinnedEventLoopGroup.builder(Transport.NIO.ioHandlerFactory()).nic("lo").node(0, 2).build());
        assertEquals(none.getMessage(), two.getMessage());
        assertTrue(none.getMessage().contains("exactly one of a NIC, a node and a count, or a plan"));
    }
}
