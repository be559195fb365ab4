// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Path;

/**
 * Run with the agent loaded: performs each operation of {@code args}, {@code write FILE VALUE} or {@code read
 * FILE}, through the agent's own kernel files (its library's libc calls), and prints for each "written", "read N
 * characters", or the failure's class name and errno (its message when it carries none). Reflection, because the
 * agent jar relocates core's classes, so the test classes cannot name their types.
 */
public final class KernelFilesProbe {
    private KernelFilesProbe() {}

    public static void main(String[] args) throws Exception {
        Method kernelFiles =
                Class.forName("io.numaspread.agent.AgentKernelFiles").getDeclaredMethod("live");
        kernelFiles.setAccessible(true);
        Object files = kernelFiles.invoke(null);
        for (int i = 0; i < args.length; i++) {
            boolean write = args[i].equals("write");
            Path file = Path.of(args[i + 1]);
            String value = write ? args[i + 2] : null;
            i += write ? 2 : 1;
            try {
                if (write) {
                    files.getClass()
                            .getMethod("write", Path.class, String.class)
                            .invoke(files, file, value);
                    System.out.println("written");
                } else {
                    Object text = files.getClass().getMethod("read", Path.class).invoke(files, file);
                    System.out.println("read " + ((String) text).length() + " characters");
                }
            } catch (InvocationTargetException e) {
                Throwable failure = e.getCause();
                String name = failure.getClass().getSimpleName();
                System.out.println(
                        name.equals("ErrnoException")
                                ? name + " errno "
                                        + failure.getClass().getMethod("number").invoke(failure)
                                : name + " " + failure.getMessage());
            }
        }
    }
}
