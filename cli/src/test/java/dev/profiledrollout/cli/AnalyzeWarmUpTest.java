package dev.profiledrollout.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class AnalyzeWarmUpTest {

    @Test
    void await_waits_for_the_work_and_says_whether_it_ended() throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        AnalyzeWarmUp warmUp = new AnalyzeWarmUp(() -> {
            started.countDown();
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        started.await();

        assertThat(warmUp.await(Duration.ofMillis(20))).as("still held at the gate").isFalse();
        gate.countDown();
        assertThat(warmUp.await(Duration.ofSeconds(30))).isTrue();
    }

    @Test
    void a_failing_step_is_ignored_and_ends_the_thread() {
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> uncaught.add(e));
        try {
            AnalyzeWarmUp warmUp = new AnalyzeWarmUp(() -> {
                throw new IllegalStateException("not needed for the result");
            });

            assertThat(warmUp.await(Duration.ofSeconds(30))).isTrue();
            assertThat(uncaught).isEmpty(); // handled before the thread ended, so before await returned
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
    }

    @Test
    void names_a_class_that_exists() throws ClassNotFoundException {
        // a renamed class would silently take the set-up back into the readers
        assertThat(Class.forName(AnalyzeWarmUp.ROOFLINE_MODEL).getSimpleName()).isEqualTo("RooflineModel");
    }

    @Test
    void no_warm_up_thread_outlives_the_command_also_when_it_stops_early(@TempDir Path dir) {
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new AnalyzeCommand());
        cli.setOut(new PrintWriter(new StringWriter()));
        cli.setErr(new PrintWriter(err));

        int exit = cli.execute("--format", "json", dir.resolve("missing.json.gz").toString());

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("does not exist");
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(
                t -> t.getName().equals(AnalyzeWarmUp.THREAD) && t.isAlive());
    }
}
