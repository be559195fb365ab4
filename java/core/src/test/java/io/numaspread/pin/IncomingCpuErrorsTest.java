// SPDX-License-Identifier: Apache-2.0
package io.numaspread.pin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.NativeCallException;
import io.numaspread.nativeaccess.SysfsBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The failures of {@code getsockopt(SO_INCOMING_CPU)}; the netty module reads real values from real sockets. */
class IncomingCpuErrorsTest {
    @ParameterizedTest
    @MethodSource("io.numaspread.pin.ThreadPinnerTest#pinningBackends")
    void aClosedDescriptorIsEbadf(NativeBackend backend) {
        NativeCallException failure = assertThrows(NativeCallException.class, () -> backend.incomingCpu(-1));
        assertEquals("getsockopt", failure.function());
        assertEquals(9, failure.errno());
        assertTrue(failure.getMessage().endsWith("SO_INCOMING_CPU of fd -1"), failure.getMessage());
    }

    @Test
    void theSysfsBackendSaysItCannot() {
        UnsupportedOperationException failure = assertThrows(
                UnsupportedOperationException.class, () -> SysfsBackend.live().incomingCpu(0));
        assertTrue(failure.getMessage().contains("use the ffm or jna backend"), failure.getMessage());
    }
}
