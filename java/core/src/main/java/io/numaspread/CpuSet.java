// SPDX-License-Identifier: Apache-2.0
package io.numaspread;

import java.util.Arrays;
import java.util.NoSuchElementException;
import java.util.PrimitiveIterator;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

/**
 * An immutable set of CPU ids, printed and parsed as a kernel cpulist ("0-3,8,10-11").
 *
 * <p>The set has no fixed capacity: a native mask is sized by the caller from the machine's
 * {@code cpu/possible}, never from a compile-time {@code CPU_SETSIZE}.
 */
public final class CpuSet implements Iterable<Integer> {
    public static final CpuSet EMPTY = new CpuSet(new long[0], 0);

    /**
     * No CPU number reaches this: Linux caps NR_CPUS at 8192 (x86 MAXSMP, powerpc, arm64 4096), and this leaves
     * room for kernels to come. A list naming a CPU beyond it is refused at once, before any bit is set, so that
     * {@code "0-2147483647"} costs neither seconds nor memory.
     */
    public static final int MAX_CPUS = 1 << 16;

    /**
     * The set's bits from its lowest to its highest non-zero 64-bit word: {@code words[j]} holds CPUs
     * {@code (base + j) * 64 ..}. Storing only that span keeps CPU 8000's sibling pair at one word, not 126.
     */
    private final long[] words;

    private final int base;

    private CpuSet(long[] words, int base) {
        this.words = words;
        this.base = base;
    }

    /** The set of {@code words} starting at word {@code base}, trimmed of zero words at both ends. */
    private static CpuSet trimmed(long[] words, int base) {
        int low = 0;
        int high = words.length;
        while (high > low && words[high - 1] == 0) {
            high--;
        }
        while (low < high && words[low] == 0) {
            low++;
        }
        if (low == high) {
            return EMPTY;
        }
        return low == 0 && high == words.length
                ? new CpuSet(words, base)
                : new CpuSet(Arrays.copyOfRange(words, low, high), base + low);
    }

    private int end() {
        return base + words.length;
    }

    /** The word with absolute index {@code index}, 0 outside the stored span. */
    private long word(int index) {
        int j = index - base;
        return j >= 0 && j < words.length ? words[j] : 0;
    }

    public static CpuSet of(int... cpus) {
        if (cpus.length == 1 && cpus[0] >= 0) {
            return new CpuSet(new long[] {1L << cpus[0]}, cpus[0] >>> 6);
        }
        Builder builder = builder();
        for (int cpu : cpus) {
            builder.add(cpu);
        }
        return builder.build();
    }

    /** The CPUs {@code from..to}, both inclusive. */
    public static CpuSet range(int from, int to) {
        return builder().addRange(from, to).build();
    }

    /**
     * Parses a kernel cpulist such as {@code "0-3,8,10-11"}; an empty or blank string is the empty set.
     * The kernel also writes strides ({@code "0-7:2/4"}) in some files, and those are accepted too.
     *
     * @throws IllegalArgumentException naming the offending element
     */
    public static CpuSet parse(String cpulist) {
        String text = cpulist.strip();
        Builder builder = builder();
        if (text.isEmpty()) {
            return EMPTY;
        }
        for (String element : text.split(",", -1)) {
            parseElement(cpulist, element.strip(), builder);
        }
        return builder.build();
    }

    private static void parseElement(String cpulist, String element, Builder builder) {
        if (element.isEmpty()) {
            throw malformed(cpulist, "empty element");
        }
        String range = element;
        int used = 1;
        int group = 1;
        int colon = element.indexOf(':');
        if (colon >= 0) {
            range = element.substring(0, colon);
            String[] stride = element.substring(colon + 1).split("/", -1);
            if (stride.length != 2) {
                throw malformed(cpulist, "stride \"" + element + "\" is not USED/GROUP");
            }
            used = parseCpu(cpulist, stride[0]);
            group = parseCpu(cpulist, stride[1]);
            if (used == 0 || group == 0 || used > group) {
                throw malformed(cpulist, "stride \"" + element + "\" must satisfy 0 < USED <= GROUP");
            }
        }
        int dash = range.indexOf('-');
        int from = parseCpu(cpulist, dash < 0 ? range : range.substring(0, dash));
        int to = dash < 0 ? from : parseCpu(cpulist, range.substring(dash + 1));
        if (to < from) {
            throw malformed(cpulist, "range \"" + range + "\" ends before it starts");
        }
        for (int start = from; start <= to; start += group) {
            builder.addRange(start, Math.min(to, start + used - 1));
        }
    }

    private static int parseCpu(String cpulist, String number) {
        if (number.isEmpty()) {
            throw malformed(cpulist, "missing number");
        }
        for (int i = 0; i < number.length(); i++) {
            if (number.charAt(i) < '0' || number.charAt(i) > '9') {
                throw malformed(cpulist, "\"" + number + "\" is not a CPU number");
            }
        }
        // Digits only, so a long holds any 18 of them past the leading zeros; more are past MAX_CPUS anyway.
        int significant = 0;
        while (significant < number.length() - 1 && number.charAt(significant) == '0') {
            significant++;
        }
        long cpu = number.length() - significant > 18 ? Long.MAX_VALUE : Long.parseLong(number.substring(significant));
        if (cpu >= MAX_CPUS) {
            throw malformed(
                    cpulist,
                    "CPU " + shortened(number) + " is beyond the " + MAX_CPUS + " CPUs any Linux"
                            + " machine can have");
        }
        return (int) cpu;
    }

