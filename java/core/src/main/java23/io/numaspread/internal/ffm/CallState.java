// SPDX-License-Identifier: Apache-2.0
package io.numaspread.internal.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;

/**
 * One thread's scratch memory for native calls: the errno that the last call left behind, and a CPU mask of
 * the machine's size. errno is captured by the downcall itself ({@code captureCallState}), into this
 * thread's segment, so no other call, thread or JVM-internal call in between can overwrite it.
 *
 * <p>Not thread-safe: each thread keeps its own (see {@code BoundFfmBackend}), so the hot path allocates no
 * native memory.
 */
public final class CallState {
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    private static final StructLayout LAYOUT = Linker.Option.captureStateLayout();
    private static final long ERRNO_OFFSET = LAYOUT.byteOffset(MemoryLayout.PathElement.groupElement("errno"));

    private final MemorySegment state;
    private final MemorySegment mask;
    private final MemorySegment option;
    private final MemorySegment optionLength;

    /** Scratch for this thread, freed by the GC once the thread and its thread-local are gone. */
    public CallState(long maskBytes) {
        Arena arena = Arena.ofAuto();
        this.state = arena.allocate(LAYOUT);
        this.mask = arena.allocate(maskBytes, Long.BYTES);
        this.option = arena.allocate(ValueLayout.JAVA_INT);
        this.optionLength = arena.allocate(ValueLayout.JAVA_INT);
    }

    /**
     * A downcall handle for a function that reports failure through errno. It takes this class's
     * {@link #state()} as an extra first argument.
     */
    static MethodHandle capturingErrno(MemorySegment function, FunctionDescriptor descriptor, Linker.Option... more) {
        Linker.Option[] options = Arrays.copyOf(more, more.length + 1);
        options[more.length] = CAPTURE_ERRNO;
        return Linker.nativeLinker().downcallHandle(function, descriptor, options);
    }

    /** The segment a capturing downcall writes errno into. */
    public MemorySegment state() {
        return state;
    }

    /** errno as the last capturing call on this thread left it. */
    public int errno() {
        return state.get(ValueLayout.JAVA_INT, ERRNO_OFFSET);
    }

    /** An int socket option's value, for {@code getsockopt}. */
    public MemorySegment option() {
        return option;
    }

    /** The {@code socklen_t} that {@code getsockopt} reads and writes. */
    public MemorySegment optionLength() {
        return optionLength;
    }

    /** The int option value the last {@code getsockopt} on this thread wrote. */
    public int intOption() {
        return option.get(ValueLayout.JAVA_INT, 0);
    }

    /** A CPU mask as large as the machine's {@code cpu/possible}; its content is whatever the last call left. */
    public MemorySegment mask() {
        return mask;
    }
}
