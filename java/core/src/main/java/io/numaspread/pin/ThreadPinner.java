// SPDX-License-Identifier: Apache-2.0
package io.numaspread.pin;

import io.numaspread.CpuSet;
import io.numaspread.nativeaccess.BackendUnavailableException;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.NativeCallException;
import io.numaspread.topology.TopologyDiscovery;

/**
 * Pins threads to CPUs and reads their affinity, through the selected {@link NativeBackend} (FFM on JDK 23 and
 * newer, JNA below). Every pin is checked against this process's allowed CPUs first, so a CPU outside a
 * container's cpuset is refused with its number instead of being silently dropped by the kernel, and every pin
 * emits a {@link PinEvent}.
 */
public final class ThreadPinner {
    private final NativeBackend backend;
    private final CpuSet allowed;

    /**
     * @param allowed the CPUs this process may use; see {@link TopologyDiscovery#processAllowed}
     */
    public ThreadPinner(NativeBackend backend, CpuSet allowed) {
        this.backend = backend;
        this.allowed = allowed;
    }

    /** A pinner on the live backend and this process's allowed CPUs. */
    public static ThreadPinner live() throws BackendUnavailableException {
        NativeBackend backend = Backends.live().backend();
        return new ThreadPinner(backend, TopologyDiscovery.processAllowed(backend));
    }

    public NativeBackend backend() {
        return backend;
    }

    public CpuSet allowed() {
        return allowed;
    }

    /**
     * Restricts the calling thread to {@code cpus}.
     *
     * @throws CpusNotAllowedException when {@code cpus} is empty or not within {@link #allowed()}
     * @throws NativeCallException when {@code sched_setaffinity} fails
     */
    public void pinCurrentThread(CpuSet cpus) {
        pin(0, Thread.currentThread().getName(), cpus);
    }

    /**
     * Restricts the thread with Linux thread id {@code tid} to {@code cpus}.
     *
     * @throws CpusNotAllowedException when {@code cpus} is empty or not within {@link #allowed()}
     * @throws NativeCallException with ESRCH when no such thread exists, EINVAL when the kernel refuses the set
     */
    public void pinThread(int tid, CpuSet cpus) {
        if (tid <= 0) {
            throw new IllegalArgumentException("thread id " + tid + " is not a Linux thread id");
        }
        pin(tid, "tid " + tid, cpus);
    }

    /** The CPUs the thread with Linux thread id {@code tid} may run on. */
    public CpuSet affinity(int tid) {
        return backend.affinity(tid);
    }

    /** The CPUs the calling thread may run on. */
    public CpuSet currentAffinity() {
        return backend.affinity(0);
    }

    /** The CPU the calling thread runs on at this moment. */
    public int currentCpu() {
        return backend.currentCpu();
    }

    /** The calling thread's Linux thread id. */
    public int currentTid() {
        return backend.currentTid();
    }

    /**
     * @throws CpusNotAllowedException when {@code cpus} is empty or holds a CPU outside {@link #allowed()}
     */
    public void requireAllowed(CpuSet cpus) {
        if (cpus.isEmpty()) {
            throw new CpusNotAllowedException("cannot pin to an empty CPU set");
        }
        CpuSet outside = cpus.minus(allowed);
        if (!outside.isEmpty()) {
            throw new CpusNotAllowedException("CPUs " + outside + " are outside the CPUs this process may use ("
                    + allowed + ", its cpuset or affinity); cannot pin to " + cpus);
        }
    }

    private void pin(int tid, String threadName, CpuSet cpus) {
        PinEvent event = new PinEvent();
        event.begin();
        event.threadName = threadName;
        event.tid = tid == 0 ? backend.currentTid() : tid;
        event.cpus = cpus.toString();
        try {
            requireAllowed(cpus);
            backend.setAffinity(tid, cpus);
            event.outcome = PinEvent.PINNED;
        } catch (RuntimeException e) {
            event.outcome = e.getMessage();
            throw e;
        } finally {
            event.commit();
        }
    }
}
