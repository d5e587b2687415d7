/**
 * What a profiled test leaves behind: {@code summary.json}, {@code requests.jsonl} and {@code latency.hlog} under
 * {@code target/profiled-rollout/<Class>/<method>/}, and a console summary per test. See
 * {@link dev.profiledrollout.report.RunReport} for the shapes.
 */
package dev.profiledrollout.report;
