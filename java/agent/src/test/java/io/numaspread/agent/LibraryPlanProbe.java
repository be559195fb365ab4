// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

/**
 * Run with the agent loaded: asks its library ({@link NativeAgent#planThreads}) for the node 0 thread plan of
 * each count in {@code args[0]} (comma-separated) over each sysfs tree in {@code args[1..]}, and prints "ROOT
 * COUNT: planned" or "ROOT COUNT: declined" for each.
 */
public final class LibraryPlanProbe {
    private LibraryPlanProbe() {}

    public static void main(String[] args) {
        for (int r = 1; r < args.length; r++) {
            for (String count : args[0].split(",")) {
                long[] masks = NativeAgent.planThreads(args[r], null, 0, Integer.parseInt(count), true);
                System.out.println(args[r] + " " + count + ": " + (masks == null ? "declined" : "planned"));
            }
        }
    }
}
