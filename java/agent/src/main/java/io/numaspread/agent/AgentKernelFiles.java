// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.LibcKernelFiles;

/**
 * The kernel's control files through the agent library's libc calls, so that {@code irqs=apply} tells a
 * kernel-managed IRQ's EIO by its errno: the agent has neither JNA nor FFM, and Java's file API words a failure
 * only in the user's language. A class of its own, not a method of NativeAgent, whose verification would then
 * load LibcKernelFiles' classes out of the jar on every start, for an option few use.
 */
final class AgentKernelFiles {
    private AgentKernelFiles() {}

    static KernelFiles live() {
        return new LibcKernelFiles(new LibcKernelFiles.Calls() {
            @Override
            public int open(byte[] nulTerminatedPath, boolean forWriting, boolean truncate) {
                return NativeAgent.open(nulTerminatedPath, forWriting, truncate);
            }

            @Override
            public long read(int fd, byte[] buffer, int length) {
                return NativeAgent.read(fd, buffer, length);
            }

            @Override
            public long write(int fd, byte[] buffer, int length) {
                return NativeAgent.write(fd, buffer, length);
            }

            @Override
            public int close(int fd) {
                return NativeAgent.close(fd);
            }
        });
    }
}
