package dev.profiledrollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.profiledrollout.ProfiledRolloutKeys.Key;
import dev.profiledrollout.ProfiledRolloutKeys.Scope;
import dev.profiledrollout.report.TestReport;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.commonmark.ext.gfm.tables.TableBlock;
import org.commonmark.ext.gfm.tables.TableBody;
import org.commonmark.ext.gfm.tables.TableCell;
import org.commonmark.ext.gfm.tables.TableHead;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.node.Code;
import org.commonmark.node.Heading;
import org.commonmark.node.Node;
import org.commonmark.node.Text;
import org.commonmark.parser.Parser;
import org.junit.jupiter.api.Test;

class ProfiledRolloutKeysTest {

    private static final Pattern FIRST_CODE_SPAN = Pattern.compile("^\\s*`([^`]*)`");

    /** One row of the README's configuration table: its keys, and the default cell split per key. */
    private record Row(List<String> keys, List<String> defaults) {
    }

    @Test
    void every_constant_is_listed_once_and_every_listed_key_is_a_constant() throws IllegalAccessException {
        List<String> constants = new ArrayList<>();
        for (Field field : ProfiledRolloutKeys.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                constants.add((String) field.get(null));
            }
        }

        assertThat(ProfiledRolloutKeys.all()).extracting(Key::name)
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(constants)
                .allMatch(name -> name.startsWith("profiledrollout."));
    }

    @Test
    void the_readme_configuration_table_lists_exactly_the_keys_in_the_same_order_with_their_defaults()
            throws IOException {
        List<Row> rows = readmeConfigurationTable();
        Map<String, String> readmeDefaults = new LinkedHashMap<>();
        for (Row row : rows) {
            for (int i = 0; i < row.keys().size(); i++) {
                String cell = row.defaults().size() == 1 ? row.defaults().get(0) : row.defaults().get(i);
                assertThat(readmeDefaults.put(row.keys().get(i), cell)).as("README lists %s twice", row.keys().get(i))
                        .isNull();
            }
        }

        assertThat(readmeDefaults.keySet()).as("keys of the README's configuration table")
                .containsExactlyElementsOf(ProfiledRolloutKeys.all().stream().map(Key::name).toList());
        for (Key key : ProfiledRolloutKeys.all()) {
            String cell = readmeDefaults.get(key.name());
            Optional<String> stated = firstCodeSpan(cell);
            if (key.defaultValue().isPresent()) {
                assertThat(stated).as("README default of %s: '%s'", key.name(), cell).contains(key.defaultValue().get());
            } else {
                assertThat(stated).as("README states a literal default for %s ('%s'), the class none", key.name(), cell)
                        .isEmpty();
            }
        }
    }

    @Test
    void defaults_the_list_states_are_the_ones_the_readers_use() {
        assertThat(ProfiledRolloutKeys.defaultValue(ProfiledRolloutKeys.REPORT_ATTACH_MAX_BYTES))
                .contains(String.valueOf(TestReport.Options.DEFAULTS.maxTraceBytes()));
        assertThat(ProfiledRolloutKeys.defaultValue(ProfiledRolloutKeys.REPORT_ATTACH_TRACES))
                .contains(String.valueOf(TestReport.Options.DEFAULTS.attachTraces()));
        assertThat(TestReport.Options.from(key -> Optional.empty())).isEqualTo(TestReport.Options.DEFAULTS);
    }

    @Test
    void environment_variables_upper_case_the_key_and_replace_dots() {
        assertThat(ProfiledRolloutKeys.find(ProfiledRolloutKeys.REPORT_ATTACH_MAX_BYTES).orElseThrow()
                .environmentVariable()).contains("PROFILEDROLLOUT_REPORT_ATTACH_MAXBYTES");
        assertThat(ProfiledRolloutKeys.find(ProfiledRolloutKeys.CONTAINER_TP).orElseThrow().environmentVariable())
                .contains("PROFILEDROLLOUT_CONTAINER_TP");
        Key threads = ProfiledRolloutKeys.find(ProfiledRolloutKeys.LOAD_THREADS).orElseThrow();
        assertThat(threads.scope()).isEqualTo(Scope.SYSTEM_PROPERTY);
        assertThat(threads.environmentVariable()).isEmpty();
    }

    @Test
    void profile_keys_follow_the_listed_pattern_and_have_an_environment_form() {
        String key = ProfiledRolloutKeys.profileKey("vllm-a100", ProfiledRolloutKeys.ENGINE_URL);

        assertThat(key).isEqualTo("profiledrollout.profiles.vllm-a100.engine.url");
        assertThat(ProfiledRolloutKeys.environmentVariable(key)).isEqualTo("PROFILEDROLLOUT_PROFILES_VLLM_A100_ENGINE_URL");
        assertThat(ProfiledRolloutKeys.find(ProfiledRolloutKeys.PROFILE_KEY_PATTERN).orElseThrow().environmentVariable())
                .contains("PROFILEDROLLOUT_PROFILES_<NAME>_<KEY>");
        assertThatThrownBy(() -> ProfiledRolloutKeys.profileKey("a", "engine.url"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void an_unknown_key_has_no_default_and_says_where_the_keys_are() {
        assertThat(ProfiledRolloutKeys.find("profiledrollout.engine.uri")).isEmpty();
        assertThatThrownBy(() -> ProfiledRolloutKeys.defaultValue("profiledrollout.engine.uri"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("profiledrollout.engine.uri").hasMessageContaining("ProfiledRolloutKeys.all()");
    }

    private static Optional<String> firstCodeSpan(String cell) {
        Matcher m = FIRST_CODE_SPAN.matcher(cell);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    /**
     * The first table under the README's {@code ## Configuration}: per row the keys in the first column's code spans,
     * and the third column, split at {@code " / "} in rows of several keys when it gives one default per key.
     */
    private static List<Row> readmeConfigurationTable() throws IOException {
        Path readme = Path.of("").toAbsolutePath().resolve("../README.md").normalize();
        Node document = Parser.builder().extensions(List.of(TablesExtension.create())).build()
                .parse(Files.readString(readme));
        boolean inSection = false;
        for (Node node = document.getFirstChild(); node != null; node = node.getNext()) {
            if (node instanceof Heading heading && heading.getLevel() == 2) {
                inSection = text(heading).equals("Configuration");
            } else if (inSection && node instanceof TableBlock table) {
                return rows(table);
            }
        }
        throw new AssertionError("no table under '## Configuration' in " + readme);
    }

    private static List<Row> rows(TableBlock table) {
        TableHead head = (TableHead) table.getFirstChild();
        assertThat(cells(head.getFirstChild()).stream().map(ProfiledRolloutKeysTest::text).toList())
                .containsExactly("key", "meaning", "default");
        List<Row> rows = new ArrayList<>();
        for (Node row = ((TableBody) head.getNext()).getFirstChild(); row != null; row = row.getNext()) {
            List<TableCell> cells = cells(row);
            List<String> keys = new ArrayList<>();
            for (Node n = cells.get(0).getFirstChild(); n != null; n = n.getNext()) {
                if (n instanceof Code code && code.getLiteral().startsWith("profiledrollout.")) {
                    keys.add(code.getLiteral());
                }
            }
            assertThat(keys).as("keys in row '%s'", text(cells.get(0))).isNotEmpty();
            String defaults = text(cells.get(2));
            List<String> perKey = keys.size() == 1 ? List.of(defaults) : Arrays.asList(defaults.split(" / "));
            assertThat(perKey.size()).as("defaults '%s' for %s: one for all, or one per key", defaults, keys)
                    .isIn(1, keys.size());
            rows.add(new Row(keys, perKey));
        }
        return rows;
    }

    private static List<TableCell> cells(Node row) {
        List<TableCell> cells = new ArrayList<>();
        for (Node n = row.getFirstChild(); n != null; n = n.getNext()) {
            cells.add((TableCell) n);
        }
        return cells;
    }

    /** The node's text with code spans kept in backticks, as written. */
    private static String text(Node node) {
        StringBuilder out = new StringBuilder();
        for (Node n = node.getFirstChild(); n != null; n = n.getNext()) {
            if (n instanceof Text t) {
                out.append(t.getLiteral());
            } else if (n instanceof Code c) {
                out.append('`').append(c.getLiteral()).append('`');
            } else {
                out.append(text(n));
            }
        }
        return out.toString();
    }
}
