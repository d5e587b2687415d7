package dev.profiledrollout.engine.nsys;

import dev.profiledrollout.trace.KernelStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Parses the CSV of {@code nsys stats --report cuda_gpu_kern_sum --format csv} (TRACES.md §5) into kernel aggregates.
 *
 * <p>Header (current): {@code Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name};
 * older versions say {@code Average}/{@code Minimum}/{@code Maximum} and the 2022.4 {@code gpukernsum} inserts
 * {@code GridXYZ,BlockXYZ} before {@code Name}: columns are found by heading, not position. Lines before the header
 * (nsys prints "Processing …" notes) are skipped. Values must be in ns (the default {@code --timeunit}); names with
 * commas are quoted, with {@code ""} for a quote.
 *
 * <p>Package-private stand-in until the trace package's nsys reader is merged (issue 5).
 */
final class KernelSummaryCsv {

    private KernelSummaryCsv() {
    }

    /**
     * @param csv the command's standard output, not null
     * @return one aggregate per row, in file order (nsys sorts by total time descending)
     * @throws IllegalArgumentException when no header with {@code Total Time}, {@code Instances} and {@code Name}
     *                                  is found, or a row is malformed; the message quotes the line
     */
    static List<KernelStats> parse(String csv) {
        String[] lines = csv.split("\\R");
        int header = -1;
        for (int i = 0; i < lines.length; i++) {
            String l = lines[i].toLowerCase(Locale.ROOT);
            if (l.contains("total time") && l.contains("instances") && l.contains("name")) {
                header = i;
                break;
            }
        }
        if (header < 0) {
            throw new IllegalArgumentException("No cuda_gpu_kern_sum CSV header (Time (%),Total Time (ns),Instances,…,Name)"
                    + " in the nsys stats output: " + snippet(csv) + ". Was the report empty (no CUDA kernels; with"
                    + " CUDA graphs use --cuda-graph-trace=node) or --format csv missing?");
        }
        List<String> columns = fields(lines[header]);
        int total = column(columns, "total time");
        int instances = column(columns, "instances");
        int min = column(columns, "min");
        int max = column(columns, "max");
        int name = column(columns, "name");
        List<KernelStats> kernels = new ArrayList<>();
        for (int i = header + 1; i < lines.length; i++) {
            if (lines[i].isBlank()) {
                continue;
            }
            List<String> f = fields(lines[i]);
            if (f.size() < columns.size()) {
                throw new IllegalArgumentException("Malformed cuda_gpu_kern_sum row " + (i + 1) + ": " + lines[i]);
            }
            try {
                long totalNs = number(f.get(total));
                long minNs = min >= 0 ? number(f.get(min)) : 0;
                long maxNs = max >= 0 ? number(f.get(max)) : 0;
                kernels.add(new KernelStats(f.get(name), number(f.get(instances)), totalNs, minNs, maxNs));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("Non-numeric value in cuda_gpu_kern_sum row " + (i + 1) + ": "
                        + lines[i] + " (was --timeunit changed from ns?)", e);
            }
        }
        return List.copyOf(kernels);
    }

    private static int column(List<String> columns, String prefix) {
        for (int i = 0; i < columns.size(); i++) {
            String c = columns.get(i).toLowerCase(Locale.ROOT);
            if (c.startsWith(prefix) || (prefix.equals("min") && c.startsWith("minimum"))
                    || (prefix.equals("max") && c.startsWith("maximum"))) {
                return i;
            }
        }
        if (prefix.equals("min") || prefix.equals("max")) {
            return -1;
        }
        throw new IllegalArgumentException("cuda_gpu_kern_sum header has no '" + prefix + "' column: " + columns);
    }

    private static long number(String text) {
        String t = text.trim().replace(",", "");
        return Math.round(Double.parseDouble(t));
    }

    /** RFC 4180 fields of one line: commas separate, double quotes enclose, {@code ""} is a quote. */
    static List<String> fields(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cur.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    cur.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                out.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        out.add(cur.toString());
        return out;
    }

    private static String snippet(String s) {
        String t = s.strip();
        return t.isEmpty() ? "(empty)" : "'" + (t.length() > 300 ? t.substring(0, 300) + "…" : t) + "'";
    }
}
