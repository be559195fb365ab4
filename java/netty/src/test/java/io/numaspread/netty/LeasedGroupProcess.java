// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Another JVM on the host with a pinned event loop group: {@code NODE COUNT} builds {@code COUNT} NIO loops from
 * {@code NODE}, named {@code lease-io-K}, with the system properties it was started with (the lease registry's),
 * prints {@code ready}, and keeps the group until its standard input closes or it is killed.
 */
public final class LeasedGroupProcess {
    private LeasedGroupProcess() {}

    public static void main(String[] args) throws Exception {
        PinnedEventLoopGroup group = PinnedEventLoopGroup.builder(Transport.NIO.ioHandlerFactory())
                .node(Integer.parseInt(args[0]), Integer.parseInt(args[1]))
                .names("lease-io-%d")
                .steering(false)
                .build();
        System.out.println("ready");
        System.out.flush();
        try {
            while (System.in.read() >= 0) {
                // Keeps the group until the test closes this process's standard input.
            }
        } catch (IOException e) {
            // The test is gone: so is the group.
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
