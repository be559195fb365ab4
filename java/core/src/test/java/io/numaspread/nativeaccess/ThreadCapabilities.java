// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;

/**
 * The calling thread's capabilities, through libc's {@code capget} and {@code capset}: Linux keeps them per
 * thread, so a test can make the kernel refuse what needs one without touching the rest of the JVM.
 */
final class ThreadCapabilities {
    /** {@code _LINUX_CAPABILITY_VERSION_3}: two 32-bit words per set. */
    private static final int VERSION_3 = 0x20080522;

    private static final int CAP_NET_ADMIN = 12;
    private static final int CAP_SYS_NICE = 23;
    private static final Capabilities LIBC = Native.load("c", Capabilities.class);

    private ThreadCapabilities() {}

    /** Removes CAP_NET_ADMIN from the calling thread's effective set (a no-op for a thread without it). */
    static void dropNetAdminFromThisThread() {
        int[] header = {VERSION_3, 0};
        // struct __user_cap_data_struct[2]: effective, permitted, inheritable of capabilities 0-31, then 32-63.
        int[] data = new int[6];
        LIBC.capget(header, data);
        data[0] &= ~(1 << CAP_NET_ADMIN);
        LIBC.capset(header, data);
    }

    /** Removes CAP_SYS_NICE from the calling thread's effective set (a no-op for a thread without it). */
    static void dropSysNiceFromThisThread() {
        int[] header = {VERSION_3, 0};
        int[] data = new int[6];
        LIBC.capget(header, data);
        data[0] &= ~(1 << CAP_SYS_NICE);
        LIBC.capset(header, data);
    }

    /** Whether CAP_NET_ADMIN is in the calling thread's effective set. */
    static boolean hasNetAdmin() {
        int[] data = new int[6];
        LIBC.capget(new int[] {VERSION_3, 0}, data);
        return (data[0] & (1 << CAP_NET_ADMIN)) != 0;
    }

    interface Capabilities extends Library {
        int capget(int[] header, int[] data) throws LastErrorException;

        int capset(int[] header, int[] data) throws LastErrorException;
    }
}
