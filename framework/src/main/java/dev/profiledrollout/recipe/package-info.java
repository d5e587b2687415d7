/**
 * srtctl recipes: the YAML job files of {@code srtctl} (NVIDIA/srt-slurm), read as profile windows.
 *
 * <h2>Usage</h2>
 * On a test, {@link dev.profiledrollout.RolloutRecipe}; on the command line, {@code profiled-rollout profile --recipe
 * FILE --router-url URL}; in code, {@link dev.profiledrollout.recipe.SrtctlRecipe#read(java.nio.file.Path)}:
 * <pre>{@code
 * SrtctlRecipe recipe = SrtctlRecipe.read(Path.of("recipes/gb200-fp8-profiling.yaml"));
 * for (SrtctlRecipe.Window w : recipe.windows()) {
 *     System.out.println(w.mode() + ": steps " + w.startStep() + ".." + w.stopStep() + ", ISL " + w.inputTokens()
 *             + ", OSL " + w.outputTokens() + ", concurrency " + w.concurrency());
 * }
 * }</pre>
 *
 * <h2>Units and errors</h2>
 * Steps are scheduler steps (one forward batch each); token counts are tokens; request rates are requests per second.
 * A recipe that cannot be read or run throws {@link dev.profiledrollout.recipe.RecipeException}, whose message names
 * the recipe, the YAML field and the fix.
 *
 * <h2>Thread safety</h2>
 * Recipes are immutable; parsing may run on any thread.
 */
package dev.profiledrollout.recipe;
