/**
 * What a profiled test leaves behind and how it is shown.
 *
 * <h2>Files</h2>
 * Under {@code target/profiled-rollout/<Class>/<method>/}: {@code summary.json}, {@code requests.jsonl},
 * {@code timeseries.csv} and {@code latency.hlog} ({@link dev.profiledrollout.report.RunReport}, which documents the
 * shapes); after the body, {@code verdicts} in {@code summary.json} and the offline report: {@code charts/*.png},
 * {@code kernels.csv}, {@code report.html} ({@link dev.profiledrollout.report.TestReport},
 * {@link dev.profiledrollout.report.ReportRenderer}).
 *
 * <h2>One rendering path</h2>
 * {@link dev.profiledrollout.report.ReportData} reads a run directory back from its files;
 * {@link dev.profiledrollout.report.Charts} and {@link dev.profiledrollout.report.HtmlReport} build charts and tables
 * from it alone, so the extension and {@code profiled-rollout report DIR} produce the same output and every number
 * shown is the one in {@code summary.json}.
 *
 * <h2>One run model</h2>
 * {@code summary.json} is read back by type, not by key: {@link dev.profiledrollout.report.RunHeader} (engine with the
 * simulator's faults and noise, load, profile request, attempted, profiled, workers, latency, steps, baseline, phases,
 * history blocks, outcome, error) and {@link dev.profiledrollout.report.ReportData} (trace with its rank labels,
 * straggler and step timelines, verdicts, history records, whose change and direction are {@code history.stats}'
 * enums). {@link dev.profiledrollout.report.HtmlReport}, {@link dev.profiledrollout.report.Charts},
 * {@link dev.profiledrollout.report.TestReport}, {@link dev.profiledrollout.report.ReportRenderer}, the history's run
 * records ({@code dev.profiledrollout.history.RunRecords}) and the CLI's import read these records; no reader of
 * {@code summary.json} looks a key up outside the mapping. The writers write one record whole:
 * {@link dev.profiledrollout.report.SummaryFile} for {@code summary.json} (a stage that adds a block reads the file
 * into it, makes a new one with the block and writes that), {@link dev.profiledrollout.report.StageReport.StagesFile}
 * for {@code stages.json}. Each value has one spelling in the file; a field renamed must keep
 * reading its old spelling (as {@link dev.profiledrollout.report.RunHeader.Attempted#numSteps()} reads
 * {@code attempted.numSteps} of older files as {@code num_steps}).
 *
 * <h2>One JSON mapping</h2>
 * {@link dev.profiledrollout.report.ResultsModule} is the Jackson mapping of every result record in
 * {@code summary.json} and {@code profiled-rollout analyze --format json}; the extension, the CLI and
 * {@link dev.profiledrollout.report.ReportData} write and read the records through it, so a record has one shape
 * wherever it appears.
 *
 * <h2>Verdicts</h2>
 * Every assertion of {@code dev.profiledrollout.assertions} records a {@link dev.profiledrollout.verdict.Verdict} in
 * the {@link dev.profiledrollout.verdict.Verdicts} recording the extension opens on the test's thread around the body;
 * in a soft recording (the default) missed budgets are collected and thrown once after the body as a
 * {@link dev.profiledrollout.verdict.BudgetFailuresError}. {@link dev.profiledrollout.report.TestOutcome} is how the
 * test ended, {@code summary.json}'s top-level {@code outcome}.
 *
 * <h2>Allure</h2>
 * {@link dev.profiledrollout.report.AllureSteps} adds phase steps, parameters, labels and attachments to the Allure
 * test case running on the calling thread, and does nothing without one. Configuration keys:
 * {@code profiledrollout.report.attach.traces} and {@code profiledrollout.report.attach.maxBytes}.
 *
 * <h2>Threads</h2>
 * The writers and renderers keep no shared state and may run concurrently for different directories; chart rendering
 * needs AWT in headless mode ({@code java.awt.headless} is set to {@code true} when unset) and fonts installed.
 */
package dev.profiledrollout.report;
