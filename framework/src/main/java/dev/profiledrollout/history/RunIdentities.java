package dev.profiledrollout.history;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apiguardian.api.API;

/**
 * A {@link RunIdentity} from the environment the run happens in: the git commit and branch and the CI build from the
 * variables each CI system sets, else the commit and branch from {@code git rev-parse} in the working directory.
 *
 * <table>
 *   <caption>Variables read, first match wins</caption>
 *   <tr><th>CI</th><th>commit</th><th>branch</th><th>build id</th><th>build URL</th></tr>
 *   <tr><td>GitHub Actions</td><td>{@code GITHUB_SHA}</td><td>{@code GITHUB_HEAD_REF} (pull requests), else
 *       {@code GITHUB_REF_NAME}</td><td>{@code GITHUB_RUN_ID}</td><td>{@code GITHUB_SERVER_URL}/{@code GITHUB_REPOSITORY}/actions/runs/{@code GITHUB_RUN_ID}</td></tr>
 *   <tr><td>GitLab CI</td><td>{@code CI_COMMIT_SHA}</td><td>{@code CI_COMMIT_REF_NAME}</td><td>{@code CI_PIPELINE_ID}</td>
 *       <td>{@code CI_JOB_URL}, else {@code CI_PIPELINE_URL}</td></tr>
 *   <tr><td>Buildkite</td><td>{@code BUILDKITE_COMMIT}</td><td>{@code BUILDKITE_BRANCH}</td>
 *       <td>{@code BUILDKITE_BUILD_NUMBER}</td><td>{@code BUILDKITE_BUILD_URL}</td></tr>
 *   <tr><td>Jenkins (Git plugin)</td><td>{@code GIT_COMMIT}</td><td>{@code BRANCH_NAME}, else {@code GIT_BRANCH}
 *       without its {@code origin/}</td><td>{@code BUILD_NUMBER}</td><td>{@code BUILD_URL}</td></tr>
 * </table>
 * Sources of the names: GitHub, https://docs.github.com/en/actions/reference/variables-reference (default environment
 * variables); GitLab, https://docs.gitlab.com/ci/variables/predefined_variables/; Buildkite,
 * https://buildkite.com/docs/pipelines/environment_variables; Jenkins,
 * https://www.jenkins.io/doc/book/pipeline/jenkinsfile/#using-environment-variables and the Git plugin's
 * https://plugins.jenkins.io/git/#plugin-content-environment-variables.
 */
@API(status = API.Status.EXPERIMENTAL)
public final class RunIdentities {

    private RunIdentities() {
    }

    /** The identity of a run starting now-ish, from {@link System#getenv()} and the JVM's working directory. */
    public static RunIdentity fromEnvironment(String testId, Instant startedAt) {
        return fromEnvironment(testId, startedAt, System.getenv(), Path.of("").toAbsolutePath());
    }

    /**
     * @param env              the environment variables to read
     * @param workingDirectory where {@code git rev-parse} runs when no CI variable names the commit; null for none
     * @throws IllegalArgumentException if {@code testId} is blank
     */
    public static RunIdentity fromEnvironment(String testId, Instant startedAt, Map<String, String> env,
            Path workingDirectory) {
        String commit = first(env, "GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT", "GIT_COMMIT");
        String branch = first(env, "GITHUB_HEAD_REF", "GITHUB_REF_NAME", "CI_COMMIT_REF_NAME", "BUILDKITE_BRANCH",
                "BRANCH_NAME");
        if (branch == null && env.get("GIT_BRANCH") != null && !env.get("GIT_BRANCH").isBlank()) {
            branch = env.get("GIT_BRANCH").replaceFirst("^origin/", "");
        }
        String buildId = null;
        String buildUrl = null;
        if (present(env, "GITHUB_RUN_ID")) {
            buildId = env.get("GITHUB_RUN_ID");
            if (present(env, "GITHUB_SERVER_URL") && present(env, "GITHUB_REPOSITORY")) {
                buildUrl = env.get("GITHUB_SERVER_URL") + "/" + env.get("GITHUB_REPOSITORY") + "/actions/runs/" + buildId;
            }
        } else if (present(env, "CI_PIPELINE_ID")) {
            buildId = env.get("CI_PIPELINE_ID");
            buildUrl = first(env, "CI_JOB_URL", "CI_PIPELINE_URL");
        } else if (present(env, "BUILDKITE_BUILD_NUMBER")) {
            buildId = env.get("BUILDKITE_BUILD_NUMBER");
            buildUrl = first(env, "BUILDKITE_BUILD_URL");
        } else if (present(env, "BUILD_NUMBER")) {
            buildId = env.get("BUILD_NUMBER");
            buildUrl = first(env, "BUILD_URL");
        }
        if (commit == null && workingDirectory != null) {
            String[] fromGit = GIT.computeIfAbsent(workingDirectory.toAbsolutePath().normalize(), RunIdentities::git);
            commit = fromGit[0];
            if (branch == null) {
                branch = fromGit[1];
            }
        }
        return new RunIdentity(testId, startedAt, commit, branch, buildId, buildUrl, host());
    }

    private static boolean present(Map<String, String> env, String name) {
        String value = env.get(name);
        return value != null && !value.isBlank();
    }

    private static String first(Map<String, String> env, String... names) {
        for (String name : names) {
            if (present(env, name)) {
                return env.get(name).trim();
            }
        }
        return null;
    }

    /**
     * Commit and branch of a working directory, asked once per JVM and directory: every test of a build runs on the
     * same checkout, and a process per test would cost more than the lookup is worth.
     */
    private static final java.util.Map<Path, String[]> GIT = new java.util.concurrent.ConcurrentHashMap<>();

    private static String[] git(Path directory) {
        String commit = git(directory, "rev-parse", "HEAD");
        String branch = commit == null ? null : git(directory, "rev-parse", "--abbrev-ref", "HEAD");
        return new String[] {commit, "HEAD".equals(branch) ? null : branch}; // HEAD: detached
    }

    /** One line of git's output, or null when git is missing, fails or takes longer than 5 s. */
    private static String git(Path directory, String... args) {
        String[] command = new String[args.length + 1];
        command[0] = "git";
        System.arraycopy(args, 0, command, 1, args.length);
        try {
            Process process = new ProcessBuilder(command).directory(directory.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out;
            try (InputStream in = process.getInputStream()) {
                out = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            }
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return null;
            }
            return process.exitValue() == 0 && !out.isEmpty() ? out.lines().findFirst().orElse(null) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
