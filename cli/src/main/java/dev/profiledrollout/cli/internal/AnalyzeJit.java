package dev.profiledrollout.cli.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import javax.management.JMException;
import javax.management.ObjectName;
import org.apiguardian.api.API;

/**
 * HotSpot compiler directives for the {@code analyze} process: the optimising compiler (C2) compiles only the trace
 * scanner ({@code FastEventScanner} and the byte cursor, string and name tables it calls), whose loops run over every
 * byte of the input; every other method stays with the client compiler (C1, tier 1 once profiled).
 *
 * <p>Why: C2 spent 2.4–2.8 s of CPU on an 8-file rank set of 1 GB (about a third of the process's CPU on a 2-core
 * host), most of it on code that runs once per file (sorts, the timeline sweep, roofline rows) or per event but
 * cheaply (the accumulators). With C2 for the scanner only, the whole process took 3.3 s instead of 4.0 s on that set,
 * and 1.95 s instead of 2.24 s on a 1 GB decode trace; C1 for everything ({@code -XX:TieredStopAtLevel=1}) was as fast
 * on the set but 2.5 s on the decode trace (bench/README.md, issue 27 sixth round, where the other selections tried
 * are listed).
 *
 * <p>The same directives keep five per-field readers ({@code FastEventScanner.args}, {@code cat}, {@code ph},
 * {@code ByteCursor.text}, {@code micros}) out of C2's compilation of the event loop: each is compiled on its own.
 * The loop's code fell from about 20 KB to 5–8 KB, C2's time on the training rank set from 1.3 s to 0.6 s (C2 log,
 * one run each), and a trap in one reader (a category or phase first seen after the compilation) recompiles that
 * reader instead of the whole loop; the calls cost less than the compilations they save (set, {@code java -jar}, 7
 * alternating runs: 3.18 s to 3.05 s with the changes of the same round, bench/README.md, issue 27 seventh round).
 *
 * <p>How: JDK 17 takes directives at run time through the {@code Compiler.directives_add} diagnostic command
 * ({@code jcmd PID Compiler.directives_add FILE}; JDK {@code src/hotspot/share/services/diagnosticCommand.cpp},
 * {@code CompilerDirectivesAddDCmd}; directive format: JEP 165, "Compiler Control"). They apply to compilations that
 * start afterwards. The public way in is the {@code compilerDirectivesAdd} operation of the platform MBean server's
 * {@code com.sun.management:type=DiagnosticCommand}, but starting that server costs about 0.1 s. So, when the jar's
 * manifest has opened the two JDK packages (the {@code Add-Opens} that {@code java -jar} honours), this calls the
 * command through the JDK class behind that MBean ({@code com.sun.management.internal.DiagnosticCommandImpl}, about
 * 9 ms), and otherwise, or when that class is not as in JDK 17, through the MBean server. The process-wide directive
 * stack is why only {@code Main} calls this, for {@code analyze} only: the servers and load generators, and tests
 * that run commands inside their own JVM, keep the JVM's default compilation.
 */
@API(status = INTERNAL, since = "0.2")
public final class AnalyzeJit {

    /** Environment variable that turns the directives off when set to {@code default}. */
    public static final String SWITCH = "PROFILED_ROLLOUT_JIT";

    /** The directives: the first entry whose pattern matches a method decides (JEP 165). */
    static final String DIRECTIVES = """
            [
              {
                "match": ["dev/profiledrollout/trace/internal/FastEventScanner.*",
                          "dev/profiledrollout/trace/internal/ByteCursor.*",
                          "dev/profiledrollout/trace/internal/RememberedBytes.*",
                          "dev/profiledrollout/trace/internal/NameMemo.*"],
                "c2": {
                  "Exclude": false,
                  "inline": ["-dev/profiledrollout/trace/internal/FastEventScanner.args",
                             "-dev/profiledrollout/trace/internal/FastEventScanner.cat",
                             "-dev/profiledrollout/trace/internal/FastEventScanner.ph",
                             "-dev/profiledrollout/trace/internal/ByteCursor.text",
                             "-dev/profiledrollout/trace/internal/ByteCursor.micros"]
                }
              },
              {
                "match": ["*.*"],
                "c2": { "Exclude": true }
              }
            ]
            """;

