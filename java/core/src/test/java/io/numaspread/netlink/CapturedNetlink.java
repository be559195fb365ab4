// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netlink;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

/** Netlink answers captured from real kernels, kept as test resources: one message per line, in hex. */
public final class CapturedNetlink {
    private CapturedNetlink() {}

    /** The messages of resource {@code name} (beside this class), comment lines skipped. */
    public static List<byte[]> messages(String name) {
        try (InputStream in = CapturedNetlink.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII)
                    .lines()
                    .filter(line -> !line.isBlank() && !line.startsWith("#"))
                    .map(HexFormat.of()::parseHex)
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
