package dev.profiledrollout.load;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * The head of every load connection's pipeline: stamps each read the moment it comes off the socket and hands it
 * down the pipeline (TLS, HTTP, SSE decoding, recording) a little later, so that the time a response's bytes spend
 * waiting for the client is not spent behind the decoding of other responses.
 *
 * <p>Why: in a saturated loop the event loop thread always has a backlog. Decoding a response where it is read
 * makes the last connection of an I/O round wait for the decoding of all the others before its bytes are even
 * read, and that wait lands in its TTFT. Here an I/O round only reads and stamps (a {@code read(2)} and a
 * {@link System#nanoTime()} per connection); the decoding runs in slices of about {@value #SLICE_MICROS} µs, one per
 * turn of the event loop ({@link Inbox}), between which the loop reads and stamps again. The backlog then waits
 * after the stamp, and what waits before it is at most one slice and one round of reads.
 *
 * <p>Order is kept: a connection's reads go down in the order they were read, and a close or an exception first
 * hands down every read before it. {@link #readNanos()} is the stamp of the read being handed down, for the
 * handlers after this one.
 */
final class ReadAhead extends ChannelInboundHandlerAdapter {

    static final long SLICE_MICROS = 100;
    /**
     * A connection with this many reads waiting stops reading until they are handed down, so that a client that
     * cannot keep up holds a bounded amount in memory and TCP flow control slows the server, as it would without
     * this handler.
     */
    static final int MAX_WAITING_READS = 16;

    /** A read, with when it came off the socket. */
    private record Read(Object message, long nanos) {
    }

    /**
     * The connections of one event loop that have reads waiting, served in slices. A slice is a scheduled task with
     * no delay: Netty runs the scheduled tasks that are due once per turn of the loop, after the I/O round, and does
     * not block in {@code select} while one is due, so one slice runs per turn and the next round of reads follows
     * it.
     */
    static final class Inbox implements Runnable {
        private final EventLoop loop;
        private final long sliceNanos;
        private final ArrayDeque<ReadAhead> waiting = new ArrayDeque<>();
        private boolean scheduled;

        /** @param sliceNanos a slice hands down connections until this much time went by (at least one) */
        Inbox(EventLoop loop, long sliceNanos) {
            this.loop = loop;
            this.sliceNanos = sliceNanos;
        }

        private void add(ReadAhead connection) {
            waiting.add(connection);
            if (!scheduled) {
                scheduled = true;
                loop.schedule(this, 0, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public void run() {
            scheduled = false;
            long end = System.nanoTime() + sliceNanos;
            ReadAhead connection;
            while ((connection = waiting.poll()) != null) {
                connection.handDown();
                if (System.nanoTime() - end >= 0) {
                    break;
                }
            }
            if (!waiting.isEmpty()) {
                scheduled = true;
                loop.schedule(this, 0, TimeUnit.NANOSECONDS);
            }
        }
    }

    private final Inbox inbox;
    private final ArrayDeque<Read> reads = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private boolean inInbox;
    private long readNanos;
    private long lastReadNanos = System.nanoTime();

    ReadAhead(Inbox inbox) {
        this.inbox = inbox;
    }

    /** @return when the read now being handed down came off the socket, a {@link System#nanoTime()} reading */
    long readNanos() {
        return readNanos;
    }

    /**
     * @return when the newest read came off the socket, handed down or still waiting (its creation before the first): a read
     *         timeout must not fire on a connection whose bytes arrived but wait behind others
     */
    long lastReadNanos() {
        return lastReadNanos;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        long now = System.nanoTime();
        lastReadNanos = now;
        reads.add(new Read(msg, now));
        if (reads.size() >= MAX_WAITING_READS) {
            ctx.channel().config().setAutoRead(false);
        }
        if (!inInbox) {
            inInbox = true;
            inbox.add(this);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        // fired after the reads are handed down
    }

    /** Hands every waiting read down the pipeline, in order, then the read-complete event. */
    private void handDown() {
        inInbox = false;
        if (reads.isEmpty()) {
            return;
        }
        Read read;
        while ((read = reads.poll()) != null) {
            readNanos = read.nanos();
            ctx.fireChannelRead(read.message());
        }
        ctx.fireChannelReadComplete();
        if (!ctx.channel().config().isAutoRead()) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        handDown();
        ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        handDown();
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        handDown();
        ctx.fireExceptionCaught(cause);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        Read read;
        while ((read = reads.poll()) != null) {
            ReferenceCountUtil.release(read.message());
        }
    }
}
