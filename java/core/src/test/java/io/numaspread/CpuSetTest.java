package io.numaspread;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.BitSet;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** CpuSet against java.util.BitSet, over sets that start and end in different words. */
class CpuSetTest {
    @Test
    void setAlgebraMatchesBitSet() {
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
