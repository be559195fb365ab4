// SPDX-License-Identifier: Apache-2.0
/**
 * Netty event loop groups pinned next to a NIC's queues: loop i runs on the CPUs where
 * {@code numaspread plan --nic} puts queue i's IRQ, and, as a server's child group, each accepted connection
 * is registered on the loop whose CPUs contain its {@code SO_INCOMING_CPU}. Netty itself is the
 * application's ({@code provided}).
 *
 * <pre>{@code
 * EventLoopGroup workers = PinnedEventLoopGroup.forNic("eth0", EpollIoHandler.newFactory());
 * new ServerBootstrap().group(boss, workers).channel(EpollServerSocketChannel.class);
 * }</pre>
 */
package io.numaspread.netty;
