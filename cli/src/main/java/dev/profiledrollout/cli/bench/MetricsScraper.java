package dev.profiledrollout.cli.bench;

import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Scrapes a server's Prometheus {@code GET /metrics} on one background thread during a run and keeps the
 * {@code sglang:} and {@code vllm:} samples ({@code docs/PROTOCOLS.md} §1.6, §2.5) as a time series beside the client's
 * view. A server without {@code /metrics} (404: SGLang without {@code --enable-metrics}, the simulator) or unreachable
 * ends scraping quietly with a {@link #note()}. The thread ({@code profiledrollout-load-metrics}) is joined by
 * {@link #close()}. Thread-safe.
 */
final class MetricsScraper implements AutoCloseable {

    /**
     * One sample at one scrape.
     *
     * @param elapsedNanos time since the scraper started
     * @param sample       the sample
     */
    public record Point(long elapsedNanos, PrometheusText.Sample sample) {
    }

    private final OkHttpClient http;
    private final String url;
    private final long intervalNanos;
    private final List<Point> points = new ArrayList<>();
    private final CountDownLatch stop = new CountDownLatch(1);
    private final Thread thread;
    private final long startNanos = System.nanoTime();
    private volatile String note = "";

    /**
     * Starts scraping at once, then every {@code interval}.
     *
     * @param http     the client (its auth header is kept; {@code /metrics} is open on both engines), not null
     * @param baseUri  the server root, not null
     * @param interval time between scrapes, positive
     */
    public MetricsScraper(OkHttpClient http, URI baseUri, Duration interval) {
        this.http = http.newBuilder().readTimeout(Duration.ofSeconds(5)).build();
        String base = Objects.requireNonNull(baseUri, "baseUri").toString().replaceAll("/+$", "");
        this.url = base + "/metrics";
        this.intervalNanos = interval.toNanos();
        this.thread = new Thread(this::loop, "profiledrollout-load-metrics");
        thread.setDaemon(false);
        thread.start();
    }

    private void loop() {
        try {
            do {
                if (!scrapeOnce()) {
                    return;
                }
            } while (!stop.await(intervalNanos, TimeUnit.NANOSECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean scrapeOnce() {
        long at = System.nanoTime() - startNanos;
        try (Response response = http.newCall(new Request.Builder().url(url).get().build()).execute()) {
            if (response.code() != 200) {
                note = "GET " + url + " answered " + response.code() + (response.code() == 404
                        ? ": no /metrics (start SGLang with --enable-metrics; the simulator serves none)" : "");
                return false;
            }
            PrometheusText.Exposition exposition = PrometheusText.parse(response.body().string());
            synchronized (points) {
                for (PrometheusText.Sample s : exposition.samples()) {
                    if (s.name().startsWith("sglang:") || s.name().startsWith("vllm:")) {
                        points.add(new Point(at, s));
                    }
                }
            }
            return true;
        } catch (IOException e) {
            note = "GET " + url + " failed: " + e;
            return false;
        }
    }

    /** @return every kept sample so far, in scrape order (a copy) */
    public List<Point> points() {
        synchronized (points) {
            return List.copyOf(points);
        }
    }

    /** @return why scraping stopped early (404, connection failure), or empty */
    public String note() {
        return note;
    }

    /** Stops scraping and joins the thread. Idempotent. */
    @Override
    public void close() {
        stop.countDown();
        boolean interrupted = false;
        try {
            thread.join(30_000); // a scrape is bounded by its 5 s read timeout
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (thread.isAlive()) {
            System.getLogger(MetricsScraper.class.getName()).log(System.Logger.Level.WARNING,
                    "metrics scraper thread still alive 30 s after close; leaving it (daemon)");
        }
        http.connectionPool().evictAll();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
