package dev.profiledrollout.junit;

import static dev.profiledrollout.engine.MockResponses.status;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
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

/**
 * A stand-in vLLM server whose {@code /stop_profile} writes exactly the files a test names, e.g. rank traces of
 * several naming eras side by side, which no one vLLM server (nor the simulator's vLLM mode) writes. It answers the
 * wire shapes of {@code docs/PROTOCOLS.md} §2; nothing else.
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

    static MockResponse models() {
        return status(200, "{\"object\":\"list\",\"data\":[{\"id\":\"m\",\"object\":\"model\",\"owned_by\":\"vllm\"}]}");
    }

    /**
     * A vLLM server. With {@code profilerDir} null it was started without {@code --profiler-config}: the profile
     * routes answer 404. Otherwise {@code /stop_profile} writes, into {@code profilerDir}, the files {@code names}
     * gives for the capture number (rank traces, the frontend trace and {@code profiler_out_*.txt}).
     */
    static MockWebServer vllm(Path profilerDir, IntFunction<List<String>> names) throws IOException {
        return vllm(profilerDir, names, null);
    }

    /** As {@link #vllm(Path, IntFunction)}, answering {@code GET /version} with {@code version} (null: 404). */
    static MockWebServer vllm(Path profilerDir, IntFunction<List<String>> names, String version) throws IOException {
        MockWebServer server = new MockWebServer();
        AtomicInteger captures = new AtomicInteger();
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                String path = request.getUrl().encodedPath();
                switch (path) {
                    case "/health":
                        return status(200, "");
                    case "/version":
                        return version == null ? status(404, "{\"detail\":\"Not Found\"}")
                                : status(200, "{\"version\":\"" + version + "\"}");
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
}
