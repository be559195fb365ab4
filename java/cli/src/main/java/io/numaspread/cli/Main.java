// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code numaspread} command. Every failure ends in one line on stderr and a documented exit code. */
@Command(
        name = "numaspread",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Places a NIC's queue IRQs and the JVM's I/O threads on the right CPUs.",
        subcommands = {
            TopologyCommand.class,
            PlanCommand.class,
            IrqsCommand.class,
            ApplyCommand.class,
            RestoreCommand.class,
            WatchCommand.class,
            DoctorCommand.class,
            AgentPathCommand.class,
            AttachCommand.class
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:ok",
            "1:internal error (a bug: please report it; NUMASPREAD_DEBUG=1 shows the stack trace)",
            "2:bad input (a flag, a file, an interface, a CPU)",
            "3:refused for safety (no privilege, irqbalance running)",
            "4:partial failure: apply rolled every change back; restore kept the state file for another try",
            "5:watch stopped because an event reader died (the line says which and why)"
        })
public final class Main implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /** Runs the CLI with the given streams and returns its exit code; the tests call this. */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        return run(args, out, err, CommandLine.defaultFactory());
    }

    /** As {@link #run(String[], PrintWriter, PrintWriter)}, with the commands {@code factory} makes (tests' faults). */
    static int run(String[] args, PrintWriter out, PrintWriter err, CommandLine.IFactory factory) {
        CommandLine commandLine = commandLine(args, factory);
        commandLine.setOut(out);
        commandLine.setErr(err);
        commandLine.setExecutionExceptionHandler(new Failures());
        commandLine.setParameterExceptionHandler(Failures::badUsage);
        try {
            return commandLine.execute(args);
        } catch (StackOverflowError | OutOfMemoryError e) {
            // Inputs are bounded (file sizes, nesting, CPU numbers) so that this cannot happen; if it does, it is
            // still one line, not a trace of a thousand.
            return Failures.exhausted(e, err);
        }
    }

    /**
     * The command line for {@code args}. picocli reflects over every option of every command it is given, at every
     * start, and the CLI's start is what every script and guest check pays for each call; so when {@code args[0]}
     * names a subcommand, that one alone goes under {@link OneCommand}. Otherwise (help, a typo that picocli answers
     * with the names, no subcommand) it is {@code Main} with all of them, the model that the man pages and the
     * completion script are generated from.
     */
    static CommandLine commandLine(String[] args, CommandLine.IFactory factory) {
        Optional<Class<?>> named = args.length == 0
                ? Optional.empty()
                : Arrays.stream(Main.class.getAnnotation(Command.class).subcommands())
                        .filter(command ->
                                command.getAnnotation(Command.class).name().equals(args[0]))
                        .findFirst();
        if (named.isEmpty()) {
            return new CommandLine(new Main(), factory);
        }
        try {
            return new CommandLine(new OneCommand(), factory).addSubcommand(factory.create(named.get()));
        } catch (Exception e) {
            throw new CommandLine.InitializationException(
                    "cannot create " + named.get().getName(), e);
        }
    }

    /** {@code numaspread} as the parent of the one subcommand a run names: what a subcommand's usage and help use. */
    @Command(name = "numaspread", mixinStandardHelpOptions = true, versionProvider = Main.Version.class)
    static final class OneCommand {}

    /**
     * With no subcommand: the main job on this machine's defaults, changing nothing: the topology, then the plan
     * for the NIC of the default route next to where its IRQs are now, and how to apply it.
     */
    @Override
    public void run() {
        PrintWriter out = spec.commandLine().getOut();
        new TopologyCommand().print(out, false);
        out.println();
        DefaultRoutePlan.print(out);
        out.flush();
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Main.class.getPackage().getImplementationVersion();
            return new String[] {"numaspread " + (version == null ? "(development build)" : version)};
        }
    }
}
