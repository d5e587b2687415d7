/**
 * The verdict runtime: what one check decided ({@link dev.profiledrollout.verdict.Verdict}), the per-test recording
 * the assertions write into ({@link dev.profiledrollout.verdict.Verdicts}) and the error that fails a test on every
 * failed budget at once ({@link dev.profiledrollout.verdict.BudgetFailuresError}).
 *
 * <p>It depends on nothing else of the framework, so assertions, history and the extension record verdicts without
 * importing the report; {@code report} reads them to write {@code summary.json} and the HTML page.
 */
package dev.profiledrollout.verdict;
