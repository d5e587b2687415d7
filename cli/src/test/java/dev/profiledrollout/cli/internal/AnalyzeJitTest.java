package dev.profiledrollout.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The directives reach the JVM and do what their Javadoc says. Each case runs in a JVM of its own ({@link Probe}):
 * directives are process-wide, and this test JVM must keep its default compilation.
 */
class AnalyzeJitTest {

    /** Applies the directives, then prints the JVM's answer and its directive stack ({@code Compiler.directives_print}). */
    public static final class Probe {
        public static void main(String[] args) throws Exception {
            System.out.println("ANSWER " + AnalyzeJit.apply());
            System.out.println(ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerDirectivesPrint",
                    new Object[] {null}, new String[] {String[].class.getName()}));
        }
    }

    /** The two packages the jar's manifest opens (cli/pom.xml), as {@code java -jar} opens them. */
    private static final List<String> OPENS = List.of("--add-opens", "java.management/sun.management=ALL-UNNAMED",
            "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED");

    private static String probe(Map<String, String> env) throws IOException, InterruptedException {
        return probe(env, List.of());
    }

    private static String probe(Map<String, String> env, List<String> jvmOptions)
            throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("surefire.test.class.path",
                System.getProperty("java.class.path")), Probe.class.getName()));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(env);
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    @Test
    void keeps_c2_for_the_scanner_and_excludes_it_for_everything_else() throws Exception {
        String out = probe(Map.of());

        assertThat(out).contains("ANSWER 2 compiler directives added (MBean)"); // the packages are not opened here
        assertDirectives(out);
    }

    @Test
    void takes_the_direct_way_when_the_packages_are_opened_as_the_jar_manifest_opens_them() throws Exception {
        String out = probe(Map.of(), OPENS);

        assertThat(out).contains("ANSWER 2 compiler directives added (direct)");
        assertDirectives(out);
    }

    private static void assertDirectives(String out) {
        // the stack lists the added directives first, in the order of the file, then the JVM's default
        int scanner = out.indexOf("Directive:");
        int rest = out.indexOf("matching: *.*");
        int defaults = out.indexOf("Directive: (default)");
        assertThat(scanner).isNotNegative().isLessThan(rest);
        assertThat(rest).isLessThan(defaults);
        String scannerC2 = out.substring(out.indexOf("c2 directives:", scanner), rest);
        String restC2 = out.substring(out.indexOf("c2 directives:", rest), defaults);
        assertThat(scannerC2).contains("Exclude:false");
        assertThat(restC2).contains("Exclude:true");
        assertThat(out.substring(scanner, rest)).contains("FastEventScanner.*", "ByteCursor.*", "RememberedBytes.*",
                "NameMemo.*");
        // C2 compiles the per-field readers on their own rather than into the event loop
        assertThat(scannerC2).contains("inline: -dev/profiledrollout/trace/internal/FastEventScanner.args, "
                + "-dev/profiledrollout/trace/internal/FastEventScanner.cat, "
                + "-dev/profiledrollout/trace/internal/FastEventScanner.ph, "
                + "-dev/profiledrollout/trace/internal/ByteCursor.text, "
                + "-dev/profiledrollout/trace/internal/ByteCursor.micros");
        assertThat(restC2).contains("inline: -\n");
    }

    @Test
    void leaves_no_directives_file_behind(@TempDir Path tmp) throws Exception {
        String out = probe(Map.of(), List.of("-Djava.io.tmpdir=" + tmp));

        assertThat(out).contains("ANSWER 2 compiler directives added");
        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void keeps_out_of_the_event_loop_only_methods_that_exist() throws ClassNotFoundException {
        // a renamed method would silently be inlined again
        Matcher m = Pattern.compile("\"-dev/profiledrollout/trace/internal/(\\w+)\\.(\\w+)\"")
                .matcher(AnalyzeJit.DIRECTIVES);
        int found = 0;
        while (m.find()) {
            Class<?> owner = Class.forName("dev.profiledrollout.trace.internal." + m.group(1));
            String method = m.group(2);
            assertThat(owner.getDeclaredMethods()).as(m.group()).anyMatch(x -> x.getName().equals(method));
            found++;
        }
        assertThat(found).isEqualTo(5);
    }

    @Test
    void adds_nothing_when_switched_to_the_default() throws Exception {
        String out = probe(Map.of(AnalyzeJit.SWITCH, "default"));

        assertThat(out).contains("ANSWER " + AnalyzeJit.SWITCH + "=default");
        assertThat(out).doesNotContain("FastEventScanner").contains("Directive: (default)");
        assertThat(out.indexOf("Directive:")).isEqualTo(out.indexOf("Directive: (default)"));
    }

    @Test
    void names_the_scanner_classes_that_exist() throws ClassNotFoundException {
        // a renamed class would silently fall under the C1-only rule
        for (String name : List.of("FastEventScanner", "ByteCursor", "RememberedBytes", "NameMemo")) {
            assertThat(AnalyzeJit.DIRECTIVES).contains("dev/profiledrollout/trace/internal/" + name + ".*");
            Class.forName("dev.profiledrollout.trace.internal." + name);
        }
    }
}
