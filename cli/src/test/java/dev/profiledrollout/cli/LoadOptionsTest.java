package dev.profiledrollout.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** {@code bench} and {@code capacity} take the shared load options from one mixin, with one help text each. */
class LoadOptionsTest {

    private static final List<String> SHARED = List.of("--model", "--random-input-len", "--random-output-len");

    @Test
    void both_commands_take_the_mixin_options_with_the_same_defaults_and_help() {
        CommandLine main = Main.commandLine();
        for (String name : SHARED) {
            OptionSpec bench = main.getSubcommands().get("bench").getCommandSpec().findOption(name);
            OptionSpec capacity = main.getSubcommands().get("capacity").getCommandSpec().findOption(name);
            assertThat(bench).as(name).isNotNull();
            assertThat(capacity).as(name).isNotNull();
            assertThat(bench.description()).as(name).containsExactly(capacity.description());
            assertThat(bench.defaultValue()).as(name).isEqualTo(capacity.defaultValue());
        }
        assertThat(main.getSubcommands().get("capacity").getCommandSpec().findOption("--random-input-len")
                .defaultValue()).isEqualTo("1024");
    }

    @Test
    void parsed_values_reach_each_command() {
        BenchCommand bench = new BenchCommand();
        new CommandLine(bench).parseArgs("--model", "m", "--random-input-len", "64", "--random-output-len", "8");
        LoadOptions load = bench.load;
        assertThat(load.model).isEqualTo("m");
        assertThat(load.randomInputLen).isEqualTo(64);
        assertThat(load.randomOutputLen).isEqualTo(8);

        CapacityCommand capacity = new CapacityCommand();
        new CommandLine(capacity).parseArgs("--url", "http://x:1", "--slo", "ttft.p99<1s");
        LoadOptions defaults = capacity.load;
        assertThat(defaults.model).isNull();
        assertThat(defaults.randomInputLen).isEqualTo(1024);
        assertThat(defaults.randomOutputLen).isEqualTo(128);
    }
}
