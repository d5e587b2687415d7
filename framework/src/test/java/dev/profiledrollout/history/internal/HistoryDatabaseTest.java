package dev.profiledrollout.history.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class HistoryDatabaseTest {

    @Test
    void the_known_versions_are_the_migrations_on_the_classpath() throws IOException, URISyntaxException {
        Path migrations = Path.of(HistoryDatabase.class.getResource("/db/history").toURI());
        Pattern versioned = Pattern.compile("V([0-9._]+)__.+\\.sql");
        Set<String> versions;
        try (Stream<Path> files = Files.list(migrations)) {
            versions = files.map(f -> versioned.matcher(f.getFileName().toString()))
                    .filter(Matcher::matches)
                    .map(m -> m.group(1).replace('_', '.'))
                    .collect(Collectors.toCollection(java.util.HashSet::new));
        }
        HistoryDatabase.JAVA_MIGRATIONS.forEach(m -> versions.add(m.getVersion().toString()));
        assertThat(versions).isEqualTo(HistoryDatabase.MIGRATIONS);
    }

    @Test
    void locations_drop_user_info_queries_and_properties() {
        assertThat(HistoryDatabase.location("jdbc:postgresql://ci:s3cret@db.example:5432/history?sslmode=require"))
                .isEqualTo("jdbc:postgresql://db.example:5432/history");
        assertThat(HistoryDatabase.location("jdbc:postgresql://db1,db2/history?password=s3cret"))
                .isEqualTo("jdbc:postgresql://db1,db2/history");
        assertThat(HistoryDatabase.location("jdbc:sqlserver://db;user=ci;password=s3cret"))
                .isEqualTo("jdbc:sqlserver://db");
        assertThat(HistoryDatabase.location("jdbc:sqlite:.profiled-rollout/history.db"))
                .isEqualTo("jdbc:sqlite:.profiled-rollout/history.db");
    }
}