    private AnalyzeJit() {
    }

    /**
     * Adds the directives to this JVM, unless {@value #SWITCH} is {@code default}.
     *
     * @return what the JVM answered ({@code "2 compiler directives added"}) and the way taken ({@code " (direct)"} or
     *         {@code " (MBean)"}), or why nothing was added: the switch, or a JVM without the diagnostic command
     *         (another JVM, a runtime without {@code jdk.management}); never throws, since the directives change
     *         speed only
     */
    public static String apply() {
        if ("default".equals(System.getenv(SWITCH))) {
            return SWITCH + "=default: the JVM's default compilation";
        }
        Path file = null;
        try {
            file = directivesFile();
            String direct = direct("Compiler.directives_add " + file);
            if (direct != null && direct.contains("compiler directives added")) {
                return direct.strip() + " (direct)";
            }
            Object answer = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerDirectivesAdd",
                    new Object[] {new String[] {file.toString()}}, new String[] {String[].class.getName()});
            return String.valueOf(answer).strip() + " (MBean)";
        } catch (IOException | JMException | RuntimeException | LinkageError e) {
            return "compiler directives not added: " + e;
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException ignored) {
                    // a temporary file of 400 bytes left behind
                }
            }
        }
    }

    /**
     * The directives in a new file of the temporary directory. Named from the process id and the clock, not by
     * {@code Files.createTempFile}: its random name set up {@code SecureRandom} and the security providers, 15–20 ms
     * of the start-up before any trace is read (CPU profile of {@code analyze}). {@code CREATE_NEW} refuses a file
     * that exists, so a name taken by another process only costs another try.
     */
    private static Path directivesFile() throws IOException {
        Path dir = Path.of(System.getProperty("java.io.tmpdir"));
        long pid = ProcessHandle.current().pid();
        for (int attempt = 0; ; attempt++) {
            Path file = dir.resolve("profiled-rollout-jit-" + pid + "-" + System.nanoTime() + ".json");
            try {
                Files.writeString(file, DIRECTIVES, StandardCharsets.US_ASCII, StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE);
                return file;
            } catch (FileAlreadyExistsException taken) {
                if (attempt == 9) {
                    throw taken;
                }
            }
        }
    }

    /**
     * Runs a diagnostic command through the JDK 17 class behind the {@code DiagnosticCommand} MBean, without the MBean
     * server: {@code PlatformMBeanProviderImpl} loads the native library, {@code ManagementFactoryHelper} gives the
     * VM's management interface, and {@code DiagnosticCommandImpl.executeDiagnosticCommand} runs the command line.
     *
     * @return the command's output, or null when the packages are not opened to this code or a class is not as in
     *         JDK 17 (the caller then takes the MBean server)
     */
    static String direct(String command) {
        try {
            Class.forName("com.sun.management.internal.PlatformMBeanProviderImpl", true, null);
            Method management = Class.forName("sun.management.ManagementFactoryHelper")
                    .getDeclaredMethod("getVMManagement");
            management.setAccessible(true);
            Class<?> impl = Class.forName("com.sun.management.internal.DiagnosticCommandImpl");
            Constructor<?> constructor = impl.getDeclaredConstructor(Class.forName("sun.management.VMManagement"));
            constructor.setAccessible(true);
            Method execute = impl.getDeclaredMethod("executeDiagnosticCommand", String.class);
            execute.setAccessible(true);
            return (String) execute.invoke(constructor.newInstance(management.invoke(null)), command);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null; // not opened (InaccessibleObjectException), or another JDK's classes
        }
    }
}
