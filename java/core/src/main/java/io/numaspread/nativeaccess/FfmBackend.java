package io.numaspread.nativeaccess;

import io.numaspread.CpuSet;
import java.util.Optional;

/**
 * The FFM backend as the Java 17 base sees it: never available. The multi-release overlay for JDK 23 and
 * newer replaces this class with the real one, which calls the jextract bindings.
 */
public final class FfmBackend implements NativeBackend {
    private FfmBackend() {
    }

    static FfmBackend load(int maskBits) throws BackendUnavailableException {
        throw new BackendUnavailableException(BackendKind.FFM,
                "it needs JDK 23 or newer and this is JDK " + Runtime.version().feature());
    }

    @Override
    public BackendKind kind() {
        return BackendKind.FFM;
    }

    @Override
    public Optional<String> numaUnavailableCause() {
        throw new AssertionError("never instantiated");
    }

    @Override
    public int maxNode() {
        throw new AssertionError("never instantiated");
    }

    @Override
    public CpuSet nodeCpus(int node) {
        throw new AssertionError("never instantiated");
    }

    @Override
    public int distance(int from, int to) {
        throw new AssertionError("never instantiated");
    }

    @Override
    public CpuSet affinity(int tid) {
        throw new AssertionError("never instantiated");
    }

    @Override
    public void setAffinity(int tid, CpuSet cpus) {
        throw new AssertionError("never instantiated");
    }

    @Override
    public int currentCpu() {
        throw new AssertionError("never instantiated");
    }

    @Override
    public int currentTid() {
        throw new AssertionError("never instantiated");
    }

    @Override
    public int incomingCpu(int fd) {
        throw new AssertionError("never instantiated");
    }

    @Override
    public NetlinkSocket openNetlink(int protocol, int groups) {
        throw new AssertionError("never instantiated");
    }
}
