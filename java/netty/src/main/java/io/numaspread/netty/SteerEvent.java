// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** Where one accepted connection was registered, shown in JDK Mission Control under numaspread. */
@Name("io.numaspread.IncomingCpuSteer")
@Label("Connection Steer")
@Category("numaspread")
@Description("An accepted connection was registered on the event loop of its SO_INCOMING_NAPI_ID's queue or of its "
        + "SO_INCOMING_CPU, or fell back")
final class SteerEvent extends jdk.jfr.Event {
    static final String STEERED = "steered";

    @Label("Remote Address")
    String remote;

    @Label("Incoming CPU")
    @Description("SO_INCOMING_CPU, or -1 when unknown")
    int incomingCpu;

    @Label("Incoming NAPI ID")
    @Description("SO_INCOMING_NAPI_ID, or 0 when none was read or recorded")
    int napiId;

    @Label("Queue")
    @Description("The receive queue the NAPI ID names, or -1 when unknown")
    int queue;

    @Label("Event Loop")
    @Description("The index of the loop the connection was steered to, or -1 when it fell back")
    int loop;

    @Label("Outcome")
    @Description("\"steered\" (by incoming CPU), \"steered by NAPI ID\", or why it fell back to Netty's chooser")
    String outcome;
}
