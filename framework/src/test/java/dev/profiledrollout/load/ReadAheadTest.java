package dev.profiledrollout.load;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class ReadAheadTest {

    /** What the handler after {@link ReadAhead} saw: each read's text, its stamp and when it arrived. */
    private static final class Downstream extends ChannelInboundHandlerAdapter {
        final List<String> events = new ArrayList<>();
        final List<Long> stamps = new ArrayList<>();
        final List<Long> handedDownAt = new ArrayList<>();
        private final ReadAhead head;

        Downstream(ReadAhead head) {
            this.head = head;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf bytes = (ByteBuf) msg;
            events.add(bytes.toString(StandardCharsets.US_ASCII));
            stamps.add(head.readNanos());
            handedDownAt.add(System.nanoTime());
            bytes.release();
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            events.add("complete");
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            events.add("inactive");
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            events.add("exception " + cause.getMessage());
        }
    }

    private EmbeddedChannel channel;
    private ReadAhead head;
    private Downstream downstream;

    @BeforeEach
    void setUp() {
        channel = new EmbeddedChannel();
        head = new ReadAhead(new ReadAhead.Inbox(channel.eventLoop(), ReadAhead.SLICE_MICROS * 1_000));
        downstream = new Downstream(head);
        channel.pipeline().addLast(head, downstream);
    }

    @AfterEach
    void tearDown() {
        channel.finishAndReleaseAll();
    }

    /**
     * A read as the socket delivers it, fired at the head. (Not followed by a read-complete: on an EmbeddedChannel
     * that asks for the next read, which runs the loop's tasks at once.)
     */
    private void read(String text) {
        channel.pipeline().fireChannelRead(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
    }

    @Test
    void readsGoDownOnTheLoopsNextTurnInOrderWithTheTimeTheyWereRead() throws InterruptedException {
        long before = System.nanoTime();
        read("a");
        long afterFirst = System.nanoTime();
        TimeUnit.MILLISECONDS.sleep(5);
        read("b");
        long afterSecond = System.nanoTime();

        assertThat(downstream.events).as("nothing is decoded in the I/O round").isEmpty();
        assertThat(head.lastReadNanos()).as("the newest read counts for the read timeout before it is handed down")
                .isBetween(afterFirst, afterSecond);
        channel.runScheduledPendingTasks();

        assertThat(downstream.events).containsExactly("a", "b", "complete");
        assertThat(downstream.stamps.get(0)).isBetween(before, afterFirst);
        assertThat(downstream.stamps.get(1)).isBetween(afterFirst, afterSecond);
        assertThat(downstream.handedDownAt.get(0) - downstream.stamps.get(0))
                .as("the stamp is the read, not the hand-down 5 ms later")
                .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(5));
    }

    @Test
    void aCloseOrAnErrorFirstHandsDownTheReadsBeforeIt() {
        read("last bytes");
        channel.pipeline().fireExceptionCaught(new IllegalStateException("reset"));
        assertThat(downstream.events).containsExactly("last bytes", "complete", "exception reset");

        read("after");
        channel.pipeline().fireChannelInactive();
        assertThat(downstream.events).endsWith("after", "complete", "inactive");

        channel.runScheduledPendingTasks();
        assertThat(downstream.events).as("nothing is handed down twice").hasSize(6);
    }

    @Test
    void aConnectionStopsReadingWhileTooManyReadsWaitAndResumesOnceTheyAreHandedDown() {
        for (int i = 1; i < ReadAhead.MAX_WAITING_READS; i++) {
            read("r" + i);
        }
        assertThat(channel.config().isAutoRead()).isTrue();
        read("r" + ReadAhead.MAX_WAITING_READS);
        assertThat(channel.config().isAutoRead()).isFalse();

        channel.runScheduledPendingTasks();
        assertThat(downstream.events).hasSize(ReadAhead.MAX_WAITING_READS + 1);
        assertThat(channel.config().isAutoRead()).isTrue();
    }

    @Test
    void readsStillWaitingWhenTheHandlerIsRemovedAreReleased() {
        ByteBuf bytes = Unpooled.copiedBuffer("never decoded", StandardCharsets.US_ASCII);
        channel.pipeline().fireChannelRead(bytes);
        channel.pipeline().remove(head);
        assertThat(bytes.refCnt()).isZero();
        channel.runScheduledPendingTasks();
        assertThat(downstream.events).isEmpty();
    }

    @Test
    void connectionsOfOneLoopShareItsSlicesAndASliceEndsAtItsBudget() {
        ReadAhead.Inbox inbox = new ReadAhead.Inbox(channel.eventLoop(), 0);
        List<String> order = new ArrayList<>();
        List<EmbeddedChannel> channels = new ArrayList<>();
        for (String name : List.of("x", "y", "z")) {
            EmbeddedChannel c = new EmbeddedChannel();
            channels.add(c);
            c.pipeline().addLast(new ReadAhead(inbox), new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    order.add(name + ":" + ((ByteBuf) msg).toString(StandardCharsets.US_ASCII));
                    ((ByteBuf) msg).release();
                }
            });
        }
        for (int round = 1; round <= 2; round++) {
            for (int i = 2; i >= 0; i--) {
                channels.get(i).pipeline().fireChannelRead(Unpooled.copiedBuffer("" + round, StandardCharsets.US_ASCII));
            }
        }
        assertThat(order).isEmpty();
        // the inbox's slices run on the first channel's loop; with a budget of 0 each slice serves one connection and
        // schedules the next slice for the loop's next turn
        channel.runScheduledPendingTasks();
        assertThat(order).containsExactly("z:1", "z:2");
        channel.runScheduledPendingTasks();
        channel.runScheduledPendingTasks();
        assertThat(order).as("connections in the order they first had bytes waiting, each one's reads together")
                .containsExactly("z:1", "z:2", "y:1", "y:2", "x:1", "x:2");
        channel.runScheduledPendingTasks();
        assertThat(order).hasSize(6);
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }
}
