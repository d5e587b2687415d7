package dev.profiledrollout.load;

import dev.profiledrollout.ProfiledRolloutKeys;
import dev.profiledrollout.metrics.ErrorKind;
import dev.profiledrollout.metrics.RequestRecord;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One keep-alive connection of the load generator and the request on it, if any. Everything runs on the channel's
 * event loop: {@link #send} must be called there. Bytes are timed when the loop reads them off the socket
 * ({@link ReadAhead#readNanos()}, one {@link System#nanoTime()} per read, taken before any decoding), SSE events are
 * decoded from the bytes and handed to a
 * {@link StreamRecorder}; the request ends at the end of the response, at the first fatal event, at a read timeout,
 * on a broken connection or on {@link #cancel()}, and exactly once.
 */
final class StreamConnection extends ChannelInboundHandlerAdapter {

    /** Told once per request, on the event loop, when it ended. */
    interface Ended {
        /**
         * @param reusable the connection is idle and open, ready for the next request
         */
        void ended(StreamConnection connection, RequestRecord record, boolean reusable);

        /**
         * The request went out on a reused keep-alive connection that the server had already closed (nothing of a
         * response arrived): it is not recorded and should be sent again on a new connection, as OkHttp and
         * aiohttp do. The connection is closed.
         */
        void stale(StreamConnection connection);
    }

    private static final int SNIPPET_BYTES = StreamRecorder.SNIPPET_CHARS * 4;

    private final StreamTransport transport;
    private final Channel channel;
    private final ReadAhead head;

    private StreamRecorder recorder;
    private Ended ended;
    private final SseDecoder sse = new SseDecoder();
    private int status;
    private boolean keepAlive;
    private boolean cancelled;
    /** The current request went out on a connection that had served one before. */
    private boolean reused;
    private boolean served;
    private byte[] errorBody;
    private int errorBodyLength;
    private long lastReadNanos;
    private ScheduledFuture<?> readTimeout;
    private final SseDecoder.Listener events = (bytes, offset, length) ->
            recorder.onData(lastReadNanos, bytes, offset, length);

    StreamConnection(StreamTransport transport, Channel channel, ReadAhead head) {
        this.transport = transport;
        this.channel = channel;
        this.head = head;
    }

    Channel channel() {
        return channel;
    }

    /** @return open and without a request: ready for {@link #send} */
    boolean isIdle() {
        return recorder == null && channel.isActive();
    }

    /**
     * Sends {@code request} on this idle connection. On the event loop only.
     *
     * @param startNanos    when the request began (before any connect), the origin of its TTFT and E2E
     * @param intendedNanos its open-loop intended send time, 0 in a closed loop
     */
    void send(CompletionRequest request, long startNanos, long intendedNanos, Ended whenEnded) {
        recorder = new StreamRecorder(request, transport.cumulativeStream());
        recorder.started(startNanos, intendedNanos);
        ended = whenEnded;
        sse.reset();
        status = 0;
        keepAlive = true;
        cancelled = false;
        reused = served;
        served = true;
        errorBodyLength = 0;
        lastReadNanos = System.nanoTime();
        scheduleReadTimeout(transport.readTimeoutNanos());
        channel.writeAndFlush(transport.request(request)).addListener(f -> {
            if (!f.isSuccess() && recorder != null && !staleEnd()) {
                recorder.failure(System.nanoTime(), false, f.cause());
                end(System.nanoTime(), false);
            }
        });
    }

    /** Ends the request in flight, if any, as {@code CANCELLED} and closes the connection. On the event loop. */
    void cancel() {
        if (recorder != null) {
            cancelled = true;
            end(System.nanoTime(), false);
        }
        channel.close();
    }

    private void scheduleReadTimeout(long delayNanos) {
        readTimeout = channel.eventLoop().schedule(this::checkReadTimeout, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void checkReadTimeout() {
        if (recorder == null) {
            return;
        }
        long now = System.nanoTime();
        // bytes that arrived but wait behind other connections' decoding count as read
        long newest = head.lastReadNanos() - lastReadNanos > 0 ? head.lastReadNanos() : lastReadNanos;
        long silent = now - newest;
        if (silent < transport.readTimeoutNanos()) {
            scheduleReadTimeout(transport.readTimeoutNanos() - silent);
            return;
        }
        recorder.fail(now, ErrorKind.TIMEOUT, "timed out after " + recorder.chunkCount() + " chunks: nothing read for "
                + TimeUnit.NANOSECONDS.toMillis(silent) + " ms (read timeout " + TimeUnit.NANOSECONDS.toMillis(
                transport.readTimeoutNanos()) + " ms; " + ProfiledRolloutKeys.READ_TIMEOUT
                + " in the JUnit extension)");
        end(now, false);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (recorder != null) {
                read(msg);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void read(Object msg) {
        long now = head.readNanos();
        lastReadNanos = now;
        if (msg instanceof HttpResponse response) {
            status = response.status().code();
            keepAlive = HttpUtil.isKeepAlive(response);
            String type = response.headers().get(HttpHeaderNames.CONTENT_TYPE);
            if (status == 200 && type != null && !type.toLowerCase(Locale.ROOT).startsWith("text/event-stream")) {
                recorder.fail(now, ErrorKind.MALFORMED_STREAM, "not a server-sent-event stream: Content-Type " + type
                        + " from " + transport.target());
                end(now, false);
                return;
            }
        }
        if (msg instanceof HttpContent content) {
            ByteBuf bytes = content.content();
            if (status == 200) {
                if (!sse.feed(bytes, events)) {
                    end(now, false); // a fatal event: the rest of the stream is not read
                    return;
                }
            } else {
                keepSnippet(bytes);
            }
            if (msg instanceof LastHttpContent last) {
                if (last.decoderResult().isFailure()) {
                    recorder.failure(now, false, last.decoderResult().cause());
                    end(now, false);
                    return;
                }
                if (status != 200) {
                    String text = new String(errorBody, 0, errorBodyLength, StandardCharsets.UTF_8).strip();
                    recorder.fail(now, ErrorKind.HTTP_STATUS, "HTTP " + status + " from " + transport.target() + ": "
                            + StreamRecorder.shorten(text));
                }
                end(now, keepAlive);
            }
        }
    }

    private void keepSnippet(ByteBuf bytes) {
        if (errorBody == null) {
            errorBody = new byte[SNIPPET_BYTES];
        }
        int n = Math.min(bytes.readableBytes(), SNIPPET_BYTES - errorBodyLength);
        bytes.getBytes(bytes.readerIndex(), errorBody, errorBodyLength, n);
        errorBodyLength += n;
    }

    /**
     * A reused connection that fails before any response byte was closed by the server while idle: hands the request
     * back for a new connection instead of recording a failure.
     *
     * @return true when the request was handed back
     */
    private boolean staleEnd() {
        if (!reused || status != 0 || cancelled || recorder.chunkCount() > 0) {
            return false;
        }
        Ended callback = detach();
        channel.close();
        callback.stale(this);
        return true;
    }

    /** Forgets the current request and its read timeout; returns whom to tell how it ended. */
    private Ended detach() {
        Ended callback = ended;
        recorder = null;
        ended = null;
        if (readTimeout != null) {
            readTimeout.cancel(false);
            readTimeout = null;
        }
        return callback;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (recorder != null && !staleEnd()) {
            long now = System.nanoTime();
            recorder.fail(now, ErrorKind.CONNECTION, "connection closed by the server after " + recorder.chunkCount()
                    + " chunks, before the response ended");
            end(now, false);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (recorder != null && !staleEnd()) {
            long now = System.nanoTime();
            recorder.failure(now, false, cause);
            end(now, false);
        }
        ctx.close();
    }

    /** Ends the request exactly once; a connection that cannot be reused is closed. */
    private void end(long now, boolean reusable) {
        StreamRecorder r = recorder;
        Ended callback = detach();
        boolean reuse = reusable && channel.isActive();
        if (!reuse) {
            channel.close();
        }
        callback.ended(this, r.toRecord(now, cancelled), reuse);
    }
}
