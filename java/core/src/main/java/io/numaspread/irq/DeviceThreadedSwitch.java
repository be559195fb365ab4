// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.InterfaceName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Turning threaded NAPI on for every NAPI of a device through its sysfs switch, {@code
 * /sys/class/net/IFACE/threaded}: the kernel starts the {@code napi/IFACE-ID} threads as it takes the 1, so it comes
 * before the threads' own changes. It records {@code "threaded": 0} ({@link ThreadedRecord}).
 */
final class DeviceThreadedSwitch implements Change {
    private final ChangeContext kernel;
    private final Path threadedFile;
    private boolean off;
    private boolean switched;

    DeviceThreadedSwitch(ChangeContext kernel, Path threadedFile) {
        this.kernel = kernel;
        this.threadedFile = threadedFile;
    }

    @Override
    public void read() {
        off = kernel.threaded().read(threadedFile) == 0;
    }

    @Override
    public boolean changesAnything() {
        return off;
    }

    @Override
    public void probe() {
        kernel.threaded().probe(threadedFile);
    }

    @Override
    public StateFile.State record(StateFile.State state) {
        return state.recording(ThreadedRecord.of(0));
    }

    @Override
    public void apply() {
        switched = true;
        Optional<String> failure = kernel.threaded().switchOn(threadedFile);
        if (failure.isPresent()) {
            throw new NumaspreadException(NumaspreadException.Kind.ROLLED_BACK, failure.get());
        }
    }

    @Override
    public List<String> undo() {
        if (!switched) {
            return List.of();
        }
        try {
            if (!kernel.threaded().switchOff(threadedFile)) {
                return List.of(threadedFile + " (it does not read back as 0)");
            }
        } catch (IOException e) {
            return List.of(threadedFile + " (" + Errno.describe(e) + ")");
        }
        return List.of();
    }

    @Override
    public StateFile.State forget(StateFile.State state) {
        return state.with(ThreadedRecord.NONE);
    }

    @Override
    public int undone() {
        return switched ? 1 : 0;
    }

    @Override
    public Optional<String> undoneWords() {
        return switched ? Optional.of(threadedFile + " is 0 again") : Optional.empty();
    }

    /** Puts {@code threaded} back as recorded; nothing when the device, and its threads with it, is gone. */
    static PutBack restoring(ThreadedRecord record, ChangeContext kernel, InterfaceName iface) {
        Path file = kernel.threaded().file(iface);
        return new PutBack() {
            @Override
            public void probe() {
                if (Files.exists(file)) {
                    kernel.threaded().probe(file);
                }
            }

            @Override
            public List<String> putBack(List<AffinityTransaction.Result> results) {
                return kernel.threaded().restore(iface, record.before().orElseThrow()).stream()
                        .toList();
            }
        };
    }
}
