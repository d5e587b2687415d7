package dev.profiledrollout.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@link Main#commandLine(String...)}: only the named subcommand is set up, and it behaves as when all are. */
class MainTest {

    @Test
    void namedSubcommandIsTheOnlyOneSetUpAndHasTheSameUsage() {
        CommandLine all = Main.commandLine();
        assertThat(all.getSubcommands().keySet()).containsExactly("analyze", "simulate", "bench", "capacity",
                "workers", "profile", "engine-shim", "report", "history", "help");
        for (String name : all.getSubcommands().keySet()) {
            if (name.equals("help")) {
                continue;
            }
            CommandLine lazy = Main.commandLine(name, "--help");
            assertThat(lazy.getSubcommands().keySet()).as(name).containsExactly(name);
            assertThat(lazy.getSubcommands().get(name).getUsageMessage())
                    .as(name).isEqualTo(all.getSubcommands().get(name).getUsageMessage());
        }
    }

    @Test
    void anythingElseSetsUpEverySubcommand() {
        for (List<String> args : List.of(List.<String>of(), List.of("--help"), List.of("help", "analyze"),
                List.of("no-such-command"))) {
            assertThat(Main.commandLine(args.toArray(String[]::new)).getSubcommands()).as(args.toString())
                    .hasSize(Main.COMMANDS.size());
        }
    }

    @Test
    void helpOfASubcommandAndAnUnknownCommandAsBefore() {
        StringWriter out = new StringWriter();
        CommandLine help = Main.commandLine("help", "analyze");
        help.setOut(new PrintWriter(out));
        assertThat(help.execute("help", "analyze")).isZero();
        assertThat(out.toString()).startsWith("Usage: profiled-rollout analyze");

        StringWriter err = new StringWriter();
        CommandLine unknown = Main.commandLine("anlyze");
        unknown.setErr(new PrintWriter(err));
        assertThat(unknown.execute("anlyze")).isEqualTo(2);
        assertThat(err.toString()).contains("Unmatched argument").contains("analyze");
    }
}
