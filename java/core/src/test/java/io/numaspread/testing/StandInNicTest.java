// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import io.numaspread.kernel.KernelPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the tests of apply, restore and watch stand on: fresh {@code sys}, {@code proc} and {@code run} trees for
 * each test, holding the mana machine (8 CPUs, 2 nodes) with a four-queue i40e eth0 whose vectors all start on
 * 0-7 ({@link NicFixture#i40eOnMana}), and every file of the trees as it was before the test ran.
 */
public abstract class StandInNicTest {
    @TempDir
    protected Path sys;

    @TempDir
    protected Path proc;

    @TempDir
    protected Path run;

    protected KernelPaths paths;

    /** eth0's state file, where {@code /run/numaspread/eth0.json} is on a machine: its directory is not there yet. */
    protected Path state;

    /** Every file under {@code proc} and {@code sys} before the test, for "nothing changed" checks. */
    protected Map<Path, String> before;

    @BeforeEach
    final void writeStandInNic() {
        NicFixture.i40eOnMana(sys, proc);
        paths = new KernelPaths(proc, sys);
        state = run.resolve("numaspread/eth0.json");
        before = NicFixture.snapshot(proc, sys);
    }

    /** Writes {@code content} as eth0's state file, as an earlier run (or a user) left it. */
    protected final void writeStateFile(String content) throws IOException {
        Files.createDirectories(state.getParent());
        Files.writeString(state, content);
    }

    /** IRQ {@code irq}'s {@code smp_affinity_list}, as the stand-in kernel holds it. */
    protected final String affinity(int irq) throws IOException {
        return Files.readString(paths.smpAffinityList(irq)).strip();
    }
}
