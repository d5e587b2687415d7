package dev.profiledrollout.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunIdentitiesTest {

    private static final Instant START = Instant.parse("2026-11-23T20:01:02Z");

    @TempDir
    Path notARepository;

    @Test
    void should_read_github_actions_variables_with_the_run_link() {
        RunIdentity id = RunIdentities.fromEnvironment("a.B#c", START, Map.of("GITHUB_SHA", "abc123",
                "GITHUB_REF_NAME", "main", "GITHUB_RUN_ID", "42", "GITHUB_SERVER_URL", "https://github.com",
                "GITHUB_REPOSITORY", "acme/perf"), notARepository);

        assertThat(id.commit()).isEqualTo("abc123");
        assertThat(id.branch()).isEqualTo("main");
        assertThat(id.buildId()).isEqualTo("42");
        assertThat(id.buildUrl()).isEqualTo("https://github.com/acme/perf/actions/runs/42");
        assertThat(id.testId()).isEqualTo("a.B#c");
        assertThat(id.startedAt()).isEqualTo(START);
    }

    @Test
    void should_prefer_the_pull_request_head_branch_on_github() {
        RunIdentity id = RunIdentities.fromEnvironment("t#m", START, Map.of("GITHUB_SHA", "abc",
                "GITHUB_REF_NAME", "17/merge", "GITHUB_HEAD_REF", "feature"), notARepository);

        assertThat(id.branch()).isEqualTo("feature");
    }

    @Test
    void should_read_gitlab_buildkite_and_jenkins_variables() {
        RunIdentity gitlab = RunIdentities.fromEnvironment("t#m", START, Map.of("CI_COMMIT_SHA", "g1",
                "CI_COMMIT_REF_NAME", "dev", "CI_PIPELINE_ID", "7", "CI_JOB_URL", "https://gitlab.example/j/9"),
                notARepository);
        RunIdentity buildkite = RunIdentities.fromEnvironment("t#m", START, Map.of("BUILDKITE_COMMIT", "b1",
                "BUILDKITE_BRANCH", "main", "BUILDKITE_BUILD_NUMBER", "12", "BUILDKITE_BUILD_URL",
                "https://buildkite.com/acme/perf/builds/12"), notARepository);
        RunIdentity jenkins = RunIdentities.fromEnvironment("t#m", START, Map.of("GIT_COMMIT", "j1",
                "GIT_BRANCH", "origin/release", "BUILD_NUMBER", "153", "BUILD_URL", "https://ci.example/job/p/153/"),
                notARepository);

        assertThat(gitlab).extracting(RunIdentity::commit, RunIdentity::branch, RunIdentity::buildId,
                RunIdentity::buildUrl).containsExactly("g1", "dev", "7", "https://gitlab.example/j/9");
        assertThat(buildkite).extracting(RunIdentity::commit, RunIdentity::branch, RunIdentity::buildId,
                RunIdentity::buildUrl).containsExactly("b1", "main", "12", "https://buildkite.com/acme/perf/builds/12");
        assertThat(jenkins).extracting(RunIdentity::commit, RunIdentity::branch, RunIdentity::buildId,
                RunIdentity::buildUrl).containsExactly("j1", "release", "153", "https://ci.example/job/p/153/");
    }

    @Test
    void should_ask_git_outside_ci_and_leave_everything_unknown_outside_a_repository() throws Exception {
        Path repository = Path.of("").toAbsolutePath();
        Process head = new ProcessBuilder("git", "rev-parse", "HEAD").directory(repository.toFile()).start();
        String expected = new String(head.getInputStream().readAllBytes()).trim();
        head.waitFor();

        RunIdentity inRepository = RunIdentities.fromEnvironment("t#m", START, Map.of(), repository);
        RunIdentity outside = RunIdentities.fromEnvironment("t#m", START, Map.of(), notARepository);

        assertThat(inRepository.commit()).isEqualTo(expected).hasSize(40);
        assertThat(outside.commit()).isNull();
        assertThat(outside.branch()).isNull();
        assertThat(outside.buildId()).isNull();
    }
}
