// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Run with the agent loaded: for each line "SYSFS_ROOT\tALLOWED\tNODE\tCOUNT\tMODE" of the file {@code args[0]}
 * (ALLOWED a cpulist or "-" for none given, MODE cpu or siblings), asks the library for its thread plan and
 * prints one line: "none" when it declines, else each mask's words in hex, words joined by ',', masks by ' '.
 */
public final class PlanProbe {
    private PlanProbe() {
    }

    public static void main(String[] args) throws Exception {
        for (String query : Files.readAllLines(Path.of(args[0]))) {
            String[] field = query.split("\t", -1);
            int count = Integer.parseInt(field[3]);
            long[] masks = NativeAgent.planThreads(field[0], field[1].equals("-") ? null : field[1],
                    Integer.parseInt(field[2]), count, field[4].equals("cpu"));
            if (masks == null) {
                System.out.println("none");
                continue;
            }
            int words = masks.length / count;
            StringBuilder line = new StringBuilder();
            for (int index = 0; index < count; index++) {
                line.append(index == 0 ? "" : " ");
                for (int w = 0; w < words; w++) {
                    line.append(w == 0 ? "" : ",").append(Long.toHexString(masks[index * words + w]));
                }
            }
            System.out.println(line);
        }
    }
}
