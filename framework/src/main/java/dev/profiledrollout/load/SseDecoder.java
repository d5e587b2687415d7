package dev.profiledrollout.load;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Incremental decoder of a {@code text/event-stream} body (WHATWG HTML, "Server-sent events", §9.2.6 "Interpreting
 * an event stream"), fed the body's bytes as they arrive in any split. Lines end with LF, CRLF or a lone CR; a line
 * starting with {@code :} is a comment; {@code data} lines of an event are joined with LF; a blank line dispatches
 * the event when it has data. Only the {@code data} field matters to the load generator: {@code event}, {@code id}
 * and {@code retry} are read and ignored. A UTF-8 byte order mark at the start of the stream is skipped. An event
 * left undispatched when the stream ends is dropped, as the specification says. One decoder per connection, {@link #reset()} between
 * responses; not thread-safe.
 */
final class SseDecoder {

    /** Receives each dispatched event's data. */
    interface Listener {
        /**
         * @param bytes  the data (lines joined by LF), UTF-8, valid only during the call
         * @param offset where it starts in {@code bytes}
         * @param length its length in bytes
         * @return false to stop decoding (the rest of the current input is ignored)
         */
        boolean onData(byte[] bytes, int offset, int length);
    }

    private static final byte[] DATA = "data".getBytes(StandardCharsets.US_ASCII);

    /** The bytes of one {@link #feed} call when the buffer has no accessible array. */
    private byte[] scratch = new byte[0];
    /** A line cut by the end of the previous input. */
    private byte[] line = new byte[256];
    private int lineLength;
    private byte[] data = new byte[256];
    private int dataLength;
    private boolean hasData;
    private boolean afterCr;
    private boolean started;
    private boolean stopped;

    /** Forgets the previous stream's state, keeping the buffers: the decoder of a keep-alive connection's next response. */
    void reset() {
        lineLength = 0;
        dataLength = 0;
        hasData = false;
        afterCr = false;
        started = false;
        stopped = false;
    }

    /**
     * Decodes every readable byte of {@code content} (its reader index is not moved).
     *
     * @return false once the listener asked to stop
     */
    boolean feed(ByteBuf content, Listener listener) {
        int length = content.readableBytes();
        byte[] bytes;
        int from;
        if (content.hasArray()) {
            bytes = content.array();
            from = content.arrayOffset() + content.readerIndex();
        } else {
            if (scratch.length < length) {
                scratch = new byte[Math.max(length, 2 * scratch.length)];
            }
            content.getBytes(content.readerIndex(), scratch, 0, length);
            bytes = scratch;
            from = 0;
        }
        return feed(bytes, from, from + length, listener);
    }

    private boolean feed(byte[] bytes, int from, int end, Listener listener) {
        int i = from;
        if (afterCr && i < end) {
            afterCr = false;
            if (bytes[i] == '\n') {
                i++;
            }
        }
        while (i < end && !stopped) {
            int lineEnd = Bytes.lineEnd(bytes, i, end);
            if (lineEnd == end) { // the line goes on in the next input
                append(bytes, i, lineEnd - i);
                return true;
            }
            if (lineLength > 0) {
                append(bytes, i, lineEnd - i);
                line(line, 0, lineLength, listener);
                lineLength = 0;
            } else {
                line(bytes, i, lineEnd - i, listener);
            }
            i = lineEnd + 1;
            if (bytes[lineEnd] == '\r') {
                if (i < end) {
                    if (bytes[i] == '\n') {
                        i++;
                    }
                } else {
                    afterCr = true;
                }
            }
        }
        return !stopped;
    }

    private void append(byte[] bytes, int from, int length) {
        if (lineLength + length > line.length) {
            line = Arrays.copyOf(line, Math.max(lineLength + length, 2 * line.length));
        }
        System.arraycopy(bytes, from, line, lineLength, length);
        lineLength += length;
    }

    private void line(byte[] bytes, int start, int length, Listener listener) {
        if (!started) {
            started = true;
            if (length >= 3 && (bytes[start] & 0xff) == 0xEF && (bytes[start + 1] & 0xff) == 0xBB
                    && (bytes[start + 2] & 0xff) == 0xBF) {
                start += 3;
                length -= 3;
            }
        }
        if (length == 0) {
            if (hasData) {
                hasData = false;
                int n = dataLength;
                dataLength = 0;
                if (!listener.onData(data, 0, n)) {
                    stopped = true;
                }
            }
            return;
        }
        if (bytes[start] == ':' || !isDataField(bytes, start, length)) {
            return;
        }
        int valueStart = start + DATA.length;
        int end = start + length;
        if (valueStart < end) {
            valueStart++; // the colon
            if (valueStart < end && bytes[valueStart] == ' ') {
                valueStart++;
            }
        }
        int needed = dataLength + (hasData ? 1 : 0) + (end - valueStart);
        if (needed > data.length) {
            data = Arrays.copyOf(data, Math.max(needed, 2 * data.length));
        }
        if (hasData) {
            data[dataLength++] = '\n';
        }
        hasData = true;
        System.arraycopy(bytes, valueStart, data, dataLength, end - valueStart);
        dataLength += end - valueStart;
    }

    /** The field name is exactly {@code data}: the line is {@code data} or starts with {@code data:}. */
    private static boolean isDataField(byte[] bytes, int start, int length) {
        if (length < DATA.length) {
            return false;
        }
        for (int i = 0; i < DATA.length; i++) {
            if (bytes[start + i] != DATA[i]) {
                return false;
            }
        }
        return length == DATA.length || bytes[start + DATA.length] == ':';
    }
}
