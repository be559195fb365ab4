// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import io.netty.channel.Channel;
import io.netty.channel.IoEventLoop;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.NativeCallException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Chooses, for an accepted connection, the event loop whose CPUs contain the connection's
 * {@code SO_INCOMING_CPU}: the CPU where the kernel handled its packets, that is where its NIC queue's IRQ
 * and softirq run. When several loops cover that CPU they take turns. Counts what it steered and what it left
 * to Netty's chooser, and emits a JFR {@code io.numaspread.IncomingCpuSteer} event for each.
 */
public final class IncomingCpuSteering {
    private static final System.Logger LOG = System.getLogger(IncomingCpuSteering.class.getName());

    private final NativeBackend backend;
    private final List<List<PinnedLoop>> loopsByCpu;
    private final List<AtomicInteger> turnByCpu;
    private final LongAdder steered = new LongAdder();
    private final LongAdder fellBack = new LongAdder();
    private final AtomicBoolean warnedNoFd = new AtomicBoolean();

    IncomingCpuSteering(NativeBackend backend, List<PinnedLoop> loops) {
        this.backend = backend;
        int cpus = loops.stream().mapToInt(loop -> loop.cpus().isEmpty() ? 0 : loop.cpus().last() + 1).max()
                .orElse(0);
        List<List<PinnedLoop>> byCpu = new ArrayList<>(cpus);
        List<AtomicInteger> turns = new ArrayList<>(cpus);
        for (int cpu = 0; cpu < cpus; cpu++) {
            int wanted = cpu;
            byCpu.add(loops.stream().filter(loop -> loop.cpus().contains(wanted)).toList());
            turns.add(new AtomicInteger());
        }
        this.loopsByCpu = List.copyOf(byCpu);
        this.turnByCpu = List.copyOf(turns);
    }

    /** Connections registered on the loop of their incoming CPU. */
    public long steered() {
        return steered.sum();
    }

    /** Connections left to Netty's chooser: incoming CPU unknown, unreadable, or covered by no loop. */
    public long fellBack() {
        return fellBack.sum();
    }

    /** The loop for an accepted channel, or empty (counted as a fallback) when there is none. */
    Optional<IoEventLoop> choose(Channel channel) {
        SteerEvent event = new SteerEvent();
        event.begin();
        event.remote = String.valueOf(channel.remoteAddress());
        event.incomingCpu = -1;
        event.loop = -1;
        try {
            OptionalInt fd = ChannelFds.fd(channel);
            if (fd.isEmpty()) {
                return fallBack(event, "no file descriptor: "
                        + ChannelFds.nioUnreadableCause().orElse(channel.getClass().getName() + " has none"));
            }
            int cpu = backend.incomingCpu(fd.getAsInt());
            event.incomingCpu = cpu;
            if (cpu < 0) {
                return fallBack(event, "the kernel has recorded no incoming CPU yet");
            }
            List<PinnedLoop> candidates = cpu < loopsByCpu.size() ? loopsByCpu.get(cpu) : List.of();
            if (candidates.isEmpty()) {
                return fallBack(event, "no loop runs on CPU " + cpu);
            }
            PinnedLoop chosen = candidates.get(
                    Math.floorMod(turnByCpu.get(cpu).getAndIncrement(), candidates.size()));
            event.loop = chosen.index();
            event.outcome = SteerEvent.STEERED;
            steered.increment();
            return Optional.of(chosen.loop());
        } catch (NativeCallException | UnsupportedOperationException | IllegalStateException e) {
            return fallBack(event, e.getMessage());
        } finally {
            event.commit();
        }
    }

    private Optional<IoEventLoop> fallBack(SteerEvent event, String why) {
        event.outcome = why;
        fellBack.increment();
        if (why.startsWith("no file descriptor") && warnedNoFd.compareAndSet(false, true)) {
            LOG.log(Level.WARNING, "accepted connections are not steered to their incoming CPU: {0}", why);
        } else {
            LOG.log(Level.DEBUG, "connection from {0} falls back to Netty''s chooser: {1}", event.remote, why);
        }
        return Optional.empty();
    }
}
