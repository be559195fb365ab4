// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import io.netty.channel.Channel;
import io.netty.channel.nio.AbstractNioChannel;
import io.netty.channel.unix.UnixChannel;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The file descriptor behind a Netty channel. Epoll and io_uring channels expose it ({@link UnixChannel#fd()}).
 * NIO channels keep it inside the JDK's {@code sun.nio.ch.SelChImpl#getFDVal()}, which can be called only
 * when the JVM runs with {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED}; without it NIO channels have
 * no readable descriptor and {@link #nioUnreadableCause()} says why.
 */
final class ChannelFds {
    static final String NIO_FLAG = "--add-exports java.base/sun.nio.ch=ALL-UNNAMED";

    private static final Method JAVA_CHANNEL;
    private static final Method GET_FD_VAL;
    private static final String NIO_UNREADABLE_CAUSE;

    static {
        Method javaChannel = null;
        Method getFdVal = null;
        String cause = null;
        try {
            Class<?> selChImpl = Class.forName("sun.nio.ch.SelChImpl");
            if (!selChImpl.getModule().isExported(selChImpl.getPackageName(), ChannelFds.class.getModule())) {
                cause = "the JDK hides NIO file descriptors in sun.nio.ch; run the JVM with " + NIO_FLAG;
            } else {
                getFdVal = selChImpl.getMethod("getFDVal");
                javaChannel = AbstractNioChannel.class.getDeclaredMethod("javaChannel");
                javaChannel.setAccessible(true);
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            cause = "cannot reach the file descriptor of NIO channels: " + e;
            getFdVal = null;
            javaChannel = null;
        }
        JAVA_CHANNEL = javaChannel;
        GET_FD_VAL = getFdVal;
        NIO_UNREADABLE_CAUSE = cause;
    }

    private ChannelFds() {}

    /** The channel's descriptor, or empty for a NIO channel on a JVM without {@link #NIO_FLAG} or another kind. */
    static OptionalInt fd(Channel channel) {
        if (channel instanceof UnixChannel unix) {
            return OptionalInt.of(unix.fd().intValue());
        }
        if (channel instanceof AbstractNioChannel && GET_FD_VAL != null) {
            try {
                return OptionalInt.of((Integer) GET_FD_VAL.invoke(JAVA_CHANNEL.invoke(channel)));
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new IllegalStateException("cannot read the file descriptor of " + channel + ": " + e, e);
            }
        }
        return OptionalInt.empty();
    }

    /** Why NIO channels have no readable descriptor on this JVM, or empty when they have. */
    static Optional<String> nioUnreadableCause() {
        return Optional.ofNullable(NIO_UNREADABLE_CAUSE);
    }
}
