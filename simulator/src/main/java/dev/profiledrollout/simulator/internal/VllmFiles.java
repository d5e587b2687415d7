package dev.profiledrollout.simulator.internal;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.profiledrollout.simulator.KernelCost;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

/**
 * The files a vLLM torch-profiler capture leaves besides the worker traces ({@code docs/PROTOCOLS.md} §2.3–2.4): the
 * CPU-only frontend trace {@code <host>_<pid>.async_llm.<ns>.pt.trace.json[.gz]} and the
 * {@code key_averages().table(sort_by="self_cuda_time_total")} text {@code profiler_out_{rank}.txt}.
 */
final class VllmFiles {

    private static final int NAME_WIDTH = 55;
    private static final String[] COLUMNS = {"Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
        "Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg", "# of Calls"};

    private VllmFiles() {
    }

    /**
     * Writes the frontend (API server) trace: Kineto layout, CPU events only, one output-processing event per
     * engine step of the window.
     */
    static void writeFrontend(Path file, boolean gzip, long pid, long baseEpochNs, long endEpochNs,
                              List<StepRecord> steps) throws IOException {
        Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
        OutputStream raw = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16);
        try (OutputStream out = gzip ? new GZIPOutputStream(raw, 1 << 16) : raw;
             JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeNumberField("schemaVersion", 1);
            g.writeArrayFieldStart("deviceProperties");
            g.writeEndArray();
            g.writeStringField("engine", "simulator");
            g.writeStringField("displayTimeUnit", "ms");
            g.writeNumberField("baseTimeNanoseconds", baseEpochNs);
            g.writeArrayFieldStart("traceEvents");
            event(g, "M", null, "process_name", pid, 0, 0).writeObjectFieldStart("args");
            g.writeStringField("name", "python3");
            g.writeEndObject();
            g.writeEndObject();
            event(g, "X", "user_annotation", "AsyncLLM.profile_window", pid, 0, endEpochNs - baseEpochNs);
            g.writeEndObject();
            for (StepRecord s : steps) {
                long end = s.startEpochNs() + s.durationNs() - baseEpochNs;
                event(g, "X", "python_function", "vllm/v1/engine/output_processor.py: process_outputs", pid, end,
                        Math.min(50_000, s.cpuOverheadNs()));
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeStringField("traceName", file.toString());
            g.writeEndObject();
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static JsonGenerator event(JsonGenerator g, String ph, String cat, String name, long pid, long tsNs,
                                       long durNs) throws IOException {
        g.writeStartObject();
        g.writeStringField("ph", ph);
        if (cat != null) {
            g.writeStringField("cat", cat);
        }
        g.writeStringField("name", name);
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", pid);
        g.writeFieldName("ts");
        g.writeNumber(TraceWriter.formatUs(tsNs));
        if (ph.equals("X")) {
            g.writeFieldName("dur");
            g.writeNumber(TraceWriter.formatUs(Math.max(0, durNs)));
        }
        return g;
    }

    /**
     * A torch {@code key_averages().table(sort_by="self_cuda_time_total")} of rank {@code tp}'s kernels: one row
     * per kernel name with its Self CUDA total, share, average and call count, names cut to 55 characters with
     * {@code ...} as torch does; CPU columns are zero for kernels. Footer: Self CPU (step scheduling) and Self CUDA
     * time totals.
     */
    static String keyAveragesTable(List<StepRecord> steps, int tp) {
        Map<String, long[]> rows = new LinkedHashMap<>();
        long cudaTotal = 0;
        long cpuTotal = 0;
        for (StepRecord s : steps) {
            cpuTotal += s.cpuOverheadNs();
            List<KernelCost> kernels = s.kernels();
            for (int k = 0; k < kernels.size(); k++) {
                long[] row = rows.computeIfAbsent(kernels.get(k).name(), n -> new long[2]);
                row[0] += s.durationsNs()[tp][k];
                row[1]++;
                cudaTotal += s.durationsNs()[tp][k];
            }
        }
        StringBuilder sb = new StringBuilder();
        String rule = "-".repeat(NAME_WIDTH) + ("  " + "-".repeat(12)).repeat(COLUMNS.length) + "  \n";
        sb.append(rule).append(String.format("%" + NAME_WIDTH + "s", "Name"));
        for (String c : COLUMNS) {
            sb.append(String.format("  %12s", c));
        }
        sb.append("  \n").append(rule);
        long total = cudaTotal;
        rows.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0])).forEach(e -> {
            String name = e.getKey().length() > NAME_WIDTH ? e.getKey().substring(0, NAME_WIDTH - 3) + "..." : e.getKey();
            long self = e.getValue()[0];
            long calls = e.getValue()[1];
            sb.append(String.format("%" + NAME_WIDTH + "s", name));
            String[] cells = {"0.00%", time(0), "0.00%", time(0), time(0), time(self),
                percent(self, total), time(self), time(self / calls), Long.toString(calls)};
            for (String c : cells) {
                sb.append(String.format("  %12s", c));
            }
            sb.append("  \n");
        });
        sb.append(rule);
        sb.append("Self CPU time total: ").append(time(cpuTotal)).append('\n');
        sb.append("Self CUDA time total: ").append(time(cudaTotal)).append('\n');
        return sb.toString();
    }

    static void writeText(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    /** torch.autograd.profiler_util._format_time: µs with 3 decimals, switching to ms and s. */
    static String time(long ns) {
        double us = ns / 1000.0;
        if (us >= 1e6) {
            return String.format(Locale.ROOT, "%.3fs", us / 1e6);
        }
        if (us >= 1e3) {
            return String.format(Locale.ROOT, "%.3fms", us / 1e3);
        }
        return String.format(Locale.ROOT, "%.3fus", us);
    }

    private static String percent(long part, long total) {
        return String.format(Locale.ROOT, "%.2f%%", total == 0 ? 0.0 : part * 100.0 / total);
    }
}
