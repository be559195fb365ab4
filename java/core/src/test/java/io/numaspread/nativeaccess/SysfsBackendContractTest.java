// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

/** The contract on the sysfs reader: the same reads, but it cannot pin threads. */
class SysfsBackendContractTest extends NativeBackendContract {
    @Override
    BackendKind kind() {
        return BackendKind.SYSFS;
    }

    @Override
    NativeBackend load() {
        return SysfsBackend.live();
    }

    @Override
    boolean callsNative() {
        return false;
    }
}
