// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import io.numaspread.kernel.SysfsTree;
import java.util.Optional;

/** The contract on FFM; on a JDK older than 23 {@link Backends} must say why FFM is unavailable. */
class FfmBackendContractTest extends NativeBackendContract {
    @Override
    BackendKind kind() {
        return BackendKind.FFM;
    }

    @Override
    NativeBackend load() throws BackendUnavailableException {
        return Backends.load(BackendKind.FFM, SysfsTree.live());
    }

    @Override
    Optional<String> expectedUnavailability() {
        int feature = Runtime.version().feature();
        return feature >= 23 ? Optional.empty() : Optional.of("it needs JDK 23 or newer and this is JDK " + feature);
    }
}
