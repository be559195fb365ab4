// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import io.netty.channel.Channel;
import io.netty.channel.IoEventLoop;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.NativeCallException;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiMap;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Chooses the event loop of an accepted connection, by one of two keys the kernel records on its socket:
 * <ul>
 *   <li>{@link SteeringKey#INCOMING_NAPI_ID}: {@code SO_INCOMING_NAPI_ID} names the NAPI instance, hence the
 *       receive queue ({@link NapiMap}), that delivered the connection's packets; loop i owns queue i. That
 *       holds however the queue's IRQ is moved later. A NAPI ID the map does not know (loopback has none, a
 *       reset NIC gets new ones) falls back to the incoming CPU, and is counted.</li>
 *   <li>{@link SteeringKey#INCOMING_CPU}: {@code SO_INCOMING_CPU} names the CPU where the kernel handled
 *       them, that is where its queue's IRQ and softirq ran; the loop whose CPUs hold it takes it. When
 *       several loops hold that CPU they take turns.</li>
 * </ul>
 * What neither key places is left to Netty's chooser and counted. Per loop it counts the connections that
 * arrived on a queue other than the loop's own, whatever the key. Each choice is a JFR
 * {@code io.numaspread.IncomingCpuSteer} event.
 */
public final class ConnectionSteering {
    private static final System.Logger LOG = System.getLogger(ConnectionSteering.class.getName());

    private final NativeBackend backend;
    private final SteeringKey key;
    private final NapiMap napis;
    private final List<PinnedLoop> loops;
    private final List<List<PinnedLoop>> loopsByCpu;
    private final List<AtomicInteger> turnByCpu;
    private final LongAdder steered = new LongAdder();
    private final LongAdder steeredByNapiId = new LongAdder();
    private final LongAdder napiIdUnknown = new LongAdder();
    private final LongAdder fellBack = new LongAdder();
    private final List<LongAdder> offQueueByLoop;
    private final AtomicBoolean warnedNoFd = new AtomicBoolean();

    /**
     * @param napis the NIC's NAPI instances, whose queue q is loop q's own; empty when the loops serve no NIC,
     *     and then only {@link SteeringKey#INCOMING_CPU} can be used
     */
    ConnectionSteering(NativeBackend backend, List<PinnedLoop> loops, SteeringKey key, Optional<NapiMap> napis) {
        if (key == SteeringKey.INCOMING_NAPI_ID && napis.isEmpty()) {
            throw new IllegalArgumentException(
                    "steering by NAPI ID needs the NIC's NAPI map: build the group for a NIC");
        }
        this.backend = backend;
        this.key = key;
        this.napis = napis.orElse(null);
        this.loops = List.copyOf(loops);
        int cpus = loops.stream()
                .mapToInt(loop -> loop.cpus().isEmpty() ? 0 : loop.cpus().last() + 1)
                .max()
                .orElse(0);
        List<List<PinnedLoop>> byCpu = new ArrayList<>(cpus);
        List<AtomicInteger> turns = new ArrayList<>(cpus);
        for (int cpu = 0; cpu < cpus; cpu++) {
            int wanted = cpu;
            byCpu.add(
                    loops.stream().filter(loop -> loop.cpus().contains(wanted)).toList());
            turns.add(new AtomicInteger());
        }
        this.loopsByCpu = List.copyOf(byCpu);
        this.turnByCpu = List.copyOf(turns);
        List<LongAdder> offQueue = new ArrayList<>(loops.size());
        for (int i = 0; i < loops.size(); i++) {
            offQueue.add(new LongAdder());
        }
        this.offQueueByLoop = List.copyOf(offQueue);
    }

    public SteeringKey key() {
        return key;
    }

    /** The NAPI map steering by NAPI ID reads, when the loops serve a NIC. */
    public Optional<NapiMap> napis() {
        return Optional.ofNullable(napis);
    }

    /** Connections registered on a loop chosen by either key. */
    public long steered() {
        return steered.sum();
    }

    /** Of {@link #steered()}, those placed by their NAPI ID's queue. */
    public long steeredByNapiId() {
        return steeredByNapiId.sum();
    }

    /**
     * Connections, when steering by NAPI ID, whose NAPI ID named no queue with a loop (0 on loopback, or an ID
     * the map does not know), so that their incoming CPU chose instead.
     */
    public long napiIdUnknown() {
        return napiIdUnknown.sum();
    }

    /** Connections left to Netty's chooser: no key known or readable, or none that a loop covers. */
    public long fellBack() {
        return fellBack.sum();
    }

    /**
     * Per loop, in group order: connections registered on it that arrived on a queue other than its own
     * (queue known from the NAPI ID; loop i owns queue i).
     */
    public List<Long> offQueueByLoop() {
        return offQueueByLoop.stream().map(LongAdder::sum).toList();
    }

    /** The loop for an accepted channel, or empty (counted as a fallback) when there is none. */
    Optional<IoEventLoop> choose(Channel channel) {
        SteerEvent event = new SteerEvent();
        event.begin();
        event.remote = String.valueOf(channel.remoteAddress());
        event.incomingCpu = -1;
        event.napiId = 0;
        event.queue = -1;
        event.loop = -1;
        try {
            OptionalInt fd = ChannelFds.fd(channel);
            if (fd.isEmpty()) {
                return fallBack(
                        event,
                        "no file descriptor: "
                                + ChannelFds.nioUnreadableCause()
                                        .orElse(channel.getClass().getName() + " has none"));
            }
            OptionalInt queue = OptionalInt.empty();
            if (napis != null) {
                event.napiId = backend.incomingNapiId(fd.getAsInt());
                queue = event.napiId >= NapiInstance.MIN_NAPI_ID ? napis.queueOf(event.napiId) : OptionalInt.empty();
                event.queue = queue.orElse(-1);
            }
            if (key == SteeringKey.INCOMING_NAPI_ID) {
                if (queue.isPresent() && queue.getAsInt() < loops.size()) {
                    steeredByNapiId.increment();
                    return steer(event, loops.get(queue.getAsInt()), queue, "steered by NAPI ID");
                }
                napiIdUnknown.increment();
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
            PinnedLoop chosen = candidates.get(Math.floorMod(turnByCpu.get(cpu).getAndIncrement(), candidates.size()));
            return steer(event, chosen, queue, SteerEvent.STEERED);
        } catch (NativeCallException | UnsupportedOperationException | IllegalStateException e) {
            return fallBack(event, e.getMessage());
        } finally {
            event.commit();
        }
    }

    private Optional<IoEventLoop> steer(SteerEvent event, PinnedLoop chosen, OptionalInt queue, String outcome) {
        event.loop = chosen.index();
        event.outcome = outcome;
        steered.increment();
        if (queue.isPresent() && queue.getAsInt() != chosen.index()) {
            offQueueByLoop.get(chosen.index()).increment();
        }
        return Optional.of(chosen.loop());
    }

    private Optional<IoEventLoop> fallBack(SteerEvent event, String why) {
        event.outcome = why;
        fellBack.increment();
        if (why.startsWith("no file descriptor") && warnedNoFd.compareAndSet(false, true)) {
            LOG.log(Level.WARNING, "accepted connections are not steered to their queue''s loop: {0}", why);
        } else {
            LOG.log(Level.DEBUG, "connection from {0} falls back to Netty''s chooser: {1}", event.remote, why);
        }
        return Optional.empty();
    }
}
