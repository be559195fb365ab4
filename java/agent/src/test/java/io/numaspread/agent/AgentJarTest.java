// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The agent jar is appended to the class path of applications that bring their own libraries, so it must carry
 * nothing that could stand in for one of theirs: every class lives under io/numaspread/agent.
 */
@Timeout(120)
class AgentJarTest {
    @Test
    void everyClassInTheJarIsUnderTheAgentsPackage() throws Exception {
        List<String> classes = new ArrayList<>();
        List<String> foreign = new ArrayList<>();
        try (JarFile jar = new JarFile(ForkedJvm.AGENT_JAR.toFile())) {
            jar.stream()
                    .map(entry -> entry.getName())
                    .filter(name -> name.endsWith(".class"))
                    .forEach(name -> {
                        classes.add(name);
                        if (!name.startsWith("io/numaspread/agent/")) {
                            foreign.add(name);
                        }
                    });
            assertEquals(
                    null,
                    jar.getManifest().getMainAttributes().getValue("Multi-Release"),
                    "a multi-release overlay would hold unrelocated classes");
        }
        assertEquals(List.of(), foreign, "classes outside io/numaspread/agent (JNA, unrelocated core)");
        assertTrue(classes.contains("io/numaspread/agent/NumaspreadAgent.class"), classes.toString());
        assertTrue(classes.contains("io/numaspread/agent/shaded/plan/Planner.class"), classes.toString());
    }

    /**
     * An application with its own JNA 5.13 and Netty 4.1 (the project builds with newer ones) runs with the agent:
     * both libraries work, report their own versions, and the agent pins the application's io-* threads.
     */
    @Test
    void anApplicationWithItsOwnJnaAndNettyRunsWithTheAgent() throws Exception {
        Path libraries = Path.of(System.getProperty("numaspread.test.application.libraries"));
        List<Path> jars;
        try (Stream<Path> files = Files.list(libraries)) {
            jars = files.filter(file -> file.toString().endsWith(".jar"))
                    .sorted()
                    .toList();
        }
        assertEquals(3, jars.size(), jars.toString());
        for (Path jdk : AgentForkTest.jdks().toList()) {
            ForkedJvm.Result result;
            long pid;
            try (ForkedJvm jvm = ForkedJvm.start(
                    jdk,
                    "threads=io-*,node=0,count=1,mode=cpu",
                    jars,
                    ForeignLibrariesApp.class,
                    "sequential",
                    "io:1")) {
                pid = jvm.pid();
                result = jvm.finish();
            }
            assertEquals(0, result.exitCode(), result.describe());
            assertEquals("jna 5.13.0 getpid " + pid, result.stdout().get(0), result.describe());
            assertEquals(
                    "netty 4.1.118.Final buffer 42 released true",
                    result.stdout().get(1),
                    result.describe());
            assertEquals(
                    AgentForkTest.plan(1, io.numaspread.plan.Mode.CPU)
                            .get(0)
                            .cpus()
                            .toString(),
                    result.cpusOf("", "io-0"),
                    result.describe());
            assertEquals(List.of(), result.stderr(), result.describe());
        }
    }
}
