// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The ranges the kernel's {@code napi-set} takes. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NapiSettingsTest {
    @Test
    void settingsOutsideTheKernelsRangesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new NapiSettings(-1, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new NapiSettings(1L << 32, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new NapiSettings(0, -1, 0));
        assertThrows(IllegalArgumentException.class, () -> new NapiSettings(0, 0, -1));
    }
}
