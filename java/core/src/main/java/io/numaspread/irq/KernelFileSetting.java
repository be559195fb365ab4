// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import java.io.IOException;

/** A setting that is one kernel file per target ({@link Target#file}), read and written as text. */
abstract class KernelFileSetting implements SettingWriter {
    protected final KernelPaths paths;
    protected final KernelFiles files;

    KernelFileSetting(KernelPaths paths, KernelFiles files) {
        this.paths = paths;
        this.files = files;
    }

    @Override
    public final String read(Target target) throws IOException {
        return files.read(target.file(paths));
    }

    @Override
    public final void write(Target target, String value) throws IOException {
        files.write(target.file(paths), value);
    }
}
