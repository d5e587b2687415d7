import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.analysis.KernelCategories;
import dev.profiledrollout.trace.internal.EventParser;
import dev.profiledrollout.trace.internal.FastEventScanner;
import dev.profiledrollout.trace.internal.RawEvent;
import dev.profiledrollout.trace.reading.KinetoTraceReader;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;

/**
 * Where the CPU of a rank set's analysis goes (issue 27, fifth round in bench/README.md). Three modes, each in a fresh
 * JVM, run with the launcher's collector options ({@code -XX:+UseSerialGC -Xmn16m -Xms32m}):
 * <ul>
 *   <li>{@code once FILE...}: {@link TraceSet#read} of the files as {@code analyze} reads them (in parallel, one reader
 *       per core), then the CPU time of the JVM's own threads from {@code /proc/self/task} (Linux): JIT compiler
 *       threads, the collector's VM thread. The reader threads have ended by then; their CPU is the process's total
 *       less these.</li>
 *   <li>{@code steady N FILE...}: the same read N times in one JVM, each round's wall time: the first round pays the
 *       warm-up (JIT compilation and the slower code before it), the later ones do not.</li>
 *   <li>{@code parts N FILE}: N rounds on one file, each timing on the calling thread: inflate only
 *       ({@code java.util.zip}), inflate + {@link FastEventScanner} with a handler that does nothing, and the full
 *       read ({@link KinetoTraceReader#read(Path, KernelCategories, boolean, boolean)}, inflating on this thread).</li>
 *   <li>{@code scan N FILE}: the file inflated into memory once (a 1 GB tile needs {@code -Xmx5g}), then N rounds of
 *       the scanner alone over those bytes, and the number of events it handed over: the scan's cost per event.</li>
 * </ul>
 * Compile it first (run as a source file, the JVM would also compile javac, and the JIT figures would include it):
 * {@code javac -cp cli/target/profiled-rollout.jar -d /tmp/rsb bench/RankSetBreakdown.java && java -XX:+UseSerialGC
 * -Xmn16m -Xms32m -cp cli/target/profiled-rollout.jar:/tmp/rsb RankSetBreakdown MODE ...}
 */
public final class RankSetBreakdown {

    static long sink;

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "once" -> once(paths(args, 1));
            case "steady" -> steady(Integer.parseInt(args[1]), paths(args, 2));
            case "parts" -> parts(Integer.parseInt(args[1]), Path.of(args[2]));
            case "scan" -> scan(Integer.parseInt(args[1]), Path.of(args[2]));
            default -> throw new IllegalArgumentException(
                    "mode: once FILE... | steady N FILE... | parts N FILE | scan N FILE");
        }
        System.out.println("(sink " + (sink & 1) + ")");
    }

    private static List<Path> paths(String[] args, int from) {
        return Arrays.stream(args, from, args.length).map(Path::of).toList();
    }

    private static void once(List<Path> files) throws IOException {
        long t0 = System.nanoTime();
        int traces = TraceSet.read(files).traces().size();
        System.out.printf("read of %d traces: %.3f s wall%n", traces, (System.nanoTime() - t0) / 1e9);
        Map<String, Long> cpuMs = new TreeMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (NoSuchFileException ended) { // a thread that ended after the listing
                    continue;
                }
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replaceAll("[0-9]+$", "");
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime + stime, 1/100 s
                cpuMs.merge(name, ticks * 10, Long::sum);
            }
        }
        cpuMs.forEach((name, ms) -> {
            if (ms > 0) {
                System.out.printf("  thread %-18s %5d ms CPU%n", name, ms);
            }
        });
    }

    private static void steady(int rounds, List<Path> files) throws IOException {
        for (int i = 0; i < rounds; i++) {
            long t0 = System.nanoTime();
            TraceSet.read(files);
            System.out.printf("round %d: %.3f s wall%n", i, (System.nanoTime() - t0) / 1e9);
        }
    }

    private static void parts(int rounds, Path file) throws IOException {
        for (int i = 0; i < rounds; i++) {
            long t0 = System.nanoTime();
            try (InputStream in = gzip(file)) {
                byte[] buffer = new byte[1 << 20];
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    sink += n;
                }
            }
            long t1 = System.nanoTime();
            try (InputStream in = gzip(file)) {
                new FastEventScanner(in).scan(new Counting());
            }
            long t2 = System.nanoTime();
            KinetoTraceReader.read(file, KernelCategories.defaults(), true, false);
            long t3 = System.nanoTime();
            System.out.printf("round %d: inflate %.3f s, inflate + scan %.3f s, full read %.3f s%n", i,
                    (t1 - t0) / 1e9, (t2 - t1) / 1e9, (t3 - t2) / 1e9);
        }
    }

    private static void scan(int rounds, Path file) throws IOException {
        byte[] json;
        try (InputStream in = gzip(file)) {
            json = in.readAllBytes();
        }
        for (int i = 0; i < rounds; i++) {
            Counting counting = new Counting();
            long t0 = System.nanoTime();
            new FastEventScanner(new java.io.ByteArrayInputStream(json)).scan(counting);
            double s = (System.nanoTime() - t0) / 1e9;
            System.out.printf("round %d: scan %.3f s, %d events, %.0f ns per event%n", i, s, counting.events,
                    s * 1e9 / counting.events);
        }
    }

    /** A handler that only counts the events (and reads one field, so the scan is not optimised away). */
    private static final class Counting implements EventParser.Handler {
        long events;

        @Override
        public void event(RawEvent event) {
            events++;
            sink += event.tsNs;
        }

        @Override
        public void baseTimeNanoseconds(long ns) {
        }

        @Override
        public void distributedRank(int rank) {
        }

        @Override
        public void eventsStarted() {
        }
    }

    private static InputStream gzip(Path file) throws IOException {
        return new GZIPInputStream(new FileInputStream(file.toFile()), 1 << 16);
    }
}
