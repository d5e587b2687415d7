package dev.profiledrollout.faults;

import dev.profiledrollout.junit.ProfiledTestKit;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/**
 * Runs one fault-matrix test case in a JVM of its own, for tests that stop that JVM:
 * {@code java -cp <test class path> dev.profiledrollout.faults.ForkedRun <test case class> <output dir> [key value]...}.
 */
public final class ForkedRun {

    private ForkedRun() {
    }

    public static void main(String[] args) throws ClassNotFoundException {
        if (args.length < 2 || args.length % 2 != 0) {
            throw new IllegalArgumentException("usage: ForkedRun <test case class> <output dir> [key value]...");
        }
        EngineExecutionResults results = ProfiledTestKit.run(Class.forName(args[0]), Path.of(args[1]),
                Arrays.copyOfRange(args, 2, args.length));
        System.out.println("finished: " + results.testEvents().finished().count() + " test(s), "
                + results.testEvents().failed().count() + " failed");
    }
}
