package dev.profiledrollout.simulator.internal;

import dev.profiledrollout.simulator.SimulatorFaults;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Applies {@link SimulatorFaults}' trace faults to files the profiler has just written: cut them short
 * ({@code corruptTraces}), or publish them late and growing slowly ({@code traceExportDelay}, {@code traceGrowth}) on a
 * background thread ({@code simulator-trace-export-N}) that {@link #close()} interrupts and joins.
 *
 * <p>While a file waits, it is kept as {@code <name>.staging} next to where it belongs, a name no trace reader lists.
 */
final class TraceFaults implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(TraceFaults.class.getName());
    private static final int SLICES = 10;

    private final SimulatorFaults faults;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicInteger ids = new AtomicInteger();

    TraceFaults(SimulatorFaults faults) {
        this.faults = faults;
    }

    /** Applies the configured faults to {@code files}, which are complete on disk. */
    synchronized void apply(List<Path> files) throws IOException {
        if (!faults.asyncTraceExport()) {
            if (faults.corruptTraces()) {
                for (Path f : files) {
                    truncateToHalf(f);
                }
            }
            return;
        }
        List<Path> staged = new ArrayList<>();
        for (Path f : files) {
            if (faults.corruptTraces()) {
                truncateToHalf(f);
            }
            Path s = f.resolveSibling(f.getFileName() + ".staging");
            Files.move(f, s);
            staged.add(s);
        }
        Thread t = new Thread(() -> publish(files, staged), "simulator-trace-export-" + ids.incrementAndGet());
        t.setDaemon(true);
        threads.add(t);
        t.start();
    }

    private void publish(List<Path> files, List<Path> staged) {
        try {
            Thread.sleep(faults.traceExportDelay().toMillis());
            long slice = faults.traceGrowth().toMillis() / SLICES;
            for (int i = 0; i < files.size(); i++) {
                byte[] bytes = Files.readAllBytes(staged.get(i));
                try (OutputStream out = Files.newOutputStream(files.get(i))) {
                    int step = Math.max(1, (bytes.length + SLICES - 1) / SLICES);
                    for (int off = 0; off < bytes.length; off += step) {
                        out.write(bytes, off, Math.min(step, bytes.length - off));
                        out.flush();
                        if (slice > 0) {
                            Thread.sleep(slice);
                        }
                    }
                }
                Files.deleteIfExists(staged.get(i));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.ERROR, "delayed trace export failed", e);
        }
    }

    private static void truncateToHalf(Path f) throws IOException {
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() / 2);
        }
    }

    /** Interrupts and joins every publishing thread (at most 10 s each). */
    @Override
    public synchronized void close() {
        boolean interrupted = false;
        for (Thread t : threads) {
            t.interrupt();
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        threads.clear();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
