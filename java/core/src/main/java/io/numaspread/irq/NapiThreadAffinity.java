// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.KernelPaths;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A NAPI thread's affinity: read from its {@code Cpus_allowed_list}, set with {@code sched_setaffinity}. The thread
 * is found by name each time: a re-created thread has a new PID.
 */
final class NapiThreadAffinity implements SettingWriter {
    private final KernelPaths paths;
    private final NapiThreads threads;

    NapiThreadAffinity(KernelPaths paths, NapiThreads threads) {
        this.paths = paths;
        this.threads = threads;
    }

    @Override
    public String read(Target target) throws IOException {
        return threads.affinity(pidOf(target));
    }

    @Override
    public void write(Target target, String value) throws IOException {
        threads.setAffinity(pidOf(target), target.parse(value));
    }

    /** Sets the affinity the thread has, which changes nothing. */
    @Override
    public void probe(Target target) {
        try {
            int pid = pidOf(target);
            threads.setAffinity(pid, target.parse(threads.affinity(pid)));
        } catch (IOException | IllegalArgumentException e) {
            Errno errno = e instanceof IOException io ? Errno.of(io) : Errno.UNKNOWN;
            if (errno == Errno.EPERM || errno == Errno.EACCES) {
                throw new NumaspreadException(
                        NumaspreadException.Kind.REFUSED,
                        "cannot pin " + target.label() + ": "
                                + errno.name() + " (" + errno.text() + "): changing another task's affinity needs"
                                + " CAP_SYS_NICE (root); nothing was changed");
            }
            // Anything else is the write's to report, and to roll back.
        }
    }

    @Override
    public String where(Target target) {
        OptionalInt pid = threads.find(target);
        return pid.isPresent()
                ? "the affinity of " + target.name() + " (" + threads.statusFile(pid.getAsInt()) + ")"
                : "the affinity of " + target.name();
    }

    @Override
    public Optional<String> goneReason(Target target, IrqsNow irqs) {
        return exists(target)
                ? Optional.empty()
                : Optional.of("no kernel thread " + target.name()
                        + " now (threaded NAPI was turned off, or the queue or device removed)");
    }

    @Override
    public boolean exists(Target target) {
        return threads.find(target).isPresent();
    }

    private int pidOf(Target target) throws IOException {
        OptionalInt pid = threads.find(target);
        if (pid.isEmpty()) {
            throw new NoSuchFileException(
                    paths.procRoot().toString(), null, "no kernel thread " + target.name() + " (is threaded NAPI on?)");
        }
        return pid.getAsInt();
    }
}
