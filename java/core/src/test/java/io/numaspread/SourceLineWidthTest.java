// SPDX-License-Identifier: Apache-2.0
package io.numaspread;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * No line of any module's main code ({@code java/MODULE/src/main}) is wider than 120 columns, the formatter's width:
 * the formatter wraps code but not strings or comments, which are wrapped by hand. The jextract-generated
 * bindings ({@code internal/ffm/gen}) are not written by hand and are left out.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SourceLineWidthTest {
    private static final int WIDTH = 120;
    private static final Path JAVA = Path.of(System.getProperty("basedir", System.getProperty("user.dir")), "..")
            .normalize();

    @Test
    void noMainSourceLineIsWiderThan120Columns() throws IOException {
        List<Path> sources = mainSources();
        assertTrue(
                sources.contains(JAVA.resolve("core/src/main/java/io/numaspread/CpuSet.java")),
                "the main sources are read from " + JAVA + ": " + sources.size() + " files");
        List<String> wide = new ArrayList<>();
        for (Path source : sources) {
            List<String> lines = Files.readAllLines(source);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                int columns = line.codePointCount(0, line.length());
                if (columns > WIDTH) {
                    wide.add(JAVA.relativize(source) + ":" + (i + 1) + " is " + columns + " columns wide");
                }
            }
        }
        assertEquals(List.of(), wide, "wrap strings and comments by hand");
    }

    private static List<Path> mainSources() throws IOException {
        List<Path> sources = new ArrayList<>();
        try (Stream<Path> modules = Files.list(JAVA)) {
            for (Path main : modules.map(m -> m.resolve("src/main"))
                    .filter(Files::isDirectory)
                    .toList()) {
                try (Stream<Path> files = Files.walk(main)) {
                    files.filter(f -> f.toString().endsWith(".java"))
                            .filter(f -> !f.toString().contains("/internal/ffm/gen/"))
                            .forEach(sources::add);
                }
            }
        }
        return sources;
    }
}
