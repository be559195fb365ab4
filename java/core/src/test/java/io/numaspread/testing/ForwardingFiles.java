// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import io.numaspread.kernel.KernelFiles;
import java.io.IOException;
import java.nio.file.Path;

/** {@link KernelFiles#DIRECT}, for a test to override the one call it makes fail or race. */
public class ForwardingFiles implements KernelFiles {
    @Override
    public String read(Path file) throws IOException {
        return KernelFiles.DIRECT.read(file);
    }

    @Override
    public void write(Path file, String value) throws IOException {
        KernelFiles.DIRECT.write(file, value);
    }

    @Override
    public void probeWritable(Path file) throws IOException {
        KernelFiles.DIRECT.probeWritable(file);
    }
}