    private static String shortened(String text) {
        return text.length() <= 24 ? text : text.substring(0, 20) + "...";
    }

    private static IllegalArgumentException malformed(String cpulist, String why) {
        return new IllegalArgumentException("malformed cpulist \"" + shortened(cpulist.strip()) + "\": " + why);
    }

    /** The set whose bit {@code i} is bit {@code i % 64} of {@code mask[i / 64]}, as the kernel lays out masks. */
    public static CpuSet fromMask(long[] mask) {
        return trimmed(mask.clone(), 0);
    }

    /**
     * Parses a kernel hex mask as printed in {@code cpumap} or {@code xps_cpus}: 32-bit groups separated
     * by commas, most significant first ("00000000,0000000f").
     */
    public static CpuSet parseHexMask(String hexMask) {
        String[] groups = hexMask.strip().split(",", -1);
        if (groups.length > MAX_CPUS / 32) {
            throw new IllegalArgumentException(
                    "malformed hex mask \"" + shortened(hexMask.strip()) + "\": " + groups.length
                            + " groups of 32 CPUs, beyond the " + MAX_CPUS + " CPUs any Linux machine can have");
        }
        Builder builder = builder();
        for (int g = 0; g < groups.length; g++) {
            String group = groups[groups.length - 1 - g];
            if (group.isEmpty() || group.length() > 8 || !group.chars().allMatch(CpuSet::isHexDigit)) {
                throw new IllegalArgumentException("malformed hex mask \"" + shortened(hexMask.strip()) + "\": group \""
                        + shortened(group) + "\"");
            }
            long bits = Long.parseLong(group, 16);
            for (int bit = 0; bit < 32; bit++) {
                if ((bits & (1L << bit)) != 0) {
                    builder.add(g * 32 + bit);
                }
            }
        }
        return builder.build();
    }

    private static boolean isHexDigit(int c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }

    public static Builder builder() {
        return new Builder();
    }

    public boolean contains(int cpu) {
        return cpu >= 0 && (word(cpu >>> 6) & (1L << cpu)) != 0;
    }

    public boolean containsAll(CpuSet other) {
        return other.minus(this).isEmpty();
    }

    public boolean intersects(CpuSet other) {
        int high = Math.min(end(), other.end());
        for (int i = Math.max(base, other.base); i < high; i++) {
            if ((word(i) & other.word(i)) != 0) {
                return true;
            }
        }
        return false;
    }

    public boolean isEmpty() {
        return words.length == 0;
    }

    /** The number of CPUs in the set. */
    public int size() {
        int count = 0;
        for (long word : words) {
            count += Long.bitCount(word);
        }
        return count;
    }

    /** The lowest CPU. */
    public int first() {
        if (words.length == 0) {
            throw new NoSuchElementException("empty CPU set");
        }
        return base * 64 + Long.numberOfTrailingZeros(words[0]);
    }

    /** The highest CPU. */
    public int last() {
        if (words.length == 0) {
            throw new NoSuchElementException("empty CPU set");
        }
        int top = words.length - 1;
        return (base + top) * 64 + 63 - Long.numberOfLeadingZeros(words[top]);
    }

    /** The CPU at position {@code index} in ascending order. */
    public int nth(int index) {
        int remaining = index;
        for (int i = 0; i < words.length; i++) {
            int count = Long.bitCount(words[i]);
            if (remaining < count) {
                long word = words[i];
                for (int skip = 0; skip < remaining; skip++) {
                    word &= word - 1;
                }
                return (base + i) * 64 + Long.numberOfTrailingZeros(word);
            }
            remaining -= count;
        }
        throw new IndexOutOfBoundsException("CPU set " + this + " has no element " + index);
    }

    public CpuSet union(CpuSet other) {
        if (other.isEmpty()) {
            return this;
        }
        if (isEmpty()) {
            return other;
        }
        int low = Math.min(base, other.base);
        long[] result = new long[Math.max(end(), other.end()) - low];
        for (int i = 0; i < result.length; i++) {
            result[i] = word(low + i) | other.word(low + i);
        }
        return new CpuSet(result, low);
    }

    public CpuSet intersect(CpuSet other) {
        int low = Math.max(base, other.base);
        int high = Math.min(end(), other.end());
        if (low >= high) {
            return EMPTY;
        }
        long[] result = new long[high - low];
        for (int i = 0; i < result.length; i++) {
            result[i] = word(low + i) & other.word(low + i);
        }
        return trimmed(result, low);
    }

    public CpuSet minus(CpuSet other) {
        if (!intersects(other)) {
            return this;
        }
        long[] result = words.clone();
        for (int i = 0; i < result.length; i++) {
            result[i] &= ~other.word(base + i);
        }
        return trimmed(result, base);
    }

