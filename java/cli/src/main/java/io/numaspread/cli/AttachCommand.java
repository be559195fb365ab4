// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import io.numaspread.NumaspreadException;
import io.numaspread.pin.AgentOptions;
import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
        name = "attach",
        mixinStandardHelpOptions = true,
        description = {
            "Load the agent into a running JVM to pin its matching threads, running and future.",
            "The options are the agent's:",
            AgentOptions.SYNTAX,
            "Unlike -javaagent, attach is strict by default: bad options fail the command (exit 2), and the",
            "target JVM's stderr has the reason; it keeps running either way."
        })
final class AttachCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "PID", description = "The process id of the JVM.")
    long pid;

    @Parameters(index = "1", paramLabel = "OPTIONS", description = "The agent's options.")
    String options;

    @Override
    public void run() {
        AgentOptions.parse(options);
        String jar = AgentJar.locate().toString();
        String agentOptions = AgentOptions.strictByDefault(options);
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(Long.toString(pid));
        } catch (AttachNotSupportedException | IOException e) {
            throw NumaspreadException.badInput("cannot attach to JVM " + pid + ": " + e.getMessage());
        }
        try {
            vm.loadAgent(jar, agentOptions);
        } catch (AgentInitializationException e) {
            throw NumaspreadException.badInput(
                    "the agent in JVM " + pid + " refused the options \"" + options + "\"; that JVM's stderr says why");
        } catch (AgentLoadException | IOException e) {
            throw NumaspreadException.badInput("cannot load " + jar + " into JVM " + pid + ": " + e.getMessage());
        } finally {
            try {
                vm.detach();
            } catch (IOException e) {
                spec.commandLine().getErr().println("numaspread: detaching from JVM " + pid + ": " + e.getMessage());
            }
        }
        spec.commandLine().getOut().println("attached " + jar + " to JVM " + pid);
        spec.commandLine().getOut().flush();
    }
}
