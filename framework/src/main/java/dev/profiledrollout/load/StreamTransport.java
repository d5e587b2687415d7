package dev.profiledrollout.load;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocalThread;

import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.X509TrustManager;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The load generator's HTTP/1.1 client: every connection of a {@link LoadGenerator} is served by one event loop
 * group of {@code loopThreads} threads (Netty, NIO), so a 256-way load costs one or two threads, not 256, and a
 * response's bytes are timed as soon as the loop reads them instead of when a scheduler gets round to one of hundreds
 * of blocked threads. A connection's pipeline is {@link ReadAhead} (stamps each read, defers its decoding to the
 * loop's next turn), TLS for https, the HTTP codec, then {@link StreamConnection}. Connections are kept alive and
 * reused; {@code https} URLs use the JDK's TLS with the {@link LoadTarget}'s trust manager and host-name check. Loop
 * threads are named {@code profiledrollout-load-N}; {@link #close()} stops and joins them.
 */
final class StreamTransport implements AutoCloseable {

    /** Connect timeout, OkHttp's default. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

    private final URI url;
    private final String host;
    private final int port;
    private final String hostHeader;
    private final String path;
    private final CompletionCall body;
    private final List<Map.Entry<String, String>> extraHeaders;
    private final boolean ownUserAgent;
    private final long readTimeoutNanos;
    private final EventLoopGroup group;
    private final List<Thread> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Bootstrap bootstrap;
    /** Each event loop's connections with reads waiting to be decoded. */
    private final Map<EventExecutor, ReadAhead.Inbox> inboxes;

    /**
     * @param url          the full request URL ({@code baseUri + endpoint.path()}), http or https
     * @param extraHeaders sent with every request (e.g. {@code Authorization}), after the transport's own; a
     *                     {@code User-Agent} among them replaces the transport's
     * @param loopThreads  event loop threads, ≥ 1
     * @param trust        the trust manager for https, null for the JDK's default
     * @param verifyHost   whether an https server's certificate must name the URL's host
     */
    StreamTransport(URI url, CompletionCall body, List<Map.Entry<String, String>> extraHeaders, Duration readTimeout,
                    int loopThreads, AtomicInteger threadNumbers, X509TrustManager trust, boolean verifyHost) {
        this.url = url;
        this.body = body;
        this.extraHeaders = List.copyOf(extraHeaders);
        this.ownUserAgent = extraHeaders.stream().anyMatch(h -> h.getKey().equalsIgnoreCase("user-agent"));
        this.readTimeoutNanos = readTimeout.toNanos();
        boolean tls = "https".equalsIgnoreCase(url.getScheme());
        if (!tls && !"http".equalsIgnoreCase(url.getScheme())) {
            throw new IllegalArgumentException("load URL " + url + " is neither http nor https");
        }
        if (url.getHost() == null) {
            throw new IllegalArgumentException("load URL " + url + " has no host");
        }
        String literal = url.getHost(); // an IPv6 literal keeps its brackets here, as the Host header wants
        this.host = literal.startsWith("[") ? literal.substring(1, literal.length() - 1) : literal;
        int defaultPort = tls ? 443 : 80;
        this.port = url.getPort() < 0 ? defaultPort : url.getPort();
        this.hostHeader = url.getPort() < 0 ? literal : literal + ":" + port;
        String p = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        this.path = url.getRawQuery() == null ? p : p + "?" + url.getRawQuery();
        SslContext ssl = tls ? sslContext(trust, verifyHost) : null;
        this.group = new MultiThreadIoEventLoopGroup(loopThreads, (Runnable r) -> {
            Thread t = new FastThreadLocalThread(r, "profiledrollout-load-" + threadNumbers.incrementAndGet());
            t.setDaemon(false);
            threads.add(t);
            return t;
        }, NioIoHandler.newFactory());
        Map<EventExecutor, ReadAhead.Inbox> perLoop = new IdentityHashMap<>();
        for (EventExecutor loop : group) {
            perLoop.put(loop, new ReadAhead.Inbox((EventLoop) loop, ReadAhead.SLICE_MICROS * 1_000));
        }
        this.inboxes = perLoop;
        this.bootstrap = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) CONNECT_TIMEOUT.toMillis())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (ssl != null) {
                            SslHandler handler = ssl.newHandler(ch.alloc(), host, port);
                            SSLParameters parameters = handler.engine().getSSLParameters();
                            parameters.setEndpointIdentificationAlgorithm(verifyHost ? "HTTPS" : null);
                            handler.engine().setSSLParameters(parameters);
                            ch.pipeline().addLast(handler);
                        }
                        // initial line, header block and content slices of up to 64 KiB: one slice per read
                        ch.pipeline().addLast(new HttpClientCodec(4096, 65536, 65536));
                        ReadAhead head = new ReadAhead(inboxes.get(ch.eventLoop()));
                        ch.pipeline().addFirst(head);
                        ch.pipeline().addLast(new StreamConnection(StreamTransport.this, ch, head));
                    }
                });
    }

    private static SslContext sslContext(X509TrustManager trust, boolean verifyHost) {
        try {
            SslContextBuilder builder = SslContextBuilder.forClient().endpointIdentificationAlgorithm(
                    verifyHost ? "HTTPS" : null);
            return (trust == null ? builder : builder.trustManager(trust)).build();
        } catch (SSLException e) {
            throw new IllegalStateException("cannot set up TLS for the load generator: " + e.getMessage(), e);
        }
    }

    /** Opens a connection; its {@link StreamConnection} is the last handler of the channel's pipeline. */
    ChannelFuture connect() {
        return bootstrap.connect(host, port);
    }

    static StreamConnection connectionOf(Channel channel) {
        return channel.pipeline().get(StreamConnection.class);
    }

    /** The POST of one request: JSON body, SSE accepted, keep-alive (HTTP/1.1's default). */
    FullHttpRequest request(CompletionRequest request) {
        ByteBuf content = Unpooled.wrappedBuffer(body.body(request).getBytes(StandardCharsets.UTF_8));
        FullHttpRequest http = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, path, content);
        HttpHeaders headers = http.headers();
        headers.set(HttpHeaderNames.HOST, hostHeader);
        headers.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        headers.set(HttpHeaderNames.ACCEPT, HttpHeaderValues.TEXT_EVENT_STREAM);
        headers.set(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
        if (!ownUserAgent) {
            headers.set(HttpHeaderNames.USER_AGENT, "profiled-rollout");
        }
        for (Map.Entry<String, String> header : extraHeaders) {
            headers.add(header.getKey(), header.getValue());
        }
        return http;
    }

    boolean cumulativeStream() {
        return body.endpoint() == Endpoint.GENERATE;
    }

    long readTimeoutNanos() {
        return readTimeoutNanos;
    }

    /** For error messages: {@code POST http://host:port/path}. */
    String target() {
        return "POST " + url;
    }

    /** @return false after {@link #close()} began: no new connection may be opened */
    boolean isOpen() {
        return !group.isShuttingDown();
    }

    /**
     * Stops the event loops (closing every connection) and joins their threads: the loops' termination is signalled
     * just before their threads end. Idempotent.
     */
    @Override
    public void close() {
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
        boolean interrupted = false;
        for (Thread thread : threads) {
            while (thread.isAlive()) {
                try {
                    thread.join(5_000);
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
