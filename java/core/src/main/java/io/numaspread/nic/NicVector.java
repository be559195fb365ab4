// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

/**
 * One MSI/MSI-X vector of a NIC.
 *
 * @param queue the driver's queue number for a {@link VectorRole#QUEUE} vector, else -1
 */
public record NicVector(int irq, String name, VectorRole role, int queue) {
    public boolean isQueue() {
        return role == VectorRole.QUEUE;
    }
}
