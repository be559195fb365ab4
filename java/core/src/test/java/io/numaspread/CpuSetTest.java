// SPDX-License-Identifier: Apache-2.0
package io.numaspread;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CpuSetTest {
    @ParameterizedTest
    @CsvSource(
            delimiter = ';',
            value = {
                "0-3,8,10-11; 0-3,8,10-11",
                "3,2,1,0; 0-3",
                "0,1-2,2; 0-2",
                "' 0-1 '; 0-1",
                "0-7:2/4; 0-1,4-5",
                "4095; 4095"
            })
    void parsesAndPrintsKernelCpulists(String input, String printed) {
        assertEquals(printed, CpuSet.parse(input).toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"0-", "5-3", "x", "1,,2", "-1", "0-3:5/4", "99999999999"})
    void rejectsMalformedCpulistsNamingThem(String input) {
        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class, () -> CpuSet.parse(input));
        assertTrue(failure.getMessage().contains("\"" + input.strip() + "\""), failure.getMessage());
    }

    @Test
    void emptyTextIsTheEmptySet() {
        assertTrue(CpuSet.parse("").isEmpty());
        assertEquals("", CpuSet.EMPTY.toString());
    }

    @Test
    void masksAreSizedByTheCallerNotByCpuSetSize() {
        CpuSet cpus = CpuSet.of(0, 63, 64, 4095);
        long[] mask = cpus.toMask(4096);
        assertEquals(64, mask.length);
        assertEquals(cpus, CpuSet.fromMask(mask));
        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class, () -> cpus.toMask(1024));
        assertTrue(failure.getMessage().contains("4095"), failure.getMessage());
    }

    @Test
    void hexMasksAsTheKernelPrintsThem() {
        assertEquals("00000000,0000000f", CpuSet.range(0, 3).toHexMask(64));
        assertEquals("00000001,00000000", CpuSet.of(32).toHexMask(40));
        assertEquals("03", CpuSet.range(0, 1).toHexMask(2).substring(6));
        assertEquals(
                CpuSet.of(0, 33, 70), CpuSet.parseHexMask(CpuSet.of(0, 33, 70).toHexMask(96)));
        assertThrows(IllegalArgumentException.class, () -> CpuSet.parseHexMask("zz"));
    }

    @Test
    void setAlgebraAgreesWithBitByBitDefinitions() {
        Random random = new Random(42);
        for (int round = 0; round < 200; round++) {
            boolean[] a = new boolean[300];
            boolean[] b = new boolean[300];
            CpuSet.Builder setA = CpuSet.builder();
            CpuSet.Builder setB = CpuSet.builder();
            for (int cpu = 0; cpu < 300; cpu++) {
                if (a[cpu] = random.nextInt(4) == 0) {
                    setA.add(cpu);
                }
                if (b[cpu] = random.nextInt(3) == 0) {
                    setB.add(cpu);
                }
            }
            CpuSet x = setA.build();
            CpuSet y = setB.build();
            for (int cpu = 0; cpu < 300; cpu++) {
                assertEquals(a[cpu] || b[cpu], x.union(y).contains(cpu));
                assertEquals(a[cpu] && b[cpu], x.intersect(y).contains(cpu));
                assertEquals(a[cpu] && !b[cpu], x.minus(y).contains(cpu));
            }
            assertEquals(x, CpuSet.parse(x.toString()));
            assertArrayEquals(x.stream().toArray(), x.toArray());
            if (!x.isEmpty()) {
                assertEquals(x.toArray()[x.size() - 1], x.last());
                assertEquals(x.toArray()[x.size() / 2], x.nth(x.size() / 2));
            }
        }
    }

    @Test
    void equalityIgnoresHowTheSetWasBuilt() {
        assertEquals(CpuSet.of(1, 2), CpuSet.range(0, 200).intersect(CpuSet.of(1, 2)));
        assertEquals(
                CpuSet.of(1, 2).hashCode(),
                CpuSet.range(0, 200).intersect(CpuSet.of(1, 2)).hashCode());
        assertFalse(CpuSet.of(1).contains(-1));
    }

    @Test
    void setAlgebraMatchesBitSetOverSetsStartingInDifferentWords() {
        Random random = new Random(7);
        for (int round = 0; round < 2000; round++) {
            BitSet a = random(random);
            BitSet b = random(random);
            CpuSet x = of(a);
            CpuSet y = of(b);
            assertEquals(a.toString(), bits(x).toString());
            assertEquals(or(a, b), bits(x.union(y)));
            assertEquals(and(a, b), bits(x.intersect(y)));
            assertEquals(andNot(a, b), bits(x.minus(y)));
            assertEquals(a.intersects(b), x.intersects(y));
            assertEquals(a.cardinality(), x.size());
            assertEquals(x, CpuSet.parse(x.toString()));
            assertEquals(x, CpuSet.fromMask(x.toMask(1024)));
            assertEquals(x.hashCode(), CpuSet.parse(x.toString()).hashCode());
            assertEquals(b.isEmpty() || a.equals(or(a, b)), x.containsAll(y) || b.isEmpty());
            int from = random.nextInt(1100);
            assertEquals(a.nextSetBit(from), x.next(from));
            if (!a.isEmpty()) {
                assertEquals(a.nextSetBit(0), x.first());
                assertEquals(a.length() - 1, x.last());
                int index = random.nextInt(a.cardinality());
                assertEquals(a.stream().skip(index).findFirst().getAsInt(), x.nth(index));
            }
            for (int probe = 0; probe < 8; probe++) {
                int cpu = random.nextInt(1100);
                assertEquals(a.get(cpu), x.contains(cpu));
            }
        }
    }

    @Test
    void aHighCpuIsStoredCompactlyAndPrintsTheSame() {
        CpuSet high = CpuSet.of(8000);
        assertEquals("8000", high.toString());
        assertEquals(CpuSet.parse("8000"), high);
        assertEquals(CpuSet.parse("3904,8000"), CpuSet.of(3904).union(high));
        assertArrayEquals(new int[] {8000}, high.toArray());
        assertEquals("00000001,00000000", CpuSet.of(32).toHexMask(64));
    }

    private static BitSet random(Random random) {
        BitSet bits = new BitSet();
        int start = random.nextInt(600);
        int span = random.nextInt(400);
        double density = random.nextDouble();
        for (int cpu = start; cpu < start + span; cpu++) {
            if (random.nextDouble() < density) {
                bits.set(cpu);
            }
        }
        return bits;
    }

    private static CpuSet of(BitSet bits) {
        return CpuSet.of(bits.stream().toArray());
    }

    private static BitSet bits(CpuSet set) {
        BitSet bits = new BitSet();
        set.forEachCpu(bits::set);
        return bits;
    }

    private static BitSet or(BitSet a, BitSet b) {
        BitSet r = (BitSet) a.clone();
        r.or(b);
        return r;
    }

    private static BitSet and(BitSet a, BitSet b) {
        BitSet r = (BitSet) a.clone();
        r.and(b);
        return r;
    }

    private static BitSet andNot(BitSet a, BitSet b) {
        BitSet r = (BitSet) a.clone();
        r.andNot(b);
        return r;
    }
}
