// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.numaspread.irq.LinkIrqPolicy;
import io.numaspread.kernel.InterfaceName;
import java.util.List;

/** What irqs, apply and watch say of a systemd .link file that places the NIC's IRQs too. */
final class LinkPolicyWords {
    private LinkPolicyWords() {}

    /** One line per policy, each with how to hand the NIC's IRQs to numaspread. */
    static List<String> lines(InterfaceName nic, List<LinkIrqPolicy> policies) {
        return policies.stream().map(policy -> line(nic, policy)).toList();
    }

    private static String line(InterfaceName nic, LinkIrqPolicy policy) {
        String dropIn = "/etc/systemd/network/" + policy.file().getFileName() + ".d/numaspread.conf";
        String which = policy.fromUdevDatabase()
                ? " for " + nic + " (udev's database)"
                : " for the NICs it matches (udev's database for " + nic + " is not readable here, so whether it"
                        + " is one of them is not known)";
        return "udev: " + policy.file() + " sets IRQAffinityPolicy=" + policy.policy() + which
                + ": systemd-udevd places the IRQs again, its own way, each time the device is added (boot, driver"
                + " load, unbind and bind, udevadm trigger); to hand them to numaspread, empty it in a drop-in ("
                + dropIn + ": [Link] IRQAffinityPolicy=) and run udevadm control --reload, or keep numaspread watch"
                + " running, which puts the plan back after each add";
    }

    /** {"link_irq_policies": [{"file", "policy", "from_udev_database"}]}, empty when none places the IRQs. */
    static void putJson(ObjectNode root, List<LinkIrqPolicy> policies) {
        ArrayNode array = root.putArray("link_irq_policies");
        policies.forEach(policy -> array.addObject()
                .put("file", policy.file().toString())
                .put("policy", policy.policy())
                .put("from_udev_database", policy.fromUdevDatabase()));
    }
}
