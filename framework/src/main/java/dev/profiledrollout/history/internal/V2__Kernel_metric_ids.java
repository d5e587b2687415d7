package dev.profiledrollout.history.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import dev.profiledrollout.history.HistoryMetrics;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;
import org.apiguardian.api.API;

/**
 * Schema version 2 (a Flyway Java migration: the new ids are a SHA-256 no SQL dialect shares): the legend table
 * {@code kernel_names (metric, name)} of the short top-kernel metric ids ({@link HistoryMetrics#kernelMetric}), and
 * every stored top-kernel metric of version 1, {@code kernel.top.<kernel name>.ms} (up to 200 characters), renamed to
 * its short id with its name in the legend, so that old and new runs form one series. Plain JDBC, the same on SQLite
 * and PostgreSQL; Flyway runs it in one transaction.
 */
@API(status = INTERNAL, since = "0.2")
@SuppressWarnings("checkstyle:TypeName") // Flyway reads the version from the class name
public final class V2__Kernel_metric_ids extends BaseJavaMigration {

    private static final String OLD_PREFIX = "kernel.top.";

    @Override
    public void migrate(Context context) throws SQLException {
        Connection connection = context.getConnection();
        try (Statement sql = connection.createStatement()) {
            sql.execute("CREATE TABLE kernel_names (metric VARCHAR(200) NOT NULL PRIMARY KEY, name TEXT NOT NULL)");
        }
        List<String> old = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT DISTINCT name FROM run_metrics WHERE name LIKE ?")) {
            select.setString(1, "kernel.top.%");
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    old.add(rows.getString(1));
                }
            }
        }
        try (PreparedStatement legend = connection.prepareStatement(
                "INSERT INTO kernel_names (metric, name) VALUES (?, ?)");
                PreparedStatement rename = connection.prepareStatement(
                        "UPDATE run_metrics SET name = ? WHERE name = ?")) {
            for (String name : old) {
                if (!name.startsWith(OLD_PREFIX) || !name.endsWith(".ms") || name.length() <= OLD_PREFIX.length() + 3) {
                    continue; // LIKE's _ wildcard and odd names: only exact old ids are renamed
                }
                String kernel = name.substring(OLD_PREFIX.length(), name.length() - ".ms".length());
                String id = HistoryMetrics.kernelMetric(kernel);
                legend.setString(1, id);
                legend.setString(2, kernel);
                legend.executeUpdate();
                rename.setString(1, id);
                rename.setString(2, name);
                rename.executeUpdate();
            }
        }
    }
}
