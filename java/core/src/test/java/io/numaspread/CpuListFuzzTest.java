// SPDX-License-Identifier: Apache-2.0
package io.numaspread;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Random and mutated CPU lists and hex masks: every input either parses into a set that prints and parses back to
 * itself, or is refused with an IllegalArgumentException of numaspread's own message; nothing else escapes, and
 * CPU numbers near Integer.MAX_VALUE are refused before any bit is set. Seeded and bounded.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CpuListFuzzTest {
    private static final long SEED = Long.getLong("numaspread.fuzz.seed", 0xc0ffeeL);
    private static final int CASES = 50_000;
    private static final List<String> PIECES = List.of(
            "0",
            "1",
            "3",
            "63",
            "64",
            "127",
            "4095",
            "65535",
            "65536",
            "2147483646",
            "2147483647",
            "2147483648",
            "4294967296",
            "99999999999999999999",
            "-",
            ",",
            ":",
            "/",
            " ",
            "\n",
            "+",
            "x",
            "ff",
            "F",
            "00000000",
            "\u0000",
            "\u0661");

    @Test
    void everyListParsesBackToItselfOrIsRefusedInItsOwnWords() {
        Random random = new Random(SEED);
        int parsed = 0;
        for (int n = 0; n < CASES; n++) {
            String text = n % 2 == 0
                    ? randomList(random)
                    : mutate(
                            CpuSet.of(random.ints(1 + random.nextInt(5), 0, 300).toArray())
                                    .toString(),
                            random);
            try {
                CpuSet cpus = CpuSet.parse(text);
                assertEquals(cpus, CpuSet.parse(cpus.toString()), text);
                assertTrue(cpus.isEmpty() || cpus.last() < CpuSet.MAX_CPUS, text);
                parsed++;
            } catch (IllegalArgumentException e) {
                assertTrue(
                        e.getMessage().startsWith("malformed cpulist")
                                || e.getMessage().contains("CPU"),
                        text + " -> " + e.getMessage());
            }
            String mask = mutate(CpuSet.of(random.nextInt(128)).toHexMask(128), random);
            try {
                CpuSet cpus = CpuSet.parseHexMask(mask);
                assertEquals(cpus, CpuSet.parseHexMask(cpus.toHexMask(cpus.isEmpty() ? 32 : cpus.last() + 1)), mask);
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage().startsWith("malformed hex mask"), mask + " -> " + e.getMessage());
            }
        }
        assertTrue(parsed > CASES / 10 && parsed < CASES, "both outcomes are reached: " + parsed + " parsed");
    }

    @Test
    void numbersNearTheIntLimitAreRefusedBeforeAnyBitIsSet() {
        for (String huge : List.of(
                "0-2147483647",
                "2147483647",
                "2147483646-2147483647",
                "0-65536",
                "65536",
                "0-2147483647:1/2",
                "1-3:1/2147483647")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CpuSet.parse(huge), huge);
            assertTrue(e.getMessage().contains("is beyond the 65536 CPUs"), huge + " -> " + e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> CpuSet.range(0, Integer.MAX_VALUE));
        assertThrows(IllegalArgumentException.class, () -> CpuSet.parseHexMask("1" + ",00000000".repeat(3000)));
        assertEquals(CpuSet.MAX_CPUS - 1, CpuSet.parse("65535").last());
    }

    private static String randomList(Random random) {
        StringBuilder text = new StringBuilder();
        for (int i = random.nextInt(8); i >= 0; i--) {
            text.append(PIECES.get(random.nextInt(PIECES.size())));
        }
        return text.toString();
    }

    private static String mutate(String valid, Random random) {
        StringBuilder text = new StringBuilder(valid);
        for (int e = random.nextInt(3); e >= 0 && text.length() > 0; e--) {
            int at = random.nextInt(text.length());
            switch (random.nextInt(3)) {
                case 0 -> text.deleteCharAt(at);
                case 1 -> text.insert(at, PIECES.get(random.nextInt(PIECES.size())));
                default -> text.setCharAt(at, (char) (' ' + random.nextInt(95)));
            }
        }
        return text.toString();
    }
}
