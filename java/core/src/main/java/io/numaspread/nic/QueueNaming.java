// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import io.numaspread.kernel.InterfaceName;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Groups a NIC's vectors into queues by the names its driver gives them. Each scheme is the format string of
 * a driver's {@code request_irq()} call; a vector of queue Q may be a combined one ({@code TxRx}) or one of a
 * separate rx/tx pair, and all of them get queue Q's CPUs.
 */
public final class QueueNaming {
    /** The scheme name printed when no scheme explains the names. */
    public static final String FALLBACK = "unrecognised";

    /** The result: which scheme matched and the role of every vector, in vector order. */
    public record Grouping(String scheme, boolean recognised, List<NicVector> vectors) {
        public Grouping {
            vectors = List.copyOf(vectors);
        }

        /** The distinct queue numbers, ascending; queue i of the plan is the i-th of them. */
        public List<Integer> queues() {
            return vectors.stream()
                    .filter(NicVector::isQueue)
                    .map(NicVector::queue)
                    .distinct()
                    .sorted()
                    .toList();
        }
    }

    private record Scheme(String name, Pattern queue, Pattern control) {}

    private QueueNaming() {}

    private static List<Scheme> schemes(InterfaceName iface) {
        String name = Pattern.quote(iface.value());
        return List.of(
                // virtio_net: vp_find_vqs_msix() names "%s-%s" (device, vq name); rx/tx vqs are input.N/output.N.
                new Scheme(
                        "virtio",
                        Pattern.compile("virtio\\d+-(?:input|output)\\.(\\d{1,6})"),
                        Pattern.compile("virtio\\d+-(?:config|control|virtqueues)")),
                // mlx5: "mlx5_comp%d@pci:%s"; async/ctrl/pages/cmd EQs are control.
                new Scheme(
                        "mlx5", Pattern.compile("mlx5_comp(\\d{1,6})@pci:\\S+"), Pattern.compile("mlx5_\\w+@pci:\\S+")),
                // mana: "mana_q%d@pci:%s"; the hardware channel is "mana_hwc@pci:%s".
                new Scheme("mana", Pattern.compile("mana_q(\\d{1,6})@pci:\\S+"), Pattern.compile("mana_hwc@pci:\\S+")),
                // Named after the interface: i40e/ice/iavf "DRIVER-IFACE-TxRx-N" (or -rx-N/-tx-N), ixgbe/igb/igc
                // and bnxt "IFACE-TxRx-N", ena "IFACE-Tx-Rx-N", vmxnet3 "IFACE-rxtx-N", qede "IFACE-fp-N".
                // Their other vectors: "IFACE" (ixgbe/igb link), "*:misc" (i40e/ice), "ena-mgmnt@pci:*",
                // "IFACE-event-N" (vmxnet3).
                new Scheme(
                        "interface-named (i40e, ice, iavf, ixgbe, igb, igc, bnxt, ena, vmxnet3, qede)",
                        Pattern.compile("(?:[\\w.]+-)?" + name + "-(?:TxRx|Tx-Rx|rxtx|rx|tx|fp)-(\\d{1,6})"),
                        Pattern.compile(name + "|" + name + "-event-\\d+|\\S+[-:]misc|ena-mgmnt@pci:\\S+")));
    }

    /**
     * @param namesByIrq the vectors' names, in vector order (ascending IRQ)
     */
    public static Grouping group(InterfaceName iface, Map<Integer, String> namesByIrq) {
        for (Scheme scheme : schemes(iface)) {
            boolean anyQueue = namesByIrq.values().stream()
                    .anyMatch(n -> scheme.queue().matcher(n).matches());
            if (anyQueue) {
                return new Grouping(scheme.name(), true, classify(namesByIrq, name -> roleOf(scheme, name)));
            }
        }
        List<NicVector> vectors = new ArrayList<>();
        int queue = 0;
        for (Map.Entry<Integer, String> vector : namesByIrq.entrySet()) {
            vectors.add(new NicVector(vector.getKey(), vector.getValue(), VectorRole.QUEUE, queue++));
        }
        return new Grouping(FALLBACK, false, vectors);
    }

    private static List<NicVector> classify(
            Map<Integer, String> namesByIrq, Function<String, Map.Entry<VectorRole, Integer>> roleOf) {
        List<NicVector> vectors = new ArrayList<>();
        namesByIrq.forEach((irq, name) -> {
            Map.Entry<VectorRole, Integer> role = roleOf.apply(name);
            vectors.add(new NicVector(irq, name, role.getKey(), role.getValue()));
        });
        return vectors;
    }

    private static Map.Entry<VectorRole, Integer> roleOf(Scheme scheme, String name) {
        Matcher queue = scheme.queue().matcher(name);
        if (queue.matches()) {
            return Map.entry(VectorRole.QUEUE, Integer.parseInt(queue.group(1)));
        }
        return Map.entry(scheme.control().matcher(name).matches() ? VectorRole.CONTROL : VectorRole.OTHER, -1);
    }
}
