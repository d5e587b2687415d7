package dev.profiledrollout.containers;

import com.github.dockerjava.api.exception.NotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.utility.DockerImageName;

/**
 * The engine-simulator images the container tests run (built by {@code src/test/docker/build-simulator-image.sh}
 * from {@code cli/target/profiled-rollout.jar}, tagged with the jar's hash so a changed jar gets a new image).
 *
 * <p>Without Docker the tests are skipped, except in CI ({@code CI=true}), where a missing Docker is a failure:
 * {@code .ci/run} installs and starts it.
 *
 * <p>Public, and shipped in this module's test jar, for the examples module's container example, which runs the same
 * image (its Surefire configuration sets {@code simulator.jar} and {@code simulator.image.script}).
 */
public final class SimulatorImage {

    private static String tag;
    private static boolean built;

    private SimulatorImage() {
    }

    /** {@code profiled-rollout/simulator-sglang}, declared a compatible substitute for {@code lmsysorg/sglang}. */
    public static synchronized DockerImageName sglang() {
        build();
        return sglangName();
    }

    /** {@code profiled-rollout/simulator-vllm}, declared a compatible substitute for {@code vllm/vllm-openai}. */
    public static synchronized DockerImageName vllm() {
        build();
        return DockerImageName.parse("profiled-rollout/simulator-vllm:" + tag())
                .asCompatibleSubstituteFor(VllmContainer.DEFAULT_IMAGE_NAME);
    }

    /** {@code profiled-rollout/simulator-trtllm}, a compatible substitute for TensorRT-LLM's release image. */
    public static synchronized DockerImageName trtllm() {
        build();
        return DockerImageName.parse("profiled-rollout/simulator-trtllm:" + tag())
                .asCompatibleSubstituteFor(TrtllmContainer.DEFAULT_IMAGE_NAME);
    }

    /**
     * The name {@link #sglang()} returns, without building the image or asking Docker anything: for a
     * {@code @RolloutEngine} field, which is initialised with its class even when the class is skipped for want of
     * Docker. Build the image with {@link #sglang()} before the container starts.
     */
    public static synchronized DockerImageName sglangName() {
        return DockerImageName.parse("profiled-rollout/simulator-sglang:" + tag())
                .asCompatibleSubstituteFor(SglangContainer.DEFAULT_IMAGE_NAME);
    }

    /**
     * @return whether a Docker engine is reachable, after letting Testcontainers talk to an older one
     *         ({@link DockerApiVersion}); usable as a JUnit {@code @EnabledIf} condition
     */
    public static boolean dockerAvailable() {
        DockerApiVersion.adaptToEngine();
        return DockerClientFactory.instance().isDockerAvailable();
    }

    /** Skips (or, in CI, fails) the calling test when there is no Docker engine. */
    public static void requireDocker() {
        if (!dockerAvailable()) {
            String why = "no Docker engine is reachable (install docker.io and start dockerd, or set DOCKER_HOST)";
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError("Container tests must run in CI but " + why
                        + "; .ci/run installs and starts Docker before the tests");
            }
            Assumptions.abort("Skipping container test: " + why);
        }
    }

    private static void build() {
        if (built) {
            return;
        }
        requireDocker();
        if (!exists(sglangName()) || !exists(DockerImageName.parse("profiled-rollout/simulator-trtllm:" + tag()))) {
            Path script = Path.of(System.getProperty("simulator.image.script",
                    "src/test/docker/build-simulator-image.sh"));
            run(script, jar(), tag());
        }
        built = true;
    }

    /** The images' tag: the first 16 hex digits of the jar's SHA-256, so that a changed jar gets new images. */
    private static String tag() {
        if (tag == null) {
            tag = sha256(jar()).substring(0, 16);
        }
        return tag;
    }

    private static Path jar() {
        Path jar = Path.of(System.getProperty("simulator.jar", "../cli/target/profiled-rollout.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("The simulator image is built from " + jar.toAbsolutePath()
                    + ", which does not exist: build it first (mvn -B -DskipTests package)");
        }
        return jar;
    }

    private static boolean exists(DockerImageName image) {
        try {
            DockerClientFactory.lazyClient().inspectImageCmd(image.asCanonicalNameString()).exec();
            return true;
        } catch (NotFoundException e) {
            return false;
        }
    }

    private static void run(Path script, Path jar, String tag) {
        try {
            // The build's output goes to a log, not to this JVM's own stdout (Surefire reads that as its channel).
            Path log = Files.createTempFile("simulator-image-build-", ".log");
            Process process = new ProcessBuilder("bash", script.toString(), jar.toString(), tag)
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            int exit = process.waitFor();
            if (exit != 0) {
                List<String> lines = Files.readAllLines(log);
                throw new IllegalStateException(script + " failed with exit code " + exit + "; the last lines of "
                        + log + ":\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 20),
                        lines.size())));
            }
            Files.delete(log);
        } catch (IOException e) {
            throw new IllegalStateException("Could not run " + script + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while building the simulator image", e);
        }
    }

    private static String sha256(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (IOException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("Cannot hash " + file, e);
        }
    }
}
