package dev.profiledrollout.cli.bench;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apiguardian.api.API;

/**
 * A parser for the Prometheus text exposition format (version 0.0.4) as SGLang and vLLM serve it on
 * {@code /metrics}: one sample per line, {@code name{label="value",…} value [timestamp]}; {@code #} lines
 * (HELP, TYPE) and blank lines are skipped; histogram and summary series are returned as their plain
 * {@code _bucket}/{@code _sum}/{@code _count} samples. A line that cannot be parsed is skipped and counted,
 * never thrown. Stateless and thread-safe.
 */
@API(status = INTERNAL, since = "0.1")
public final class PrometheusText {

    /**
     * One sample.
     *
     * @param name   metric name, e.g. {@code sglang:num_running_reqs} or {@code vllm:num_requests_waiting}
     * @param labels label names to values, in exposition order; unmodifiable
     * @param value  the value; {@code NaN}, {@code +Inf} and {@code -Inf} are parsed
     */
    public record Sample(String name, Map<String, String> labels, double value) {
    }

    /**
     * The samples of one exposition.
     *
     * @param samples      the samples, in order
     * @param skippedLines lines that were neither samples, comments nor blank
     */
    public record Exposition(List<Sample> samples, int skippedLines) {

        /** @return the first sample with this name (any labels), or null */
        public Sample first(String name) {
            return samples.stream().filter(s -> s.name().equals(name)).findFirst().orElse(null);
        }
    }

    private PrometheusText() {
    }

    /** @param text an exposition, not null */
    public static Exposition parse(String text) {
        List<Sample> samples = new ArrayList<>();
        int skipped = 0;
        for (String raw : text.split("\n")) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Sample s = parseLine(line);
            if (s == null) {
                skipped++;
            } else {
                samples.add(s);
            }
        }
        return new Exposition(List.copyOf(samples), skipped);
    }

    private static Sample parseLine(String line) {
        int i = 0;
        while (i < line.length() && line.charAt(i) != '{' && !Character.isWhitespace(line.charAt(i))) {
            i++;
        }
        String name = line.substring(0, i);
        if (name.isEmpty()) {
            return null;
        }
        Map<String, String> labels = new LinkedHashMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i++;
            while (true) {
                while (i < line.length() && (line.charAt(i) == ',' || line.charAt(i) == ' ')) {
                    i++;
                }
                if (i >= line.length()) {
                    return null;
                }
                if (line.charAt(i) == '}') {
                    i++;
                    break;
                }
                int eq = line.indexOf('=', i);
                if (eq < 0 || eq + 1 >= line.length() || line.charAt(eq + 1) != '"') {
                    return null;
                }
                String key = line.substring(i, eq).strip();
                StringBuilder value = new StringBuilder();
                int j = eq + 2;
                for (; j < line.length() && line.charAt(j) != '"'; j++) {
                    char c = line.charAt(j);
                    if (c == '\\' && j + 1 < line.length()) {
                        char next = line.charAt(++j);
                        value.append(next == 'n' ? '\n' : next);
                    } else {
                        value.append(c);
                    }
                }
                if (j >= line.length()) {
                    return null;
                }
                labels.put(key, value.toString());
                i = j + 1;
            }
        }
        String[] rest = line.substring(i).strip().split("\\s+");
        if (rest.length == 0 || rest[0].isEmpty()) {
            return null;
        }
        double value;
        try {
            value = switch (rest[0]) {
                case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
                case "-Inf" -> Double.NEGATIVE_INFINITY;
                case "NaN" -> Double.NaN;
                default -> Double.parseDouble(rest[0]);
            };
        } catch (NumberFormatException e) {
            return null;
        }
        return new Sample(name, Collections.unmodifiableMap(labels), value);
    }
}
