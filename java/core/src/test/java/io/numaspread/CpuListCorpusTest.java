// SPDX-License-Identifier: Apache-2.0
package io.numaspread;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.kernel.KernelText;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cpulist corpus ({@code cpulist-corpus.txt}, which the agent library's C reader is held to as well, by
 * native/agent/test/fuzz.c): each kernel file's bytes, read as {@link KernelText#meaning} and parsed by
 * {@link CpuSet#parse}, give the set the corpus names, or are refused.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CpuListCorpusTest {
    private record Case(int line, byte[] input, String expected) {}

    @Test
    void everyCorpusInputMeansTheSetItNamesOrIsRefused() throws IOException {
        List<Case> cases = corpus();
        List<String> differ = new ArrayList<>();
        for (Case c : cases) {
            String actual;
            try {
                CpuSet cpus = CpuSet.parse(KernelText.meaning(c.input()));
                actual = cpus.isEmpty() ? "empty" : cpus.toString();
            } catch (IllegalArgumentException e) {
                actual = "refused";
            }
            if (!actual.equals(c.expected())) {
                differ.add("line " + c.line() + ": " + c.expected() + " expected, " + actual + " read");
            }
        }
        assertEquals(List.of(), differ);
        assertTrue(cases.size() > 50, cases.size() + " cases");
    }

    private static List<Case> corpus() throws IOException {
        String text;
        try (InputStream in = CpuListCorpusTest.class.getResourceAsStream("cpulist-corpus.txt")) {
            text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
        List<Case> cases = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int n = 0; n < lines.length; n++) {
            String line = lines[n];
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            ByteArrayOutputStream input = new ByteArrayOutputStream();
            int end = unquote(line, n + 1, input);
            cases.add(new Case(n + 1, input.toByteArray(), line.substring(end).strip()));
        }
        return cases;
    }

    /** Writes the quoted input at the line's start into {@code input}; returns the index after its closing quote. */
    private static int unquote(String line, int number, ByteArrayOutputStream input) {
        if (line.charAt(0) != '"') {
            throw new IllegalStateException("corpus line " + number + " does not start with a quote");
        }
        for (int i = 1; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '"') {
                return i + 1;
            }
            if (c != '\\') {
                input.write(c);
                continue;
            }
            char escaped = line.charAt(++i);
            switch (escaped) {
                case '0' -> input.write(0);
                case 't' -> input.write('\t');
                case 'n' -> input.write('\n');
                case 'r' -> input.write('\r');
                case 'v' -> input.write(0x0b);
                case 'f' -> input.write('\f');
                case '\\', '"' -> input.write(escaped);
                case 'x' -> {
                    input.write(Integer.parseInt(line.substring(i + 1, i + 3), 16));
                    i += 2;
                }
                default -> throw new IllegalStateException("corpus line " + number + ": unknown escape \\" + escaped);
            }
        }
        throw new IllegalStateException("corpus line " + number + " has no closing quote");
    }
}
