// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

/** What a NIC's MSI/MSI-X vector serves, as told by its name. */
public enum VectorRole {
    /** A queue vector: it gets its queue's planned CPUs. */
    QUEUE,
    /** Configuration, control, management or async events: listed and left alone. */
    CONTROL,
    /** A name the recognised scheme does not explain: listed and left alone. */
    OTHER
}
