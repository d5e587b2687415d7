package dev.profiledrollout;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every public top-level type of every module says how far it is API ({@code @API(status = …)}, as JUnit marks its
 * own), and a type of an {@code internal} package is {@code INTERNAL}.
 */
class ApiSurfaceTest {

    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "^public (?:final |abstract |sealed |non-sealed )*(?:class|interface|enum|record|@interface) (\\w+)",
            Pattern.MULTILINE);
    private static final Pattern API = Pattern.compile("^@API\\(status = (\\w+)", Pattern.MULTILINE);

    @Test
    void every_public_type_is_marked_and_internal_packages_are_internal() throws IOException {
        List<String> unmarked = new ArrayList<>();
        List<String> notInternal = new ArrayList<>();
        int checked = 0;
        try (Stream<Path> modules = Files.list(Path.of("..").toAbsolutePath().normalize())) {
            for (Path main : modules.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).toList()) {
                try (Stream<Path> sources = Files.walk(main)) {
                    for (Path file : sources.filter(f -> f.toString().endsWith(".java")).toList()) {
                        String source = Files.readString(file);
                        Matcher type = PUBLIC_TYPE.matcher(source);
                        if (!type.find()) {
                            continue;
                        }
                        checked++;
                        Matcher api = API.matcher(source);
                        String name = main.relativize(file).toString();
                        if (!api.find() || api.start() > type.start()) {
                            unmarked.add(name);
                        } else if (name.contains("/internal/") && !api.group(1).equals("INTERNAL")) {
                            notInternal.add(name + " (" + api.group(1) + ")");
                        }
                    }
                }
            }
        }
        assertThat(checked).as("public types found under ../*/src/main/java").isGreaterThan(100);
        assertThat(unmarked).as("public types without @API(status = …)").isEmpty();
        assertThat(notInternal).as("types in internal packages not marked INTERNAL").isEmpty();
    }
}