    public CpuSet with(int cpu) {
        return union(of(cpu));
    }

    /**
     * The set as a native mask of {@code bits} bits (rounded up to whole 64-bit words).
     *
     * @throws IllegalArgumentException if a CPU does not fit, naming it
     */
    public long[] toMask(int bits) {
        if (!isEmpty() && last() >= bits) {
            throw new IllegalArgumentException(
                    "CPU " + last() + " is beyond the " + bits + " CPUs this machine can have");
        }
        long[] mask = new long[(bits + 63) / 64];
        System.arraycopy(words, 0, mask, base, words.length);
        return mask;
    }

    /** The set as the kernel prints hex masks for {@code bits} CPUs: 32-bit groups, most significant first. */
    public String toHexMask(int bits) {
        long[] mask = toMask(bits);
        int groups = Math.max(1, (bits + 31) / 32);
        StringBuilder text = new StringBuilder(groups * 9);
        for (int g = groups - 1; g >= 0; g--) {
            long group = (mask[g / 2] >>> ((g % 2) * 32)) & 0xffffffffL;
            text.append(String.format(java.util.Locale.ROOT, "%08x", group));
            if (g > 0) {
                text.append(',');
            }
        }
        return text.toString();
    }

    /** The lowest CPU at or above {@code from}, or -1; cheap when {@code from} is near it. */
    public int next(int from) {
        return from <= 0 ? (isEmpty() ? -1 : first()) : nextAfter(from - 1);
    }

    public IntStream stream() {
        return IntStream.iterate(isEmpty() ? -1 : first(), cpu -> cpu >= 0, this::nextAfter);
    }

    /** A loop rather than {@code stream().toArray()}: the agent calls this before {@code main}, on a cold JVM. */
    public int[] toArray() {
        int[] cpus = new int[size()];
        int i = 0;
        for (int cpu = isEmpty() ? -1 : first(); cpu >= 0; cpu = nextAfter(cpu)) {
            cpus[i++] = cpu;
        }
        return cpus;
    }

    public void forEachCpu(IntConsumer action) {
        for (int i = 0; i < words.length; i++) {
            long word = words[i];
            while (word != 0) {
                action.accept((base + i) * 64 + Long.numberOfTrailingZeros(word));
                word &= word - 1;
            }
        }
    }

    private int nextAfter(int cpu) {
        int from = cpu + 1;
        int i = (from >>> 6) - base;
        if (i < 0) {
            return isEmpty() ? -1 : first();
        }
        if (i >= words.length) {
            return -1;
        }
        long word = words[i] & (-1L << from);
        while (true) {
            if (word != 0) {
                return (base + i) * 64 + Long.numberOfTrailingZeros(word);
            }
            if (++i == words.length) {
                return -1;
            }
            word = words[i];
        }
    }

    /** A class rather than {@code stream().iterator()}, for the same reason as {@link #toArray}. */
    @Override
    public PrimitiveIterator.OfInt iterator() {
        return new PrimitiveIterator.OfInt() {
            private int next = isEmpty() ? -1 : first();

            @Override
            public boolean hasNext() {
                return next >= 0;
            }

            @Override
            public int nextInt() {
                if (next < 0) {
                    throw new NoSuchElementException();
                }
                int cpu = next;
                next = nextAfter(cpu);
                return cpu;
            }
        };
    }

    /** The kernel cpulist form, e.g. {@code "0-3,8"}; the empty set prints as the empty string. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        int cpu = isEmpty() ? -1 : first();
        while (cpu >= 0) {
            int end = cpu;
            int next = nextAfter(cpu);
            while (next == end + 1) {
                end = next;
                next = nextAfter(next);
            }
            if (text.length() > 0) {
                text.append(',');
            }
            text.append(cpu);
            if (end > cpu) {
                text.append('-').append(end);
            }
            cpu = next;
        }
        return text.toString();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CpuSet set && base == set.base && Arrays.equals(words, set.words);
    }

    @Override
    public int hashCode() {
        return 31 * base + Arrays.hashCode(words);
    }

    /** Accumulates CPUs; not thread-safe. */
    public static final class Builder {
        private long[] words = new long[1];

        private Builder() {}

        public Builder add(int cpu) {
            if (cpu < 0) {
                throw new IllegalArgumentException("negative CPU number " + cpu);
            }
            if (cpu >= MAX_CPUS) {
                throw new IllegalArgumentException(
                        "CPU " + cpu + " is beyond the " + MAX_CPUS + " CPUs any Linux machine can have");
            }
            int word = cpu >>> 6;
            if (word >= words.length) {
                words = Arrays.copyOf(words, Math.max(word + 1, words.length * 2));
            }
            words[word] |= 1L << cpu;
            return this;
        }

        public Builder addRange(int from, int to) {
            if (from <= to) {
                add(from);
                add(to);
            }
            for (int cpu = from + 1; cpu < to; cpu++) {
                add(cpu);
            }
            return this;
        }

        public Builder addAll(CpuSet set) {
            set.forEachCpu(this::add);
            return this;
        }

        public CpuSet build() {
            return trimmed(words.clone(), 0);
        }
    }
}
