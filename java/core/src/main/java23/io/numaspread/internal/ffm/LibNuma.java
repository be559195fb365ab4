// SPDX-License-Identifier: Apache-2.0
package io.numaspread.internal.ffm;

import io.numaspread.CpuSet;
import io.numaspread.internal.NumaSoname;
import io.numaspread.internal.ffm.gen.bitmask;
import io.numaspread.internal.ffm.gen.libnuma_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Optional;

/**
 * libnuma through the jextract bindings in {@code libnuma_h}, when it can be used.
 *
 * <p>{@code libnuma_h} opens {@value NumaSoname#VALUE} in its static initializer, and each function's holder looks its
 * symbol up in its own; on a machine without libnuma that would be an {@link ExceptionInInitializerError} at the first
 * call. So {@link #unavailableCause()} opens the library and looks every symbol up first, and the bindings are touched
 * only when it is empty.
 */
public final class LibNuma {
    private static final List<String> SYMBOLS = List.of(
            "numa_available",
            "numa_max_node",
            "numa_distance",
            "numa_node_to_cpus",
            "numa_allocate_cpumask",
            "numa_bitmask_free");

    private static final Optional<String> UNAVAILABLE_CAUSE = probe();

    private LibNuma() {}

    /** Why libnuma cannot be used here, or empty when it can. */
    public static Optional<String> unavailableCause() {
        return UNAVAILABLE_CAUSE;
    }

    private static Optional<String> probe() {
        SymbolLookup library;
        try {
            library = SymbolLookup.libraryLookup(NumaSoname.VALUE, Arena.global());
        } catch (IllegalArgumentException e) {
            return Optional.of(NumaSoname.VALUE + " cannot be loaded (install libnuma1): " + e.getMessage());
        }
        for (String symbol : SYMBOLS) {
            if (library.find(symbol).isEmpty()) {
                return Optional.of(NumaSoname.VALUE + " has no " + symbol + "; numaspread needs libnuma 2.0 or newer");
            }
        }
        if (libnuma_h.numa_available() == -1) {
            return Optional.of("numa_available() returned -1: this kernel has no NUMA support");
        }
        return Optional.empty();
    }

    /** {@code numa_max_node}. */
    public static int maxNode() {
        return libnuma_h.numa_max_node();
    }

    /** {@code numa_distance}: 0 when the kernel does not know it. */
    public static int distance(int from, int to) {
        return libnuma_h.numa_distance(from, to);
    }

    /**
     * {@code numa_node_to_cpus} into a bitmask from {@code numa_allocate_cpumask}, freed before returning.
     *
     * @return the node's CPUs, or empty with errno in {@code call}
     */
    public static Optional<CpuSet> nodeToCpus(CallState call, int node) {
        MemorySegment cpus = libnuma_h.numa_allocate_cpumask();
        try {
            int result = (int) NodeToCpus.HANDLE.invokeExact(call.state(), node, cpus);
            if (result != 0) {
                return Optional.empty();
            }
            long words = (bitmask.size(cpus) + Long.SIZE - 1) / Long.SIZE;
            long[] mask = bitmask.maskp(cpus).asSlice(0, words * Long.BYTES).toArray(ValueLayout.JAVA_LONG);
            return Optional.of(CpuSet.fromMask(mask));
        } catch (Throwable e) {
            throw LibC.unexpected(e);
        } finally {
            libnuma_h.numa_bitmask_free(cpus);
        }
    }

    /** Built on first use, after {@link #unavailableCause()} has found the symbol. */
    private static final class NodeToCpus {
        static final MethodHandle HANDLE = CallState.capturingErrno(
                libnuma_h.numa_node_to_cpus$address(), libnuma_h.numa_node_to_cpus$descriptor());
    }
}
