package dev.profiledrollout.cli;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.cli.internal.AnalyzeJit;
import java.util.List;
import org.apiguardian.api.API;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code java -jar cli/target/profiled-rollout.jar <command>}: the command-line face of Profiled Rollout.
 *
 * <ul>
 *   <li>{@code analyze [--format table|json] PATH...}: kernel and GPU-busy summary of trace files</li>
 *   <li>{@code simulate --backend sglang|vllm [--router --workers N] --port P --tp T}: the engine simulator as a
 *       server</li>
 *   <li>{@code bench …}: a load test with {@code vllm bench serve}'s flags, table and result file</li>
 *   <li>{@code workers --router-url URL}, {@code profile --router-url URL --action start|stop …}: what slime's
 *       {@code tools/profile_rollout.py} does, for both backends</li>
 *   <li>{@code report PATH...}: charts and {@code report.html} from summary directories</li>
 *   <li>{@code history list|show|compare|trend|import|prune}: the run history store</li>
 * </ul>
 * ({@code engine-shim} is hidden: the simulator image's launch shims call it.)
 *
 * <p>Only the subcommand being run is set up ({@link #commandLine(String...)}): picocli builds a command's model by
 * reflection and instantiates it, which for {@code history} also loads Jackson databind and the history store, so
 * setting up every command cost {@code analyze} about 900 more loaded classes and 0.4 s of CPU (bench/README.md,
 * issue 27).
 */
@Command(name = "profiled-rollout", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "Profile LLM inference engines (SGLang, vLLM): analyse traces, run the engine simulator.")
@API(status = INTERNAL, since = "0.1")
public final class Main implements Runnable {

    /** The subcommands, in the order the usage help lists them. */
    static final List<Class<?>> COMMANDS = List.of(AnalyzeCommand.class, SimulateCommand.class, BenchCommand.class,
            CapacityCommand.class, WorkersCommand.class, ProfileCommand.class, EngineShimCommand.class,
            ReportCommand.class, HistoryCommand.class, CommandLine.HelpCommand.class);

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("analyze")) {
            AnalyzeJit.apply();
        }
        System.exit(commandLine(args).execute(args));
    }

    /** The command line with every subcommand set up (usage help, tests). */
    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Main());
        COMMANDS.forEach(cli::addSubcommand);
        return cli;
    }

    /**
     * The command line to execute {@code args} with: when the first argument names a subcommand, only that one is set
     * up (the others' classes are not even initialised); otherwise (no argument, an option such as {@code --help},
     * {@code help}, an unknown name) every subcommand is, so help and error messages list them all as before.
     */
    static CommandLine commandLine(String... args) {
        if (args.length > 0) {
            for (Class<?> command : COMMANDS) {
                if (command != CommandLine.HelpCommand.class
                        && args[0].equals(command.getAnnotation(Command.class).name())) {
                    CommandLine cli = new CommandLine(new Main());
                    cli.addSubcommand(command);
                    return cli;
                }
            }
        }
        return commandLine();
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing command: analyze, simulate, bench, workers or profile");
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"profiled-rollout " + (v == null ? "development build" : v)};
        }
    }
}
