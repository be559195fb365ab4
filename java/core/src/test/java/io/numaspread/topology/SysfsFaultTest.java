// SPDX-License-Identifier: Apache-2.0
package io.numaspread.topology;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.SysfsFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Broken trees give one error that names the file and what is wrong with it. */
class SysfsFaultTest {
    @TempDir
    Path root;

    private String discoverFailure() {
        NumaspreadException failure = assertThrows(NumaspreadException.class, () -> SysfsFixture.read(root));
        return failure.getMessage();
    }

    @ParameterizedTest
    @ValueSource(strings = {"0-", "5-3", "x"})
    void malformedCpulist(String cpulist) {
        SysfsFixture.write(MachineShape.mana(), root);
        SysfsFixture.write(root, "devices/system/node/node1/cpulist", cpulist);
        String message = discoverFailure();
        assertTrue(
                message.contains(
                        root.resolve("devices/system/node/node1/cpulist").toString()),
                message);
        assertTrue(message.contains("\"" + cpulist + "\""), message);
    }

    @Test
    void cpuBeyondPossible() {
        SysfsFixture.write(MachineShape.mana(), root);
        SysfsFixture.write(root, "devices/system/cpu/cpu2/topology/thread_siblings_list", "2-3,9");
        String message = discoverFailure();
        assertTrue(message.contains("cpu2/topology/thread_siblings_list"), message);
        assertTrue(message.contains("CPUs 9 are beyond"), message);
    }

    @Test
    void missingRequiredFile() throws Exception {
        SysfsFixture.write(MachineShape.mana(), root);
        Files.delete(root.resolve("devices/system/node/node0/distance"));
        String message = discoverFailure();
        assertTrue(message.startsWith("missing file " + root.resolve("devices/system/node/node0/distance")), message);
    }

    @Test
    void missingOnlineCpus() throws Exception {
        SysfsFixture.write(MachineShape.mana(), root);
        Files.delete(root.resolve("devices/system/cpu/online"));
        assertTrue(discoverFailure().contains("devices/system/cpu/online"));
    }

    @Test
    void unreadableFile() throws Exception {
        SysfsFixture.write(MachineShape.mana(), root);
        Path cpulist = root.resolve("devices/system/node/node0/cpulist");
        // Root reads any mode-000 file, so a directory in the file's place makes the read fail for everyone.
        Files.delete(cpulist);
        Files.createDirectory(cpulist);
        Files.setPosixFilePermissions(cpulist, PosixFilePermissions.fromString("---------"));
        assertTrue(discoverFailure().contains("cannot read " + cpulist), discoverFailure());
    }

    @Test
    void distanceRowOfTheWrongLength() {
        SysfsFixture.write(MachineShape.mana(), root);
        SysfsFixture.write(root, "devices/system/node/node1/distance", "21 10 30");
        String message = discoverFailure();
        assertTrue(message.contains("node1/distance: 3 distances for 2 online nodes"), message);
    }

    @Test
    void notASysfsTree() throws Exception {
        Files.createDirectories(root.resolve("etc"));
        String message = assertThrows(NumaspreadException.class, () -> SysfsTree.at(root))
                .getMessage();
        assertTrue(message.contains("is no sysfs tree"), message);
        assertTrue(message.contains(root.toString()), message);
        String missing = assertThrows(NumaspreadException.class, () -> SysfsTree.at(root.resolve("nope")))
                .getMessage();
        assertTrue(missing.contains("is not a directory"), missing);
    }
}
