package dev.profiledrollout.containers;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lets Testcontainers 2 talk to an older Docker engine.
 *
 * <p>Why: Testcontainers 2.0 asks for Docker API 1.44 unless {@code api.version} is set, while Debian 12's
 * {@code docker.io} (20.10, what CI installs) serves at most 1.41 and answers "client version 1.44 is too new". Newer
 * engines (Docker 29 dropped APIs below 1.44) need nothing. This asks the engine on its Unix socket for its
 * {@code ApiVersion} and, when it is below 1.44 and nobody chose a version, sets {@code api.version} to it before
 * Testcontainers creates its client.
 */
final class DockerApiVersion {

    private static final Pattern API_VERSION = Pattern.compile("\"ApiVersion\"\\s*:\\s*\"(\\d+)\\.(\\d+)\"");

    private DockerApiVersion() {
    }

    static synchronized void adaptToEngine() {
        if (System.getProperty("api.version") != null) {
            return;
        }
        String host = System.getenv("DOCKER_HOST");
        Path socket = host != null && host.startsWith("unix://") ? Path.of(host.substring("unix://".length()))
                : Path.of("/var/run/docker.sock");
        if (host != null && !host.startsWith("unix://") || !Files.exists(socket)) {
            return; // TCP or no local engine: leave Testcontainers' own discovery alone
        }
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            channel.write(ByteBuffer.wrap("GET /version HTTP/1.0\r\nHost: docker\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII)));
            ByteArrayOutputStream response = new ByteArrayOutputStream();
            ByteBuffer buffer = ByteBuffer.allocate(8192);
            while (channel.read(buffer) > 0) {
                response.write(buffer.array(), 0, buffer.position());
                buffer.clear();
            }
            Matcher m = API_VERSION.matcher(response.toString(StandardCharsets.UTF_8));
            if (m.find()) {
                int major = Integer.parseInt(m.group(1));
                int minor = Integer.parseInt(m.group(2));
                if (major == 1 && minor < 44) {
                    System.setProperty("api.version", major + "." + minor);
                }
            }
        } catch (IOException e) {
            // No answer: Testcontainers will report the engine as unavailable with its own diagnostics.
        }
    }
}
