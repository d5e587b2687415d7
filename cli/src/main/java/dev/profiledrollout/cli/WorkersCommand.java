package dev.profiledrollout.cli;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.engine.EngineException;
import dev.profiledrollout.engine.RouterClient;
import dev.profiledrollout.engine.Worker;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import okhttp3.OkHttpClient;
import org.apiguardian.api.API;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code workers --router-url URL}: the engines behind an sgl-model-gateway or vllm-router, as a table (URL, type,
 * healthy, load), from {@code GET /workers} (legacy {@code /list_workers} as fallback; {@code docs/PROTOCOLS.md} §3).
 * DP-aware {@code @N} URLs are shown once. The bearer token, when the router validates one, comes from the environment
 * variable {@code PROFILEDROLLOUT_API_KEY}. Exit code 0, or 1 when the router cannot be read.
 */
@Command(name = "workers", mixinStandardHelpOptions = true,
        description = "List the workers behind a router (sgl-model-gateway or vllm-router).")
@API(status = INTERNAL, since = "0.1")
public final class WorkersCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--router-url", required = true, paramLabel = "URL", description = "The router, e.g. http://10.0.0.1:30000")
    URI routerUrl;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        OkHttpClient http = CliHttp.client(Duration.ofSeconds(30));
        try {
            List<Worker> workers = new RouterClient(routerUrl, http).workers();
            out.printf("%-40s %-8s %-7s %s%n", "URL", "TYPE", "HEALTHY", "LOAD");
            for (Worker w : workers) {
                out.printf("%-40s %-8s %-7s %d%n", w.url(), w.workerType(), w.healthy() ? "yes" : "no", w.load());
            }
            out.println(workers.size() + " worker(s)");
            out.flush();
            return 0;
        } catch (EngineException e) {
            err.println(e.getMessage());
            err.flush();
            return 1;
        } finally {
            CliHttp.close(http);
        }
    }
}
