import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;

/**
 * The inflate floor of a Java reader, as a whole process: inflates each gzip FILE on one thread, one file after
 * another, reading the output in 1 MiB pieces and discarding it, and prints the bytes. Nothing is parsed.
 * bench/analyze times it beside `gzip -dc` and the CLI.
 *
 * <p>By default with java.util.zip (zlib through {@link GZIPInputStream}, 256 KiB input buffer). With
 * {@code -Dinflater=CLASS} (e.g. {@code com.intel.gkl.compression.IntelInflater}, ISA-L, on the class path) the
 * deflate stream of each single-member file goes through that {@link Inflater} subclass instead, made with
 * {@code new CLASS(true)} (raw deflate); the gzip header is skipped and the trailer not checked.
 * Usage: java [-Dinflater=CLASS] InflateOnly FILE...
 */
public final class InflateOnly {

    public static void main(String[] args) throws Exception {
        String inflater = System.getProperty("inflater");
        byte[] out = new byte[1 << 20];
        long total = 0;
        long t0 = System.nanoTime();
        for (String file : args) {
            try (InputStream in = open(Path.of(file), inflater)) {
                for (int n; (n = in.read(out, 0, out.length)) >= 0; ) {
                    total += n;
                }
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        System.out.printf("inflated %d bytes in %.3f s in the JVM (%.0f MiB/s) with %s%n", total, seconds,
                total / 1048576.0 / seconds, inflater == null ? "java.util.zip" : inflater);
    }

    private static InputStream open(Path file, String inflater) throws Exception {
        if (inflater == null) {
            return new GZIPInputStream(Files.newInputStream(file), 1 << 18);
        }
        DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 18));
        skipHeader(in);
        Class<?> type = Class.forName(inflater);
        try { // GKL's inflaters load their native library through NativeLibrary.load(File tmpDir)
            type.getMethod("load", java.io.File.class).invoke(type.getConstructor().newInstance(), (Object) null);
        } catch (NoSuchMethodException e) {
            // an inflater without a native library to load
        }
        Inflater raw = (Inflater) type.getConstructor(boolean.class).newInstance(true);
        return new RawStream(in, raw);
    }

    /**
     * Output of {@code inflater} over {@code in}: input is handed over only when the inflater produced nothing (GKL's
     * IntelInflater implements neither needsInput() nor inflating before the first setInput, which InflaterInputStream
     * relies on).
     */
    private static final class RawStream extends InputStream {
        private final InputStream in;
        private final Inflater inflater;
        private final byte[] input = new byte[1 << 18];
        private boolean starved = true;

        RawStream(InputStream in, Inflater inflater) {
            this.in = in;
            this.inflater = inflater;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            try {
                while (!inflater.finished()) {
                    if (starved) {
                        int got = in.read(input);
                        if (got < 0) {
                            return -1; // the file ended before the deflate end: left to the caller's byte count
                        }
                        inflater.setInput(input, 0, got);
                    }
                    int n = inflater.inflate(b, off, len);
                    if (n > 0) {
                        starved = false;
                        return n;
                    }
                    starved = true;
                }
                return -1;
            } catch (java.util.zip.DataFormatException e) {
                throw new IOException(e);
            }
        }

        @Override
        public int read() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() throws IOException {
            inflater.end();
            in.close();
        }
    }

    /** Skips a gzip member header (RFC 1952 §2.3). */
    private static void skipHeader(DataInputStream in) throws IOException {
        if (in.readUnsignedShort() != 0x1f8b || in.readUnsignedByte() != 8) {
            throw new IOException("not a gzip file");
        }
        int flags = in.readUnsignedByte();
        in.skipNBytes(6); // mtime, xfl, os
        if ((flags & 4) != 0) { // FEXTRA
            int length = in.readUnsignedByte() | in.readUnsignedByte() << 8;
            in.skipNBytes(length);
        }
        for (int bit : new int[] {8, 16}) { // FNAME, FCOMMENT: zero-terminated
            if ((flags & bit) != 0) {
                while (in.readUnsignedByte() != 0) {
                    // skip
                }
            }
        }
        if ((flags & 2) != 0) { // FHCRC
            in.skipNBytes(2);
        }
    }
}
