package dev.profiledrollout.history;

import java.time.Instant;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Which run this was: the test, when it started, and where it came from. Nothing here enters the
 * {@linkplain RunConfiguration#fingerprint() fingerprint}: commits and builds are what a history compares across.
 *
 * @param testId    the test's stable id, {@code <class name>#<method name>} (e.g.
 *                  {@code com.acme.DecodeBudgetTest#decodeStaysUnderBudget}), with {@code /<PHASE>} appended for one
 *                  phase of a phased test; for {@code bench} runs {@code bench:<name>}
 * @param startedAt when the profile window (or benchmark) started, UTC
 * @param commit    the git commit under test, or null when unknown
 * @param branch    the git branch, or null when unknown
 * @param buildId   the CI build id (e.g. GitHub Actions {@code GITHUB_RUN_ID}), or null outside CI
 * @param buildUrl  a link to the CI build, or null
 * @param host      the machine's host name, or null
 */
@API(status = API.Status.EXPERIMENTAL)
public record RunIdentity(String testId, Instant startedAt, String commit, String branch, String buildId,
        String buildUrl, String host) {

    /** @throws IllegalArgumentException if {@code testId} is blank; NullPointerException if it or {@code startedAt} is null */
    public RunIdentity {
        Objects.requireNonNull(testId, "testId");
        Objects.requireNonNull(startedAt, "startedAt");
        if (testId.isBlank()) {
            throw new IllegalArgumentException("RunIdentity testId is blank: use <class name>#<method name>");
        }
    }
}
