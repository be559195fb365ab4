// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import io.numaspread.kernel.SysfsTree;

class JnaBackendContractTest extends NativeBackendContract {
    @Override
    BackendKind kind() {
        return BackendKind.JNA;
    }

    @Override
    NativeBackend load() throws BackendUnavailableException {
        return JnaBackend.load(SysfsTree.live().maskBits());
    }
}
