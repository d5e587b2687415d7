package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.management.ObjectName;
import org.apiguardian.api.API;

/**
 * Asks HotSpot, once per JVM, not to inline a few large helpers of the trace reader into its own hot methods, through
 * a compiler directive (JEP 165 "Compiler Control", added at run time with the {@code Compiler.directives_add}
 * diagnostic command of the platform MBean server; no JVM flag needed).
 *
 * <p>Why: these helpers (a string's end, a scalar's end, an interval union's add, …) are called from many places of
 * the event loop and the sweep, and the JIT copies each into every hot caller. On two cores the C2 compiler then
 * spent about a third of the CPU of a 1 GB read compiling those copies, competing with the reading threads.
 * Compiled once on their own and called, they cost the reading thread less than they save the compiler:
 * {@code bench/analyze} on the 1 GB decode trace, 1.74–1.81 s instead of 1.88–1.94 s, process CPU 3.2 s instead of
 * 3.5 s (bench/README.md).
 *
 * <p>Scope: the directive matches only methods of {@code dev.profiledrollout.trace} and its {@code internal} package
 * and only stops the listed callees from being inlined into them; nothing else of the JVM changes, and results are
 * the same either way. Off with the system property {@value #KEY}{@code =false}. Where the JVM is not HotSpot or the
 * diagnostic command is unavailable (no {@code jdk.management}, a security manager), nothing happens.
 */
@API(status = INTERNAL, since = "0.1")
public final class CompilerDirectives {

    /** The system property that turns the directive off ({@code false}); {@code ProfiledRolloutKeys} lists it. */
    public static final String KEY = "profiledrollout.trace.compiler.directives";

    /** Callees kept out of line, as directive method patterns. */
    static final List<String> NOT_INLINED = List.of(
            "dev/profiledrollout/trace/internal/ByteCursor.stringEnd",
            "dev/profiledrollout/trace/internal/ByteCursor.scalarEnd",
            "dev/profiledrollout/trace/internal/ByteCursor.knownLongString",
            "dev/profiledrollout/trace/internal/ByteCursor.integer",
            "dev/profiledrollout/trace/internal/ByteCursor.skipValue",
            "dev/profiledrollout/trace/internal/ByteCursor.cached",
            "dev/profiledrollout/trace/internal/RunningUnion.add");

    private static final AtomicBoolean DONE = new AtomicBoolean();
    private static volatile String outcome = "not installed yet";

    private CompilerDirectives() {
    }

    /** Installs the directive unless done before or turned off; never throws. */
    public static void installOnce() {
        if (!DONE.compareAndSet(false, true)) {
            return;
        }
        if ("false".equalsIgnoreCase(System.getProperty(KEY, "true").trim())) {
            outcome = "off (" + KEY + "=false)";
            return;
        }
        Path file = null;
        try {
            file = Files.createTempFile("profiledrollout-directives-", ".json");
            Files.writeString(file, directive());
            Object reply = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerDirectivesAdd",
                    new Object[] {new String[] {file.toString()}}, new String[] {String[].class.getName()});
            outcome = String.valueOf(reply).trim();
        } catch (Exception | LinkageError unavailable) {
            outcome = "unavailable: " + unavailable;
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (Exception ignored) {
                    // a temporary file; deleteOnExit is not worth a shutdown hook here
                }
            }
        }
    }

    /** What {@link #installOnce()} did, for diagnostics and tests. */
    public static String outcome() {
        return outcome;
    }

    /** The directive, in the JSON-like format of JEP 165. */
    static String directive() {
        StringBuilder inline = new StringBuilder();
        for (String callee : NOT_INLINED) {
            inline.append(inline.length() == 0 ? "" : ", ").append("\"-").append(callee).append('"');
        }
        return "[{ match: [\"dev/profiledrollout/trace/*.*\", \"dev/profiledrollout/trace/internal/*.*\"], inline: ["
                + inline + "] }]";
    }
}
