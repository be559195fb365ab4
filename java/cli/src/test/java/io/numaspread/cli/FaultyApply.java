// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.kernel.Errno;
import io.numaspread.kernel.ErrnoException;
import io.numaspread.kernel.KernelFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine;

/**
 * The CLI whose {@code apply} writes through kernel files that misbehave at write N, run in a JVM of its own
 * ({@link ForkedCli}) so that a test can crash or fail an apply part way: "halt:N" does write N and then stops
 * dead (the test kills the process there), "einval:N" fails write N with EINVAL, and "eio:N" makes write N to
 * {@code /proc/self/mem} at offset 0, which is never mapped, so that the kernel itself fails it with EIO, as it
 * does for a managed IRQ, and the files report it as they would.
 */
final class FaultyApply {
    private FaultyApply() {}

    /** {@code FAULT ARGS...}: the CLI's {@code ARGS}, with {@code FAULT} ("einval:3") in apply's writes. */
    public static void main(String[] args) {
        String fault = args[0];
        PrintWriter err = new PrintWriter(System.err, true);
        CommandLine.IFactory commands = new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> type) throws Exception {
                return type == ApplyCommand.class
                        ? type.cast(new ApplyCommand(real -> files(real, fault, err)))
                        : CommandLine.defaultFactory().create(type);
            }
        };
        System.exit(
                Main.run(Arrays.copyOfRange(args, 1, args.length), new PrintWriter(System.out, true), err, commands));
    }

    /** The arguments of {@link #main}: {@code fault}, then the CLI's. */
    static String[] args(String fault, String... cliArgs) {
        List<String> all = new ArrayList<>(List.of(fault));
        all.addAll(List.of(cliArgs));
        return all.toArray(String[]::new);
    }

    private static KernelFiles files(KernelFiles real, String fault, PrintWriter err) {
        String[] modeAndWrite = fault.split(":", 2);
        int at = Integer.parseInt(modeAndWrite[1]);
        String mode = modeAndWrite[0];
        return new KernelFiles() {
            private int writes;

            @Override
            public String read(Path file) throws IOException {
                return real.read(file);
            }

            @Override
            public void write(Path file, String value) throws IOException {
                if (++writes == at && mode.equals("einval")) {
                    throw new ErrnoException("write", file, Errno.EINVAL.number());
                }
                if (writes == at && mode.equals("eio")) {
                    real.write(Path.of("/proc/self/mem"), value);
                    throw new IllegalStateException("writing /proc/self/mem at offset 0 did not fail");
                }
                real.write(file, value);
                if (writes == at && mode.equals("halt")) {
                    err.println("numaspread: test hook: halted after write " + writes);
                    err.flush();
                    haltForever();
                }
            }

            @Override
            public void probeWritable(Path file) throws IOException {
                real.probeWritable(file);
            }
        };
    }

    private static void haltForever() {
        while (true) {
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
