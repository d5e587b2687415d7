package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.trace.TraceSummary;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One trace file's {@link TraceSummary} under the label its JSON carries in {@code "file"}: an element of
 * {@code analyze --format json}'s {@code traces} and of {@code summary.json}'s {@code trace.ranks}. Its JSON shape
 * is documented by {@link TraceSummaryJson}; {@link ResultsModule} maps it both ways.
 *
 * @param file    the label: the path as given on the command line ({@code analyze}, plus {@code " [TP-n]"} for a
 *                rank of a merged SGLang trace) or the file name ({@code summary.json}); not null
 * @param summary the summary; read back from JSON, its {@code file} is {@code Path.of(file)} and its details hold
 *                what the JSON holds (at most {@link TraceDetailsJson#MAX_STEPS} steps and
 *                {@link TraceDetailsJson#MAX_OPERATORS} operators, no step batch sizes, no base time); not null
 */
@API(status = EXPERIMENTAL, since = "0.1.0")
public record LabeledTrace(String file, TraceSummary summary) {

    public LabeledTrace {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(summary, "summary");
    }
}
