import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/**
 * The inflate floor of a Java reader, as a whole process: inflates each gzip FILE with java.util.zip (zlib through
 * {@link GZIPInputStream}, 256 KiB input buffer, output read in 1 MiB pieces and discarded) on one thread, one file
 * after another, and prints the bytes. Nothing is parsed. bench/analyze times it beside `gzip -dc` and the CLI.
 * Usage: java InflateOnly FILE...
 */
public final class InflateOnly {

    public static void main(String[] args) throws IOException {
        byte[] out = new byte[1 << 20];
        long total = 0;
        long t0 = System.nanoTime();
        for (String file : args) {
            try (InputStream in = new GZIPInputStream(Files.newInputStream(Path.of(file)), 1 << 18)) {
                for (int n; (n = in.read(out, 0, out.length)) >= 0; ) {
                    total += n;
                }
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        System.out.printf("inflated %d bytes in %.3f s in the JVM (%.0f MiB/s)%n", total, seconds,
                total / 1048576.0 / seconds);
    }
}
