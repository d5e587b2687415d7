package dev.profiledrollout.history;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real PostgreSQL for tests: the server named by {@code PROFILEDROLLOUT_TEST_POSTGRES_URL} (with
 * {@code _USER} and {@code _PASSWORD}) when set, else one started from Debian's binaries
 * ({@code /usr/lib/postgresql/<version>/bin/initdb} and {@code pg_ctl}, package {@code postgresql}) in a temporary
 * directory on a free loopback port, trusted logins only from there, stopped and deleted when the test run ends. As
 * root the binaries run as the {@code postgres} user, since {@code initdb} refuses to run as root. One server serves
 * every test class of the JVM; each {@link #newDatabase()} is a fresh database. Tests that ask for one are skipped
 * (an assumption) only when there is neither a URL nor the binaries.
 *
 * <pre>{@code @RegisterExtension static final PostgresServer POSTGRES = new PostgresServer();}</pre>
 */
public final class PostgresServer implements BeforeAllCallback {

    static final String URL_ENV = "PROFILEDROLLOUT_TEST_POSTGRES_URL";
    private static final AtomicInteger DATABASES = new AtomicInteger();

    private Server server;

    @Override
    public void beforeAll(ExtensionContext context) {
        server = context.getRoot().getStore(ExtensionContext.Namespace.create(PostgresServer.class))
                .getOrComputeIfAbsent(Server.class, k -> new Server(), Server.class);
    }

    /**
     * A new, empty database.
     *
     * @return its JDBC URL
     */
    public String newDatabase() {
        Server s = server();
        String name = "pr_test_" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
        try (Connection admin = DriverManager.getConnection(s.url, s.user, s.password);
                Statement sql = admin.createStatement()) {
            sql.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("Could not create database " + name + " on " + s.url + ": "
                    + e.getMessage(), e);
        }
        s.created.add(name);
        return withDatabase(s.url, name);
    }

    /** The login user, or null. */
    public String user() {
        return server().user;
    }

    /** The password, or null. */
    public String password() {
        return server().password;
    }

    private Server server() {
        if (server == null) {
            throw new IllegalStateException("register PostgresServer with @RegisterExtension on a static field");
        }
        server.start();
        return server;
    }

    private static String withDatabase(String url, String database) {
        int query = url.indexOf('?');
        String base = query < 0 ? url : url.substring(0, query);
        String rest = query < 0 ? "" : url.substring(query);
        return base.substring(0, base.lastIndexOf('/') + 1) + database + rest;
    }

    /** The one server of the JVM; the root store closes it at the end of the run. */
    private static final class Server implements AutoCloseable {

        final List<String> created = new ArrayList<>();
        String url;
        String user;
        String password;
        private boolean started;
        private Path directory;
        private Path pgCtl;
        private List<String> asPostgres = List.of();

        synchronized void start() {
            if (started) {
                return;
            }
            String external = System.getenv(URL_ENV);
            if (external != null && !external.isBlank()) {
                url = external;
                user = System.getenv(URL_ENV.replace("_URL", "_USER"));
                password = System.getenv(URL_ENV.replace("_URL", "_PASSWORD"));
                started = true;
                return;
            }
            Path bin = binaries();
            assumeTrue(bin != null, "no PostgreSQL: set " + URL_ENV + " or install Debian's postgresql package");
            pgCtl = bin.resolve("pg_ctl");
            try {
                directory = Files.createTempDirectory("profiledrollout-postgres");
                if ("root".equals(System.getProperty("user.name"))) {
                    // initdb refuses to run as root; the data directory must belong to the user that runs it
                    UserPrincipalLookupService users = directory.getFileSystem().getUserPrincipalLookupService();
                    Files.setOwner(directory, users.lookupPrincipalByName("postgres"));
                    asPostgres = List.of("runuser", "-u", "postgres", "--");
                }
                Path data = directory.resolve("data");
                run(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", "postgres",
                        "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"));
                int port;
                try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                    port = probe.getLocalPort();
                }
                run(List.of(pgCtl.toString(), "-D", data.toString(), "-l", directory.resolve("server.log").toString(),
                        "-w", "-t", "60", "-o", "-p " + port + " -k " + directory + " -c listen_addresses=127.0.0.1"
                                + " -c fsync=off -c max_connections=200", "start"));
                url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
                user = "postgres";
                password = null;
                started = true;
            } catch (IOException e) {
                throw new UncheckedIOException("Could not start PostgreSQL in " + directory + ": " + e.getMessage(), e);
            }
        }

        private static Path binaries() {
            Path root = Path.of("/usr/lib/postgresql");
            if (!Files.isDirectory(root)) {
                return null;
            }
            try (Stream<Path> versions = Files.list(root)) {
                return versions.map(v -> v.resolve("bin"))
                        .filter(b -> Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("pg_ctl")))
                        .max(Comparator.comparingInt(b -> version(b.getParent().getFileName().toString())))
                        .orElse(null);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static int version(String name) {
            try {
                return Integer.parseInt(name);
            } catch (NumberFormatException e) {
                return 0;
            }
        }

        private void run(List<String> command) throws IOException {
            List<String> full = new ArrayList<>(asPostgres);
            full.addAll(command);
            Path output = directory.resolve("command.log");
            Process process = new ProcessBuilder(full).directory(directory.toFile()).redirectErrorStream(true)
                    .redirectOutput(output.toFile()).start();
            try {
                if (!process.waitFor(120, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    throw new IOException(String.join(" ", full) + " did not finish in 120 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while running " + String.join(" ", full), e);
            }
            if (process.exitValue() != 0) {
                String log = Files.readString(output);
                Path serverLog = directory.resolve("server.log");
                if (Files.exists(serverLog)) {
                    log += "\n--- server.log ---\n" + Files.readString(serverLog);
                }
                throw new IOException(String.join(" ", full) + " exited with " + process.exitValue() + ":\n" + log);
            }
        }

        @Override
        public synchronized void close() throws IOException, SQLException {
            if (!started) {
                return;
            }
            started = false;
            if (directory == null) {
                try (Connection admin = DriverManager.getConnection(url, user, password);
                        Statement sql = admin.createStatement()) {
                    for (String name : created) {
                        sql.execute("DROP DATABASE IF EXISTS " + name.toLowerCase(Locale.ROOT) + " WITH (FORCE)");
                    }
                }
                return;
            }
            try {
                run(List.of(pgCtl.toString(), "-D", directory.resolve("data").toString(), "-m", "immediate", "-w",
                        "stop"));
            } finally {
                try (Stream<Path> files = Files.walk(directory)) {
                    for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
    }
}
