// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import java.util.function.Supplier;

/** The Netty transports the tests and benchmarks run on. */
public enum Transport {
    NIO(NioIoHandler::newFactory, NioServerSocketChannel.class, NioSocketChannel.class),
    EPOLL(EpollIoHandler::newFactory, EpollServerSocketChannel.class, EpollSocketChannel.class),
    IO_URING(IoUringIoHandler::newFactory, IoUringServerSocketChannel.class, IoUringSocketChannel.class);

    private final Supplier<IoHandlerFactory> ioHandlerFactory;
    private final Class<? extends ServerChannel> serverChannel;
    private final Class<? extends SocketChannel> socketChannel;

    Transport(
            Supplier<IoHandlerFactory> ioHandlerFactory,
            Class<? extends ServerChannel> serverChannel,
            Class<? extends SocketChannel> socketChannel) {
        this.ioHandlerFactory = ioHandlerFactory;
        this.serverChannel = serverChannel;
        this.socketChannel = socketChannel;
    }

    public IoHandlerFactory ioHandlerFactory() {
        return ioHandlerFactory.get();
    }

    public Class<? extends ServerChannel> serverChannel() {
        return serverChannel;
    }

    public Class<? extends SocketChannel> socketChannel() {
        return socketChannel;
    }
}
