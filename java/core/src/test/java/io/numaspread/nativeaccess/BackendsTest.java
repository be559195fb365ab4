// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.numaspread.kernel.SysfsTree;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Selection on the live host: FFM on JDK 23 and newer, else JNA with the reason FFM was passed over. */
class BackendsTest {
    private static final int FEATURE = Runtime.version().feature();
    private static final String FFM_NEEDS_JDK_23 =
            "ffm backend unavailable, because it needs JDK 23 or newer and this is JDK " + FEATURE;

    @Test
    void prefersFfmAndElseSaysWhyNot() throws BackendUnavailableException {
        Backends.Selection selection = Backends.select(SysfsTree.live(), Optional.empty());
        if (FEATURE >= 23) {
            assertEquals(BackendKind.FFM, selection.backend().kind());
            assertEquals(Map.of(), selection.unavailable());
        } else {
            assertEquals(BackendKind.JNA, selection.backend().kind());
            assertEquals(Map.of(BackendKind.FFM, FFM_NEEDS_JDK_23), selection.unavailable());
        }
    }

    @Test
    void forcedFfmLoadsOrSaysWhyNot() throws BackendUnavailableException {
        Optional<BackendKind> ffm = Optional.of(BackendKind.FFM);
        if (FEATURE >= 23) {
            assertEquals(BackendKind.FFM, Backends.select(SysfsTree.live(), ffm).backend().kind());
        } else {
            BackendUnavailableException e = assertThrows(BackendUnavailableException.class,
                    () -> Backends.select(SysfsTree.live(), ffm));
            assertEquals(FFM_NEEDS_JDK_23, e.getMessage());
        }
    }

    @Test
    void forcedJnaAndSysfsLoadOnAnyJdk() throws BackendUnavailableException {
        for (BackendKind kind : new BackendKind[] {BackendKind.JNA, BackendKind.SYSFS}) {
            Backends.Selection selection = Backends.select(SysfsTree.live(), Optional.of(kind));
            assertEquals(kind, selection.backend().kind());
            assertEquals(Map.of(), selection.unavailable());
        }
    }
}
