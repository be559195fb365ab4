// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Map;

/**
 * An application that brings its own JNA and Netty, older than the project's, and uses both: it calls libc's
 * getpid through JNA and round-trips an int through a pooled direct Netty buffer, then runs {@link PinProbe}.
 * Reflection keeps it independent of the versions the tests compile against.
 */
public final class ForeignLibrariesApp {
    private ForeignLibrariesApp() {}

    public static void main(String[] args) throws Exception {
        Class<?> nativeClass = Class.forName("com.sun.jna.Native");
        Object function = Class.forName("com.sun.jna.Function")
                .getMethod("getFunction", String.class, String.class)
                .invoke(null, "c", "getpid");
        Object pid =
                function.getClass().getMethod("invokeInt", Object[].class).invoke(function, (Object) new Object[0]);
        Field version = nativeClass.getField("VERSION"); // declared by a package-private interface
        version.setAccessible(true);
        System.out.println("jna " + version.get(null) + " getpid " + pid);

        Map<?, ?> versions = (Map<?, ?>)
                Class.forName("io.netty.util.Version").getMethod("identify").invoke(null);
        Object common = versions.get("netty-common");
        Object nettyVersion = common.getClass().getMethod("artifactVersion").invoke(common);
        Object allocator = Class.forName("io.netty.buffer.PooledByteBufAllocator")
                .getField("DEFAULT")
                .get(null);
        Object buffer =
                allocator.getClass().getMethod("directBuffer", int.class).invoke(allocator, 16);
        Class<?> byteBuf = Class.forName("io.netty.buffer.ByteBuf");
        byteBuf.getMethod("writeInt", int.class).invoke(buffer, 42);
        Object read = byteBuf.getMethod("readInt").invoke(buffer);
        Method release = Class.forName("io.netty.util.ReferenceCounted").getMethod("release");
        System.out.println("netty " + nettyVersion + " buffer " + read + " released " + release.invoke(buffer));

        PinProbe.main(args);
    }
}
