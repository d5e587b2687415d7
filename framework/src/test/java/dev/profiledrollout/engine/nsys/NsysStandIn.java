package dev.profiledrollout.engine.nsys;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/** Copies {@code nsys/nsys-standin.sh} from the test resources into a directory and makes it executable. */
public final class NsysStandIn {

    private NsysStandIn() {
    }

    /** @return the executable script; its invocations are logged to {@code nsys-args.log} beside it */
    public static Path install(Path dir) throws IOException {
        Path script = dir.resolve("nsys");
        try (InputStream in = NsysStandIn.class.getResourceAsStream("/nsys/nsys-standin.sh")) {
            Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
        }
        if (!script.toFile().setExecutable(true)) {
            throw new IOException("Could not make " + script + " executable");
        }
        return script;
    }

    /** @return the logged invocations, one line of arguments each */
    public static List<String> invocations(Path dir) throws IOException {
        Path log = dir.resolve("nsys-args.log");
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }
}
