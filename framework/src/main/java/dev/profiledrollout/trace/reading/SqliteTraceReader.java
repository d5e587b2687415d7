package dev.profiledrollout.trace.reading;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.TraceDetails;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.analysis.GpuTimelineBreakdown;
import dev.profiledrollout.trace.analysis.KernelCategories;
import dev.profiledrollout.trace.analysis.LaunchStats;
import dev.profiledrollout.trace.analysis.TemporalBreakdown;
import dev.profiledrollout.trace.internal.RawEvent;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apiguardian.api.API;

/**
 * Reads GPU activity from SQLite profiles into the same {@link TraceSummary} model as {@link KinetoTraceReader},
 * through the same accumulator (so categories, percentiles, busy/idle and the exact temporal breakdown apply):
 * <ul>
 *   <li><b>ROCm RPD</b> ({@code rpd_tracer}; {@code docs/TRACES.md} §6): rows of {@code rocpd_op} ⋈
 *       {@code rocpd_string}. An op's name is its description, or its {@code opType} when the description is empty
 *       (the {@code top} view's rule); ops whose opType starts with {@code Copy}, {@code Fill} or {@code Barrier} are
 *       memory events, the others ({@code KernelExecution}) kernels; device = {@code gpuId}; times are integer ns.</li>
 *   <li><b>Nsight Systems SQLite export</b> ({@code nsys export --type=sqlite}; §5): {@code CUPTI_ACTIVITY_KIND_KERNEL}
 *       ⋈ {@code StringIds} on {@code demangledName} (falling back to {@code shortName}), device = {@code deviceId},
 *       correlation = {@code correlationId}; {@code CUPTI_ACTIVITY_KIND_MEMCPY}/{@code _MEMSET} as memory events
 *       when present (tables are created lazily, so any may be absent).</li>
 * </ul>
 * Rows are streamed in start order, so memory is bounded as for Kineto files. {@link #readNsysKernelSummaryCsv(Path)}
 * reads {@code nsys stats --report cuda_gpu_kern_sum --format csv} output (kernel totals only, no timeline).
 * Stateless and thread-safe.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class SqliteTraceReader {

    private SqliteTraceReader() {
    }

    /**
     * Reads an RPD file or an nsys SQLite export, telling them apart by their tables.
     *
     * @throws TraceFormatException when the file is not SQLite or has neither {@code rocpd_op} nor
     *                              {@code CUPTI_ACTIVITY_KIND_KERNEL}
     * @throws IOException          when the file cannot be read
     */
    public static TraceSummary read(Path file) throws IOException {
        return read(file, KernelCategories.defaults());
    }

    /** {@link #read(Path)} with custom kernel categories. */
    public static TraceSummary read(Path file, KernelCategories categories) throws IOException {
        if (!Files.isReadable(file)) {
            throw new IOException("cannot read " + file);
        }
        KinetoAccumulator acc = new KinetoAccumulator(categories);
        try (Connection db = DriverManager.getConnection("jdbc:sqlite:file:" + file.toAbsolutePath() + "?mode=ro")) {
            Set<String> tables = tables(db);
            acc.eventsStarted();
            if (tables.contains("rocpd_op")) {
                readRpd(db, acc);
            } else if (tables.contains("CUPTI_ACTIVITY_KIND_KERNEL") || tables.contains("StringIds")) {
                readNsys(db, tables, acc);
            } else {
                throw new TraceFormatException(file, "an SQLite file without rocpd_op (RPD) or "
                        + "CUPTI_ACTIVITY_KIND_KERNEL (nsys export) tables", null);
            }
            return KinetoTraceReader.summary(file, acc);
        } catch (SQLException e) {
            throw new TraceFormatException(file, "not a readable SQLite profile (" + e.getMessage() + ")", e);
        } finally {
            acc.close();
        }
    }

    private static Set<String> tables(Connection db) throws SQLException {
        Set<String> names = new HashSet<>();
        try (Statement st = db.createStatement();
             ResultSet rs = st.executeQuery("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        return names;
    }

    private static void readRpd(Connection db, KinetoAccumulator acc) throws SQLException {
        String sql = "SELECT o.gpuId, o.start, o.\"end\", d.string, t.string FROM rocpd_op o "
                + "LEFT JOIN rocpd_string d ON d.id = o.description_id "
                + "LEFT JOIN rocpd_string t ON t.id = o.opType_id ORDER BY o.start";
        RawEvent e = new RawEvent();
        try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                String description = rs.getString(4);
                String opType = rs.getString(5) == null ? "" : rs.getString(5);
                boolean memory = opType.startsWith("Copy") || opType.startsWith("Fill") || opType.startsWith("Barrier");
                e.clear();
                e.complete = true;
                e.phSeen = true;
                e.cat = memory ? (opType.startsWith("Fill") ? RawEvent.CAT_MEMSET : RawEvent.CAT_MEMCPY)
                        : RawEvent.CAT_KERNEL;
                e.name = description == null || description.isEmpty() ? opType : description;
                e.pid = String.valueOf(rs.getLong(1));
                e.tsNs = rs.getLong(2);
                e.durNs = rs.getLong(3) - e.tsNs;
                acc.event(e);
            }
        }
    }

    private static void readNsys(Connection db, Set<String> tables, KinetoAccumulator acc) throws SQLException {
        if (!tables.contains("CUPTI_ACTIVITY_KIND_KERNEL")) {
            return; // a capture without kernels: the table is created lazily
        }
        String sql = "SELECT k.start, k.\"end\", k.deviceId, k.correlationId, COALESCE(d.value, s.value) "
                + "FROM CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN StringIds d ON d.id = k.demangledName "
                + "LEFT JOIN StringIds s ON s.id = k.shortName";
        StringBuilder union = new StringBuilder(sql);
        for (String[] memory : new String[][] {{"CUPTI_ACTIVITY_KIND_MEMCPY", "'Memcpy'"},
                {"CUPTI_ACTIVITY_KIND_MEMSET", "'Memset'"}}) {
            if (tables.contains(memory[0])) {
                union.append(" UNION ALL SELECT start, \"end\", deviceId, correlationId, ").append(memory[1])
                        .append(" FROM ").append(memory[0]);
            }
        }
        union.append(" ORDER BY 1");
        RawEvent e = new RawEvent();
        try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(union.toString())) {
            while (rs.next()) {
                String name = rs.getString(5);
                e.clear();
                e.complete = true;
                e.phSeen = true;
                e.cat = "Memcpy".equals(name) ? RawEvent.CAT_MEMCPY : "Memset".equals(name) ? RawEvent.CAT_MEMSET
                        : RawEvent.CAT_KERNEL;
                e.name = name == null ? "" : name;
                e.tsNs = rs.getLong(1);
                e.durNs = rs.getLong(2) - e.tsNs;
                e.pid = String.valueOf(rs.getLong(3));
                long corr = rs.getLong(4);
                e.correlation = rs.wasNull() ? RawEvent.NONE : corr;
                acc.event(e);
            }
        }
    }

    /**
     * Reads {@code nsys stats --report cuda_gpu_kern_sum --format csv} output (header
     * {@code Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name};
     * {@code docs/TRACES.md} §5; older {@code gpukernsum} forms with {@code GridXYZ,BlockXYZ} columns or
     * Average/Minimum/Maximum headings are accepted by column name). Lines before the header (nsys notices) are
     * skipped. The summary has kernels only: count = Instances, total, min, max, p50 = Med; p99 = −1 (not in the
     * report); no devices.
     *
     * @throws TraceFormatException when no header line is found
     * @throws IOException          when the file cannot be read
     */
    public static TraceSummary readNsysKernelSummaryCsv(Path csv) throws IOException {
        List<KernelStats> kernels = new ArrayList<>();
        int[] col = null;
        try (BufferedReader in = Files.newBufferedReader(csv, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                List<String> cells = CsvLine.split(line);
                if (col == null) {
                    col = NsysColumns.find(cells);
                    continue;
                }
                if (cells.size() <= col[NsysColumns.NAME]) {
                    continue;
                }
                kernels.add(new KernelStats(cells.get(col[NsysColumns.NAME]), number(cells.get(col[NsysColumns.COUNT])),
                        number(cells.get(col[NsysColumns.TOTAL])), number(cells.get(col[NsysColumns.MIN])),
                        number(cells.get(col[NsysColumns.MAX])), col[NsysColumns.MED] < 0 ? -1
                        : number(cells.get(col[NsysColumns.MED])), -1));
            }
        }
        if (col == null) {
            throw new TraceFormatException(csv, "no nsys cuda_gpu_kern_sum CSV header (Total Time (ns), Instances, "
                    + "Name) found", null);
        }
        kernels.sort(KernelStats.BY_TOTAL_DESCENDING);
        long events = kernels.stream().mapToLong(KernelStats::count).sum();
        long total = kernels.stream().mapToLong(KernelStats::totalNs).sum();
        return new TraceSummary(csv, Optional.empty(), events, 0, kernels.size(), total, List.of(), kernels,
                List.of("from nsys stats cuda_gpu_kern_sum: kernel totals only, no timeline (busy, idle, steps)"),
                new TraceDetails(java.util.OptionalInt.empty(), java.util.OptionalLong.empty(),
                        NsysColumns.categories(kernels), TemporalBreakdown.empty(false), TemporalBreakdown.empty(true),
                        List.of(), List.of(), LaunchStats.empty(), List.of(), GpuTimelineBreakdown.empty()));
    }

    private static long number(String cell) {
        return Math.round(Double.parseDouble(cell.replace(",", "").trim()));
    }
}
