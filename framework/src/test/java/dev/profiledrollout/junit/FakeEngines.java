package dev.profiledrollout.junit;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.zip.GZIPOutputStream;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * Stand-ins for servers the simulator does not (yet) play in this branch: a vLLM server that writes vLLM-named
 * traces on {@code /stop_profile}, a router in front of several engines, and a worker that fails its start. They
 * answer the wire shapes of {@code docs/PROTOCOLS.md} §2 and §3; nothing else.
 */
final class FakeEngines {

    private FakeEngines() {
    }

    /** SSE completion: {@code n} one-token chunks, a usage chunk, {@code [DONE]} ({@code docs/PROTOCOLS.md} §2.5). */
    static MockResponse completion(int n) {
        StringBuilder sse = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sse.append("data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",")
                    .append("\"choices\":[{\"index\":0,\"text\":\"t").append(i)
                    .append("\",\"logprobs\":null,\"finish_reason\":").append(i == n - 1 ? "\"length\"" : "null")
                    .append("}],\"usage\":null}\n\n");
        }
        sse.append("data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[],")
                .append("\"usage\":{\"prompt_tokens\":16,\"completion_tokens\":").append(n)
                .append(",\"total_tokens\":").append(16 + n).append("}}\n\n");
        sse.append("data: [DONE]\n\n");
        return new MockResponse.Builder().code(200).setHeader("Content-Type", "text/event-stream")
                .body(sse.toString()).build();
    }

    static MockResponse status(int code, String body) {
        return new MockResponse.Builder().code(code).body(body).build();
    }

    static MockResponse models() {
        return status(200, "{\"object\":\"list\",\"data\":[{\"id\":\"m\",\"object\":\"model\",\"owned_by\":\"vllm\"}]}");
    }

    /**
     * A vLLM server. With {@code profilerDir} null it was started without {@code --profiler-config}: the profile
     * routes answer 404. Otherwise {@code /stop_profile} writes, into {@code profilerDir}, the files {@code names}
     * gives for the capture number (rank traces, the frontend trace and {@code profiler_out_*.txt}).
     */
    static MockWebServer vllm(Path profilerDir, IntFunction<List<String>> names) throws IOException {
        MockWebServer server = new MockWebServer();
        AtomicInteger captures = new AtomicInteger();
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                String path = request.getUrl().encodedPath();
                switch (path) {
                    case "/health":
                        return status(200, "");
                    case "/v1/models":
                        return models();
                    case "/v1/completions":
                        return completion(4);
                    case "/start_profile":
                        if (profilerDir == null) {
                            return status(404, "{\"detail\":\"Not Found\"}");
                        }
                        return request.getBody() == null || request.getBody().size() == 0 ? status(200, "")
                                : status(422, "body sent");
                    case "/stop_profile":
                        if (profilerDir == null) {
                            return status(404, "{\"detail\":\"Not Found\"}");
                        }
                        int capture = captures.getAndIncrement();
                        for (String name : names.apply(capture)) {
                            write(profilerDir.resolve(name), name);
                        }
                        return status(200, "");
                    default:
                        return status(404, "{\"detail\":\"Not Found\"}");
                }
            }
        });
        server.start();
        return server;
    }

    /** A small Kineto trace: two kernels on device 0, {@code distributedInfo.rank} from a {@code rank<N>} hint. */
    static void write(Path file, String name) {
        try {
            Files.createDirectories(file.getParent());
            if (name.endsWith(".txt")) {
                Files.writeString(file, "Name  Self CUDA total\nampere_gemm  100us\n");
                return;
            }
            boolean frontend = name.contains(".async_llm.");
            int rank = name.matches(".*rank-?(\\d+)\\..*") ? Integer.parseInt(name.replaceAll(".*rank-?(\\d+)\\..*", "$1"))
                    : name.startsWith("host3_") ? 3 : 0;
            String events = frontend
                    ? "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"serve\",\"pid\":1,\"tid\":1,\"ts\":1.0,\"dur\":5.0}"
                    : "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ampere_bf16_gemm\",\"pid\":0,\"tid\":7,\"ts\":1000.0,"
                            + "\"dur\":" + (50 + 10 * rank) + ".0},"
                            + "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"flash_fwd_kernel\",\"pid\":0,\"tid\":7,"
                            + "\"ts\":1100.0,\"dur\":30.0}";
            String json = "{\"schemaVersion\":1,\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":" + rank
                    + ",\"world_size\":4},\"traceEvents\":[" + events + "]}";
            try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
                out.write(json.getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A router: {@code GET /workers} answers {@code workersJson}; completions are forwarded round-robin to
     * {@code backends}; {@code /start_profile} answers 404 as both real routers do.
     */
    static MockWebServer router(String workersJson, List<URI> backends) throws IOException {
        MockWebServer server = new MockWebServer();
        OkHttpClient http = new OkHttpClient();
        AtomicInteger next = new AtomicInteger();
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
                String path = request.getUrl().encodedPath();
                if (path.equals("/health")) {
                    return status(200, "OK");
                }
                if (path.equals("/workers")) {
                    return status(200, workersJson);
                }
                if (path.equals("/v1/models") || path.equals("/v1/completions")) {
                    URI target = backends.get(Math.floorMod(next.getAndIncrement(), backends.size()));
                    Request.Builder forward = new Request.Builder().url(target.resolve(path).toString());
                    if (request.getMethod().equals("POST")) {
                        forward.post(RequestBody.create(request.getBody().toByteArray(),
                                MediaType.get("application/json")));
                    }
                    try (Response response = http.newCall(forward.build()).execute()) {
                        return new MockResponse.Builder().code(response.code())
                                .setHeader("Content-Type", response.header("Content-Type", "application/json"))
                                .body(response.body().string()).build();
                    } catch (IOException e) {
                        return status(502, e.toString());
                    }
                }
                return status(404, "");
            }
        });
        server.start();
        return server;
    }

    /** An SGLang-looking worker that is healthy but answers 500 to {@code /start_profile}. */
    static MockWebServer failingStart() throws IOException {
        MockWebServer server = new MockWebServer();
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                return switch (request.getUrl().encodedPath()) {
                    case "/health" -> status(200, "");
                    case "/start_profile" -> status(500, "Internal Server Error");
                    default -> status(404, "");
                };
            }
        });
        server.start();
        return server;
    }

    static String worker(URI url, String type, boolean healthy) {
        return "{\"id\":\"" + url.getPort() + "\",\"url\":\"" + url.toString().replaceAll("/$", "")
                + "\",\"model_id\":\"m\",\"worker_type\":\"" + type + "\",\"is_healthy\":" + healthy
                + ",\"load\":0,\"connection_mode\":\"HTTP\"}";
    }
}
