package dev.profiledrollout.trace.reading;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.profiledrollout.trace.DeviceStats;
import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.TestTraces;
import dev.profiledrollout.trace.TraceSummary;
import dev.profiledrollout.trace.analysis.KernelCategory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteTraceReaderTest {

    @TempDir
    Path dir;

    @Test
    void rpd_kernel_and_copy_totals_agree_with_the_files_own_top_view() throws IOException {
        TraceSummary s = SqliteTraceReader.read(TestTraces.root().resolve("rpd/matmul_result.rpd"));
        JsonNode expected = new ObjectMapper().readTree(
                TestTraces.root().resolve("expected/matmul_result.rpd.top.json").toFile());

        assertThat(s.kernelEvents() + s.memoryEvents()).isEqualTo(expected.get("rocpd_op_rows").asLong());
        assertThat(s.memoryEvents()).isEqualTo(53 + 2 + 1); // CopyDeviceToHost, CopyHostToDevice, FillBuffer
        Map<String, KernelStats> kernels = s.kernels().stream()
                .collect(Collectors.toMap(KernelStats::name, Function.identity()));
        int checked = 0;
        for (JsonNode row : expected.get("top")) {
            String name = row.get("Name").asText();
            KernelStats k = kernels.get(name);
            if (name.startsWith("Copy") || name.startsWith("Fill")) {
                assertThat(k).as(name).isNull();
                continue;
            }
            assertThat(k).as(name).isNotNull();
            assertThat(k.count()).as(name).isEqualTo(row.get("TotalCalls").asLong());
            // top: TotalDuration = Σ(end − start) / 1000, integer division (µs)
            assertThat(k.totalNs() / 1000).as(name).isEqualTo(row.get("TotalDuration").asLong());
            checked++;
        }
        assertThat(checked).isEqualTo(17); // the stored top view lists 20 rows: 17 kernels and 3 copy/fill ops
        assertThat(s.devices()).extracting(DeviceStats::id).containsExactly("2");
        assertThat(s.details().category(KernelCategory.GEMM).count()).isEqualTo(1); // the Cijk_ Tensile GEMM
    }

    @Test
    void an_nsys_sqlite_export_gives_kernels_devices_and_memory_events() throws Exception {
        Path db = dir.resolve("report.sqlite");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)");
            st.execute("INSERT INTO StringIds VALUES (1, 'nvjet_tst_64x8_64x16_4x1_v_bz_TNT'), (2, 'nvjet_tst'),"
                    + " (3, 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)'), (4, 'nccl')");
            st.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, \"end\" INTEGER NOT NULL,"
                    + " deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,"
                    + " demangledName INTEGER, shortName INTEGER, mangledName INTEGER, graphNodeId INTEGER)");
            st.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
                    + " (1000, 2000, 0, 1, 7, 11, 0, 1, 2, NULL, NULL), (2500, 3000, 0, 1, 7, 12, 0, 1, 2, NULL, NULL),"
                    + " (1500, 4000, 0, 1, 20, 13, 0, 3, 4, NULL, NULL), (1000, 1600, 1, 1, 7, 14, 0, 1, 2, NULL, NULL)");
            st.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, \"end\" INTEGER, deviceId INTEGER,"
                    + " correlationId INTEGER, copyKind INTEGER, bytes INTEGER)");
            st.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (5000, 5100, 0, 15, 1, 4096)");
        }
        TraceSummary s = SqliteTraceReader.read(db);

        assertThat(s.kernelEvents()).isEqualTo(4);
        assertThat(s.memoryEvents()).isEqualTo(1);
        assertThat(s.kernels().get(0).name()).startsWith("ncclDevKernel_AllReduce");
        assertThat(s.kernels()).extracting(KernelStats::totalNs).containsExactly(2_500L, 2_100L);
        assertThat(s.devices()).containsExactly(new DeviceStats("0", 3_000 + 100, 4_100), new DeviceStats("1", 600, 600));
        assertThat(s.details().category(KernelCategory.COMMUNICATION).totalNs()).isEqualTo(2_500);
        // exact overlap of comm [1500, 4000) with compute [1000, 2000) ∪ [2500, 3000) ∪ device 1 [1000, 1600)
        assertThat(s.details().exact().overlapNs()).isEqualTo(500 + 500);
    }

    @Test
    void nsys_stats_cuda_gpu_kern_sum_csv_is_read_by_column_name() throws IOException {
        Path csv = Files.writeString(dir.resolve("kern.csv"), String.join("\n",
                "Processing [report.sqlite] with [cuda_gpu_kern_sum.py]... ",
                "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name",
                "61.5,\"1,200,000\",40,30000.0,29000.0,25000,41000,1500.3,\"void cutlass::Kernel2<gemm, \"\"x\"\">(Params)\"",
                "38.5,750000,100,7500.0,7400.0,7000,9000,10.2,ncclDevKernel_AllReduce_Sum_bf16_RING_LL", ""));
        TraceSummary s = SqliteTraceReader.readNsysKernelSummaryCsv(csv);

        assertThat(s.kernels()).containsExactly(
                new KernelStats("void cutlass::Kernel2<gemm, \"x\">(Params)", 40, 1_200_000, 25_000, 41_000, 29_000, -1),
                new KernelStats("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 100, 750_000, 7_000, 9_000, 7_400, -1));
        assertThat(s.kernelTotalNs()).isEqualTo(1_950_000);
        assertThat(s.details().category(KernelCategory.COMMUNICATION).share()).isEqualTo(750_000 / 1_950_000.0);
        assertThatThrownBy(() -> SqliteTraceReader.readNsysKernelSummaryCsv(Files.writeString(dir.resolve("x.csv"), "a,b")))
                .isInstanceOf(TraceFormatException.class);
    }

    @Test
    void a_json_file_is_not_an_sqlite_profile() throws IOException {
        Path json = Files.writeString(dir.resolve("t.json"), "{\"traceEvents\":[]}");
        assertThatThrownBy(() -> SqliteTraceReader.read(json)).isInstanceOf(TraceFormatException.class);
    }
}
