package dev.profiledrollout.cli;

import static org.apiguardian.api.API.Status.INTERNAL;

import org.apiguardian.api.API;
import picocli.CommandLine.Option;

/**
 * The load options {@code bench} and {@code capacity} share, as one picocli mixin ({@code @Mixin LoadOptions load}):
 * the model the requests name and the random workload's prompt and output lengths, in tokens.
 */
@API(status = INTERNAL, since = "0.2")
public final class LoadOptions {

    /** {@code --model}: the requests' {@code model} field, or null for the first id of {@code GET /v1/models}. */
    @Option(names = "--model", description = "The model field (default: the first id of GET /v1/models).")
    String model;

    /** {@code --random-input-len}: prompt tokens per request of the random workload (ISL). */
    @Option(names = "--random-input-len", defaultValue = "1024", description = "Default ${DEFAULT-VALUE}.")
    int randomInputLen;

    /** {@code --random-output-len}: output tokens per request (OSL); {@code bench}'s JSONL prompts' default too. */
    @Option(names = "--random-output-len", defaultValue = "128", description = "Default ${DEFAULT-VALUE}.")
    int randomOutputLen;
}
