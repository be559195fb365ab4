// SPDX-License-Identifier: Apache-2.0
/**
 * numaspread's core: topology, planner, IRQ placement and thread pinning. This descriptor is in the
 * multi-release jar's Java 23 overlay, so on JDK 23 and newer the jar is a named module on the module path;
 * on JDK 17 to 22 it is an automatic module of the same name ({@code Automatic-Module-Name}).
 *
 * <p>The API packages are exported; the FFM bindings ({@code io.numaspread.internal.ffm} and the generated
 * {@code .gen}) and other internals are not. JNA is optional: FFM needs no third-party code.
 */
module io.numaspread.core {
    requires static com.sun.jna;
    // PinEvent is a JFR event.
    requires jdk.jfr;

    exports io.numaspread;
    exports io.numaspread.doctor;
    exports io.numaspread.irq;
    exports io.numaspread.kernel;
    exports io.numaspread.nativeaccess;
    exports io.numaspread.nic;
    exports io.numaspread.pin;
    exports io.numaspread.plan;
    exports io.numaspread.topology;
    exports io.numaspread.watch;
}
