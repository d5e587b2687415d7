package dev.profiledrollout.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.profiledrollout.cli.internal.AnalysisViews;
import dev.profiledrollout.cli.internal.SummaryTable;
import dev.profiledrollout.cli.internal.ViewPrinter;
import dev.profiledrollout.report.TraceSummaryJson;
import dev.profiledrollout.trace.BaselineDiff;
import dev.profiledrollout.trace.KernelDelta;
import dev.profiledrollout.trace.KernelSpread;
import dev.profiledrollout.trace.TraceSet;
import dev.profiledrollout.trace.TraceSummary;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/** The three output formats of {@link AnalyzeCommand} (documented there). */
final class AnalyzeOutput {

    private static final int TABLE_ROWS = SummaryTable.TOP_KERNELS;
    private static final int SPREAD_ROWS = 10;

    private AnalyzeOutput() {
    }

    static void json(PrintWriter out, List<AnalyzeCommand.Labeled> traces, TraceSet ranks, BaselineDiff diff)
            throws IOException {
        JsonGenerator json = new JsonFactory().createGenerator(out)
                .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
                .useDefaultPrettyPrinter();
        json.writeStartObject();
        json.writeArrayFieldStart("traces");
        for (AnalyzeCommand.Labeled t : traces) {
            TraceSummaryJson.write(json, t.label(), t.summary());
        }
        json.writeEndArray();
        if (ranks != null) {
            json.writeObjectFieldStart("allRanks");
            json.writeNumberField("busyImbalance", ranks.busyImbalance());
            json.writeStringField("straggler", ranks.straggler().map(TraceSet::label).orElse(null));
            json.writeArrayFieldStart("ranks");
            for (TraceSummary t : ranks.traces()) {
                json.writeStartObject();
                json.writeStringField("rank", TraceSet.label(t));
                json.writeStringField("file", t.file().toString());
                json.writeNumberField("kernelTotalNs", t.kernelTotalNs());
                json.writeNumberField("busyNs", t.busyNs());
                json.writeNumberField("spanNs", t.spanNs());
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeArrayFieldStart("kernelSpread");
            for (KernelSpread k : ranks.kernelSpread()) {
                json.writeStartObject();
                json.writeStringField("name", k.name());
                json.writeNumberField("spread", k.spread());
                json.writeNumberField("minNs", k.minNs());
                json.writeNumberField("maxNs", k.maxNs());
                json.writeNumberField("meanNs", k.meanNs());
                json.writeStringField("longestOn", k.maxLabel());
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        }
        if (diff != null) {
            json.writeObjectFieldStart("baselineDiff");
            json.writeNumberField("baselineKernelTotalNs", diff.baseline().kernelTotalNs());
            json.writeNumberField("kernelTotalNs", diff.run().kernelTotalNs());
            json.writeArrayFieldStart("kernels");
            for (KernelDelta k : diff.kernels()) {
                json.writeStartObject();
                json.writeStringField("name", k.name());
                json.writeStringField("status", k.status().name());
                json.writeNumberField("baseCount", k.baseCount());
                json.writeNumberField("count", k.count());
                json.writeNumberField("baseTotalNs", k.baseTotalNs());
                json.writeNumberField("totalNs", k.totalNs());
                json.writeNumberField("deltaNs", k.deltaNs());
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        }
        json.writeEndObject();
        json.flush();
        out.println();
    }

    static void table(PrintWriter out, List<AnalyzeCommand.Labeled> traces, AnalysisViews.By by, TraceSet ranks,
                      BaselineDiff diff) {
        for (AnalyzeCommand.Labeled t : traces) {
            if (by == AnalysisViews.By.KERNEL) {
                SummaryTable.print(out, t.label(), t.summary());
                continue;
            }
            SummaryTable.header(out, t.label(), t.summary());
            ViewPrinter.table(out, AnalysisViews.of(by, t.summary()), TABLE_ROWS);
            out.println();
        }
        if (ranks != null) {
            out.printf(Locale.ROOT, "All ranks: %d traces, busy imbalance (max/mean) %.3f, straggler %s%n",
                    ranks.traces().size(), ranks.busyImbalance(), ranks.straggler().map(TraceSet::label).orElse("-"));
            ViewPrinter.table(out, AnalysisViews.ranks(ranks), Integer.MAX_VALUE);
            if (ranks.traces().size() > 1) {
                out.println("Kernel time spread across ranks (max/mean), largest first:");
                ViewPrinter.table(out, AnalysisViews.spread(ranks, SPREAD_ROWS), SPREAD_ROWS);
            }
            out.println();
        }
        if (diff != null) {
            out.printf(Locale.ROOT, "Baseline: kernel time %.3f ms → %.3f ms (%+.1f%%), %d new, %d vanished kernels%n",
                    diff.baseline().kernelTotalNs() / 1e6, diff.run().kernelTotalNs() / 1e6,
                    100 * diff.kernelTimeChange(), diff.newKernels().size(), diff.vanishedKernels().size());
            ViewPrinter.table(out, AnalysisViews.diff(diff), TABLE_ROWS);
            out.println();
        }
    }

    static void csv(PrintWriter out, List<AnalyzeCommand.Labeled> traces, AnalysisViews.By by, TraceSet ranks,
                    BaselineDiff diff) {
        if (diff != null) {
            ViewPrinter.csv(out, List.of(), List.of(), AnalysisViews.diff(diff), true);
            return;
        }
        if (ranks != null) {
            ViewPrinter.csv(out, List.of(), List.of(), AnalysisViews.ranks(ranks), true);
            return;
        }
        boolean header = true;
        for (AnalyzeCommand.Labeled t : traces) {
            ViewPrinter.csv(out, List.of("file"), List.of(t.label()), AnalysisViews.of(by, t.summary()), header);
            header = false;
        }
    }
}
