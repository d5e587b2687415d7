package dev.profiledrollout.recipe;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.apiguardian.api.API;

/**
 * An srtctl recipe that cannot be read, or that asks for something a profile window cannot do. The message names the
 * recipe, the YAML field (for example {@code profiling.decode.stop_step}) and the fix.
 */
@API(status = EXPERIMENTAL, since = "0.1.0")
public final class RecipeException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String source;
    private final String field;

    /**
     * @param source  the recipe's file path or classpath resource, not null
     * @param field   the dotted YAML path of the offending field, or null when the problem is the whole file
     * @param message what is wrong and how to fix it, without the source (it is prepended)
     * @param cause   the parser's exception, or null
     */
    public RecipeException(String source, String field, String message, Throwable cause) {
        super("srtctl recipe " + source + ": " + message, cause);
        this.source = source;
        this.field = field;
    }

    /** @return the recipe's file path or classpath resource, as given; not null */
    public String source() {
        return source;
    }

    /** @return the dotted YAML path of the offending field (e.g. {@code profiling.type}), or null for the whole file */
    public String field() {
        return field;
    }
}
