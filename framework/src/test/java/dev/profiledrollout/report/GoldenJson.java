package dev.profiledrollout.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Compares JSON output with a golden file under {@code src/test/resources/golden/}: every field of the golden must be
 * present with an equal value (numbers equal in type and value, as parsed from text), fields of an object in the
 * golden's order, arrays element by element. A field the golden lacks fails the comparison unless its JSON pointer
 * matches one of the {@code added} patterns ({@code *} stands for one path segment, e.g. {@code /trace/kernels/*&#47;p50Ns}).
 *
 * <p>With {@code -Dgolden.update=true} the golden file is (re)written from the actual output instead, for a
 * deliberate change whose diff is then reviewed.
 */
public final class GoldenJson {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private GoldenJson() {
    }

    /**
     * @param actual JSON text
     * @param golden file name under {@code golden/} on the test classpath
     * @param added  JSON pointer patterns of fields the output may have beyond the golden's
     */
    public static void assertMatches(String actual, String golden, String... added) {
        try {
            JsonNode actualTree = JSON.readTree(actual);
            if (Boolean.getBoolean("golden.update")) {
                Path file = Path.of("src/test/resources/golden").resolve(golden);
                Files.createDirectories(file.getParent());
                Files.writeString(file, JSON.writeValueAsString(actualTree) + "\n", StandardCharsets.UTF_8);
                return;
            }
            JsonNode expected;
            try (InputStream in = GoldenJson.class.getResourceAsStream("/golden/" + golden)) {
                assertThat(in).as("golden/%s on the test classpath (create it with -Dgolden.update=true)", golden)
                        .isNotNull();
                expected = JSON.readTree(in);
            }
            List<Pattern> allowed = new ArrayList<>();
            for (String a : added) {
                allowed.add(Pattern.compile(Pattern.quote(a).replace("*", "\\E[^/]+\\Q")));
            }
            List<String> differences = new ArrayList<>();
            compare("", expected, actualTree, allowed, differences);
            assertThat(differences).as("differences from golden/%s", golden).isEmpty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void compare(String pointer, JsonNode expected, JsonNode actual, List<Pattern> allowed,
            List<String> out) {
        if (expected.isObject() && actual.isObject()) {
            List<String> order = new ArrayList<>();
            for (Map.Entry<String, JsonNode> field : actual.properties()) {
                String path = pointer + "/" + field.getKey();
                if (expected.has(field.getKey())) {
                    order.add(field.getKey());
                } else if (allowed.stream().noneMatch(p -> p.matcher(path).matches())) {
                    out.add(path + ": not in the golden file");
                }
            }
            List<String> expectedOrder = new ArrayList<>();
            expected.properties().forEach(field -> expectedOrder.add(field.getKey()));
            for (String name : expectedOrder) {
                if (!actual.has(name)) {
                    out.add(pointer + "/" + name + ": missing");
                } else {
                    compare(pointer + "/" + name, expected.get(name), actual.get(name), allowed, out);
                }
            }
            if (order.size() == expectedOrder.size() && !order.equals(expectedOrder)) {
                out.add(pointer + ": fields in order " + order + ", golden has " + expectedOrder);
            }
        } else if (expected.isArray() && actual.isArray()) {
            if (expected.size() != actual.size()) {
                out.add(pointer + ": " + actual.size() + " elements, golden has " + expected.size());
            }
            for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
                compare(pointer + "/" + i, expected.get(i), actual.get(i), allowed, out);
            }
        } else if (!expected.equals(actual)) {
            out.add(pointer + ": " + actual + " (" + actual.getNodeType() + " " + actual.numberType() + "), golden has "
                    + expected + " (" + expected.getNodeType() + " " + expected.numberType() + ")");
        }
    }
}
