// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Path;

/**
 * Run with the agent loaded: writes {@code value} to {@code file} through the agent's own kernel files (its
 * library's libc calls) and prints "written" or the failure's class name and errno. Reflection, because the
 * agent jar relocates core's classes, so the test classes cannot name their types.
 */
public final class KernelFilesProbe {
    private KernelFilesProbe() {}

    public static void main(String[] args) throws Exception {
        Method kernelFiles = Class.forName("io.numaspread.agent.NativeAgent").getDeclaredMethod("kernelFiles");
        kernelFiles.setAccessible(true);
        Object files = kernelFiles.invoke(null);
        Method write = files.getClass().getMethod("write", Path.class, String.class);
        try {
            write.invoke(files, Path.of(args[0]), args[1]);
            System.out.println("written");
        } catch (InvocationTargetException e) {
            Throwable failure = e.getCause();
            System.out.println(failure.getClass().getSimpleName() + " errno "
                    + failure.getClass().getMethod("number").invoke(failure));
        }
    }
}
