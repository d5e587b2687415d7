package dev.profiledrollout.cli;

import dev.profiledrollout.recipe.SrtctlRecipe;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * {@code profile --recipe}'s {@code --max-isl}, {@code --max-osl} and {@code --max-concurrency}: caps on a recipe's
 * load, for running production recipes (ISL/OSL 1000, sweeps to concurrency 1024) against a small engine such as the
 * simulator. A capped value is printed with the recipe's; steps and profiler settings are never changed.
 *
 * @param maxIsl         the most prompt tokens per request, or 0 for the recipe's
 * @param maxOsl         the most output tokens per request, or 0 for the recipe's
 * @param maxConcurrency the most requests in flight in any window or stage, or 0 for the recipe's; stages of a sweep
 *                       that collapse to the same capped concurrency run once
 */
record RecipeLoadCaps(int maxIsl, int maxOsl, int maxConcurrency) {

    static final RecipeLoadCaps NONE = new RecipeLoadCaps(0, 0, 0);

    RecipeLoadCaps {
        if (maxIsl < 0 || maxOsl < 0 || maxConcurrency < 0) {
            throw new IllegalArgumentException("--max-isl, --max-osl and --max-concurrency must be positive");
        }
    }

    int isl(int recipe) {
        return cap(recipe, maxIsl);
    }

    int osl(int recipe) {
        return cap(recipe, maxOsl);
    }

    int concurrency(int recipe) {
        return cap(recipe, maxConcurrency);
    }

    /** @return the sweep's concurrencies, capped, in order, without repeats */
    List<Integer> sweep(SrtctlRecipe recipe) {
        return new ArrayList<>(new LinkedHashSet<>(recipe.sweep().stream().map(this::concurrency).toList()));
    }

    boolean any() {
        return maxIsl > 0 || maxOsl > 0 || maxConcurrency > 0;
    }

    /** @return e.g. {@code "ISL 1000 → 64"}, or the value alone when not capped */
    static String shown(String name, int recipe, int used) {
        return name + " " + (recipe == used ? String.valueOf(recipe) : recipe + " → " + used + " (capped)");
    }

    private static int cap(int value, int max) {
        return max > 0 ? Math.min(value, max) : value;
    }
}
