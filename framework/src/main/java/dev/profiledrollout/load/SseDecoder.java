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
 * left undispatched when the stream ends is dropped, as the specification says. One decoder per response; not
 * thread-safe.
 */
final class SseDecoder {

    /** Receives each dispatched event's data. */
    interface Listener {
        /** @return false to stop decoding (the rest of the current input is ignored) */
        boolean onData(String data);
    }

    private static final byte[] DATA = "data".getBytes(StandardCharsets.US_ASCII);

    private byte[] line = new byte[256];
    private int lineLength;
    private byte[] data = new byte[256];
    private int dataLength;
    private boolean hasData;
    private boolean afterCr;
    private boolean started;
    private boolean stopped;

    /**
     * Decodes every readable byte of {@code content} (its reader index is not moved).
     *
     * @return false once the listener asked to stop
     */
    boolean feed(ByteBuf content, Listener listener) {
        int from = content.readerIndex();
        int end = content.writerIndex();
        for (int i = from; i < end && !stopped; i++) {
            byte b = content.getByte(i);
            if (afterCr) {
                afterCr = false;
                if (b == '\n') {
                    continue;
                }
            }
            if (b == '\n' || b == '\r') {
                afterCr = b == '\r';
                endOfLine(listener);
            } else {
                appendToLine(b);
            }
        }
        return !stopped;
    }

    private void appendToLine(byte b) {
        if (lineLength == line.length) {
            line = Arrays.copyOf(line, lineLength * 2);
        }
        line[lineLength++] = b;
    }

    private void endOfLine(Listener listener) {
        int start = 0;
        if (!started) {
            started = true;
            if (lineLength >= 3 && (line[0] & 0xff) == 0xEF && (line[1] & 0xff) == 0xBB && (line[2] & 0xff) == 0xBF) {
                start = 3;
            }
        }
        int length = lineLength - start;
        lineLength = 0;
        if (length == 0) {
            if (hasData) {
                String value = new String(data, 0, dataLength, StandardCharsets.UTF_8);
                dataLength = 0;
                hasData = false;
                if (!listener.onData(value)) {
                    stopped = true;
                }
            }
            return;
        }
        if (line[start] == ':' || !isDataField(start, length)) {
            return;
        }
        int valueStart = start + DATA.length;
        if (valueStart < start + length) {
            valueStart++; // the colon
            if (valueStart < start + length && line[valueStart] == ' ') {
                valueStart++;
            }
        }
        if (hasData) {
            appendToData((byte) '\n');
        }
        hasData = true;
        for (int i = valueStart; i < start + length; i++) {
            appendToData(line[i]);
        }
    }

    /** The field name is exactly {@code data}: the line is {@code data} or starts with {@code data:}. */
    private boolean isDataField(int start, int length) {
        if (length < DATA.length) {
            return false;
        }
        for (int i = 0; i < DATA.length; i++) {
            if (line[start + i] != DATA[i]) {
                return false;
            }
        }
        return length == DATA.length || line[start + DATA.length] == ':';
    }

    private void appendToData(byte b) {
        if (dataLength == data.length) {
            data = Arrays.copyOf(data, dataLength * 2);
        }
        data[dataLength++] = b;
    }
}
