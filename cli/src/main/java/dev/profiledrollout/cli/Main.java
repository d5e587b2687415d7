package dev.profiledrollout.cli;

import static org.apiguardian.api.API.Status.INTERNAL;

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
 */
@Command(name = "profiled-rollout", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "Profile LLM inference engines (SGLang, vLLM): analyse traces, run the engine simulator.",
        subcommands = {AnalyzeCommand.class, SimulateCommand.class, BenchCommand.class, CapacityCommand.class, WorkersCommand.class,
                ProfileCommand.class, EngineShimCommand.class, ReportCommand.class, HistoryCommand.class,
                CommandLine.HelpCommand.class})
@API(status = INTERNAL, since = "0.1")
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new Main()).execute(args));
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
