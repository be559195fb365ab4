// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.testing.NicFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Random and mutated state files through the real {@code restore} command on a fake tree (a four-queue i40e NIC
 * with XPS on the mana machine, threaded NAPI on, and NAPI 8193's kernel thread; the state file also records that
 * thread and {@code threaded}). Whatever the file holds, restore exits 0, 2, 3 or 4 with numaspread's own one
 * line, and on exit 2 the tree is byte for byte as it was. Seeded, so that a failure names a case that can be run
 * again; bounded in count and time.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StateFileFuzzTest extends StandInCliTest {
    private static final long SEED = Long.getLong("numaspread.fuzz.seed", 0x5eedL);
    private static final int CASES = Integer.getInteger("numaspread.fuzz.cases", 3000);
    private static final long BUDGET_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** Fragments that parsers trip on: JSON structure, numbers at the edges, values the kernel never prints. */
    private static final List<String> TOKENS = List.of(
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            "\"",
            "\\",
            "\\u00",
            "\\n",
            "null",
            "true",
            "-",
            "+",
            " ",
            "\t",
            "\n",
            "\u0000",
            "0",
            "1",
            "7",
            "8",
            "63",
            "64",
            "65535",
            "65536",
            "2147483647",
            "2147483648",
            "-1",
            "99999999999999999999",
            "0-",
            "-0",
            "0--1",
            "1-0",
            "0,",
            ",0",
            "0:1/2",
            "ff",
            "0x3",
            "00000000,",
            ",ffffffff",
            "\"irq\"",
            "\"xps\"",
            "\"IRQ\"",
            "\"version\"",
            "\"saved\"",
            "\"value\"",
            "\"number\"",
            "\"name\"",
            "\"interface\"",
            "\"eth0\"",
            "\"../x\"",
            "\"i40e-eth0-TxRx-1\"",
            "é",
            "\uffff",
            "\"napi\"",
            "\"threaded\"",
            "\"napi/eth0-8193\"",
            "\"napi/eth0-8194\"",
            "\"napi/eth1-8193\"",
            "8192",
            "8193",
            "8194",
            "2");

    /** Values a kernel of 8 CPUs prints, as cpulists or masks: some fit the entry's kind, some do not. */
    private static final List<String> KERNEL_VALUES =
            List.of("0-7", "1", "3-4,6", "0,2,4,6", "ff", "0f", "01", "00", "8", "0-8", "100");

    @Test
    void restoreOfAnyStateFileExitsZeroTwoThreeOrFourAndChangesNothingOnTwo() throws Exception {
        String[] restore = withState("restore");
        CliRun apply = CliRun.of(withState("apply", "--nic", "eth0", "--xps", "--per-cpu"));
        assertEquals(0, apply.exitCode(), apply.err());
        NicFixture.file(sys.resolve("class/net/eth0/threaded"), "1");
        NicFixture.task(proc, 700, "napi/eth0-8193", true, "0-7");
        String valid = Files.readString(state)
                .replace("\"interface\": \"eth0\",", "\"interface\": \"eth0\", \"threaded\": 0,")
                .replace(
                        "\"saved\": [",
                        "\"saved\": [\n    {\"kind\": \"napi\", \"number\": 8193, \"name\": \"napi/eth0-8193\","
                                + " \"value\": \"0-7\"},");
        Files.writeString(state, valid);
        Map<Path, String> applied = NicFixture.snapshot(proc, sys);

        Random random = new Random(SEED);
        Map<Integer, Integer> exits = new TreeMap<>();
        long deadline = System.nanoTime() + BUDGET_NANOS;
        int n = 0;
        for (; n < CASES && System.nanoTime() < deadline; n++) {
            String input = switch (n % 10) {
                case 0 -> randomText(random);
                case 1, 2, 3, 4 ->
                    replaceAValue(new StringBuilder(valid), random).toString();
                default -> mutate(valid, random);
            };
            Files.write(state, input.getBytes(n % 7 == 0 ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8));
            CliRun result = CliRun.of(restore);
            String which = "case " + n + " (seed " + SEED + "): " + printable(input) + "\n-> " + result.err();
            assertTrue(Set.of(0, 2, 3, 4).contains(result.exitCode()), which);
            exits.merge(result.exitCode(), 1, Integer::sum);
            if (result.exitCode() != 0) {
                RestoreCommandTest.assertOneCleanLine(result);
            }
            Map<Path, String> now = NicFixture.snapshot(proc, sys);
            if (result.exitCode() == Failures.BAD_INPUT) {
                assertEquals(applied, now, "nothing may be written on exit 2: " + which);
            } else if (!now.equals(applied)) {
                assertWrittenInTheKernelsForm(now, which);
                applied.forEach((file, content) -> {
                    if (!content.equals(now.get(file))) {
                        NicFixture.file(file, content);
                    }
                });
            }
        }
        System.out.println("state file fuzz: " + n + " cases, exit codes " + exits);
        assertTrue(
                exits.getOrDefault(0, 0) > 0 && exits.getOrDefault(2, 0) > 0,
                "the mutations reach both a restore and a refusal: " + exits);
    }

    /** What a restore wrote is a cpulist or a mask as the kernel prints them, never text passed through. */
    private static void assertWrittenInTheKernelsForm(Map<Path, String> tree, String which) {
        tree.forEach((file, content) -> {
            String name = file.getFileName().toString();
            if (name.equals("smp_affinity_list")) {
                assertTrue(
                        content.strip().matches("[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*"),
                        file + " = " + content + ": " + which);
            } else if (name.equals("xps_cpus")) {
                assertTrue(content.strip().matches("[0-9a-f]{2}"), file + " = " + content + ": " + which);
            } else if (name.equals("threaded")) {
                assertTrue(content.strip().matches("[01]"), file + " = " + content + ": " + which);
            } else if (name.equals("status")) {
                assertTrue(
                        content.contains("Cpus_allowed_list:\t0-7\n"),
                        "a stand-in tree's thread is never pinned: " + file + " = " + content + ": " + which);
            }
        });
    }

    private static String mutate(String valid, Random random) {
        StringBuilder text = new StringBuilder(valid);
        int edits = 1 + random.nextInt(2);
        for (int e = 0; e < edits && text.length() > 0; e++) {
            int at = random.nextInt(text.length());
            switch (random.nextInt(6)) {
                case 0 -> text.deleteCharAt(at);
                case 1 -> text.insert(at, TOKENS.get(random.nextInt(TOKENS.size())));
                case 2 -> text.setCharAt(at, (char) (' ' + random.nextInt(95)));
                case 3 -> text.setLength(at);
                case 4 -> replaceAValue(text, random);
                default -> {
                    int end = Math.min(text.length(), at + 1 + random.nextInt(60));
                    text.insert(end, text.substring(at, end));
                }
            }
        }
        return text.toString();
    }

    /**
     * Replaces one recorded value, where strict parsing matters most: half the time with another value a kernel
     * could have printed, else with fragments.
     */
    private static StringBuilder replaceAValue(StringBuilder text, Random random) {
        int key = text.indexOf("\"value\": \"", random.nextInt(Math.max(1, text.length())));
        if (key < 0) {
            key = text.indexOf("\"value\": \"");
        }
        if (key < 0) {
            return text;
        }
        int start = key + "\"value\": \"".length();
        int end = text.indexOf("\"", start);
        if (end < 0) {
            return text;
        }
        StringBuilder value = new StringBuilder();
        if (random.nextBoolean()) {
            value.append(KERNEL_VALUES.get(random.nextInt(KERNEL_VALUES.size())));
        } else {
            for (int i = random.nextInt(4); i >= 0; i--) {
                value.append(TOKENS.get(random.nextInt(TOKENS.size())));
            }
        }
        return text.replace(start, end, value.toString());
    }

    private static String randomText(Random random) {
        StringBuilder text = new StringBuilder();
        for (int i = random.nextInt(40); i >= 0; i--) {
            text.append(random.nextBoolean() ? TOKENS.get(random.nextInt(TOKENS.size())) : (char) random.nextInt(128));
        }
        return text.toString();
    }

    private static String printable(String text) {
        StringBuilder out = new StringBuilder();
        text.chars()
                .forEach(
                        c -> out.append(c < 0x20 || c > 0x7e ? String.format("\\u%04x", c) : String.valueOf((char) c)));
        return out.toString();
    }
}
