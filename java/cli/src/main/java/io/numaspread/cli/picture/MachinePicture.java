// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

import io.numaspread.CpuSet;
import io.numaspread.topology.Topology;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a picture of the machine shows: the topology, the CPUs the placed things may use, each queue on its
 * planned CPUs, and, when known, where the kernel delivers each vector and where a process's threads run.
 * Pure data: the commands build it, {@link SvgPicture} draws it.
 *
 * @param title the first line, saying what is drawn (the command and its subject)
 * @param mayUse the CPUs the queues may be placed on (the plan's candidates)
 * @param mayUseWho who may use them, for the legend: "the IRQs", "the threads"
 * @param origins the nodes the queues are near, in the plan's origin order; empty for none
 * @param originLabel what sits on the origin nodes, for their badge: an interface name, or "origin"
 * @param queues every planned queue
 * @param vectors the NIC's vectors as the kernel shows them; empty for a plan alone
 * @param threads the matching threads of one process; empty when none were asked for
 * @param threadSource what the threads are, for the legend ("PID 1234, names *EventLoop*"); empty when none
 */
public record MachinePicture(
        String title,
        Topology topology,
        CpuSet mayUse,
        String mayUseWho,
        List<Integer> origins,
        String originLabel,
        List<Queue> queues,
        List<Vector> vectors,
        List<ThreadPlacement> threads,
        Optional<String> threadSource) {

    public MachinePicture {
        origins = List.copyOf(origins);
        queues = List.copyOf(queues);
        vectors = List.copyOf(vectors);
        threads = List.copyOf(threads);
    }

    /**
     * A planned queue.
     *
     * @param origin its origin's position in {@link #origins()} (0 with one origin or none)
     * @param index its number within its origin
     * @param cpus its planned affinity
     * @param slot the CPU the planner counted it on
     */
    public record Queue(int origin, int index, CpuSet cpus, int slot) {}

    /**
     * A NIC vector as the kernel shows it now.
     *
     * @param queue the plan index of its queue for a queue vector; empty for control and other vectors
     * @param affinity {@code smp_affinity_list}
     * @param effective {@code effective_affinity_list}, when the kernel has the file
     * @param counts interrupts taken per CPU
     * @param planned its queue's planned CPUs; empty for control and other vectors
     */
    public record Vector(
            int irq,
            String name,
            Optional<Integer> queue,
            CpuSet affinity,
            Optional<CpuSet> effective,
            Map<Integer, Long> counts,
            Optional<CpuSet> planned) {
        public Vector {
            counts = Collections.unmodifiableMap(new TreeMap<>(counts));
        }

        /** Delivered somewhere its plan does not allow: the difference the picture marks in red. */
        public boolean deliveredOffPlan() {
            return planned.isPresent()
                    && effective.isPresent()
                    && !planned.get().containsAll(effective.get());
        }

        public long total() {
            return counts.values().stream().mapToLong(Long::longValue).sum();
        }
    }
}
