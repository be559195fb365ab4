// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaspread.NumaspreadException;
import io.numaspread.nic.LowerDevices;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * {@code irqs --nic} of an upper device (a bond, a VLAN on one, a macvlan): a section per NIC under it, as {@code
 * irqs --nic} shows that NIC, saying how it is under the device, each with its share of the NICs' plan together.
 */
final class UpperDeviceIrqs {
    private UpperDeviceIrqs() {}

    /** "bond0.100: VLAN over eth0, eth1, planned together (no queue IRQs, left out: veth0)". */
    static String heading(LowerDevices lower) {
        String left = lower.withoutQueues().isEmpty()
                ? ""
                : " (no queue IRQs, left out: " + names(lower.withoutQueues()) + ")";
        return lower.device() + ": " + lower.kind().label() + " over " + names(lower.nics())
                + (lower.nics().size() > 1 ? ", planned together" : "") + left;
    }

    /** The device's object: its kind, its NICs' objects (each with how it is under the device), those left out. */
    static ObjectNode toJson(LowerDevices lower, List<ObjectNode> nics) {
        ObjectNode root = Json.object();
        root.put("interface", lower.device().value());
        root.put("kind", lower.kind().name().toLowerCase(Locale.ROOT));
        ArrayNode array = root.putArray("nics");
        for (int m = 0; m < nics.size(); m++) {
            ObjectNode nic = nics.get(m);
            LowerDevices.Member member = lower.nics().get(m);
            nic.put("relation", member.relation());
            ArrayNode uppers = nic.putArray("uppers");
            member.uppers().forEach(upper -> uppers.add(upper.name().value()));
            array.add(nic);
        }
        ArrayNode left = root.putArray("without_queues");
        lower.withoutQueues().forEach(member -> left.add(member.name().value()));
        return root;
    }

    /** --svg draws one NIC: the only one under the device, or none. */
    static void requireOneToDraw(LowerDevices lower) {
        if (lower.nics().size() > 1) {
            throw NumaspreadException.badInput("--svg draws one NIC, and " + lower.device() + " has "
                    + lower.nics().size() + " (" + names(lower.nics()) + "): give --nic "
                    + lower.nics().get(0).name());
        }
    }

    private static String names(List<LowerDevices.Member> members) {
        return members.stream().map(member -> member.name().value()).collect(Collectors.joining(", "));
    }
}
