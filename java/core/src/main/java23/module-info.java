// SPDX-License-Identifier: Apache-2.0
/**
 * numaspread's core: topology, planner, IRQ placement and thread pinning. This descriptor is in the
 * multi-release jar's Java 23 overlay, so on JDK 23 and newer the jar is a named module on the module path;
 * on JDK 17 to 22 it is an automatic module of the same name ({@code Automatic-Module-Name}).
 *
 * <p>The API packages are exported to all. The IRQ write transaction, watch and doctor are exported only to
 * numaspread's own modules that use them, the CLI and Netty's (automatic modules, by their
 * {@code Automatic-Module-Name}); the agent needs none, as its jar carries core relocated. The FFM bindings
 * ({@code io.numaspread.internal.ffm} and the generated {@code .gen}) and netlink are not exported. JNA is
 * optional: FFM needs no third-party code. docs/architecture.md lists the exports.
 */
module io.numaspread.core {
    requires static com.sun.jna;
    // PinEvent is a JFR event.
    requires jdk.jfr;

    exports io.numaspread;
    exports io.numaspread.kernel;
    // The CPU lease registry: PinnedEventLoopGroup.leases() returns its leases.
    exports io.numaspread.lease;
    exports io.numaspread.nativeaccess;
    exports io.numaspread.nic;
    exports io.numaspread.pin;
    exports io.numaspread.plan;
    exports io.numaspread.topology;
    exports io.numaspread.doctor to
            io.numaspread.cli;
    exports io.numaspread.irq to
            io.numaspread.cli,
            io.numaspread.netty;
    exports io.numaspread.watch to
            io.numaspread.cli;
}
