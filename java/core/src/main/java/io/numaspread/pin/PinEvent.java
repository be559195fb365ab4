// SPDX-License-Identifier: Apache-2.0
package io.numaspread.pin;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** One thread pin, shown in JDK Mission Control under numaspread. */
@Name("io.numaspread.ThreadPin")
@Label("Thread Pin")
@Category("numaspread")
@Description("A thread was pinned to CPUs, or the pin was refused")
final class PinEvent extends jdk.jfr.Event {
    static final String PINNED = "pinned";

    @Label("Thread")
    String threadName;

    @Label("Linux Thread Id")
    int tid;

    @Label("CPUs")
    String cpus;

    @Label("Outcome")
    @Description("\"pinned\", or why the pin failed")
    String outcome;
}
