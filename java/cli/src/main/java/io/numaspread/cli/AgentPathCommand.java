// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(
        name = "agent-path",
        mixinStandardHelpOptions = true,
        description = {
            "Print the absolute path of the agent jar.",
            "For: java -javaagent:$(numaspread agent-path)=threads=epollEventLoopGroup-*,nic=eth0 ..."
        })
final class AgentPathCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().getOut().println(AgentJar.locate());
        spec.commandLine().getOut().flush();
    }
}
