package dev.profiledrollout.junit.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apiguardian.api.API;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

/**
 * Every configuration problem of one test, gathered before anything starts so that a user fixes them in one round:
 * invalid keys, annotation attributes and recipe settings. Each problem is one line naming the key or attribute, the
 * bad value and the fix. Not thread-safe; one instance per check.
 */
@API(status = INTERNAL, since = "0.1")
public final class ConfigurationProblems {

    private final List<String> problems = new ArrayList<>();

    /** Records {@code what + " is invalid: " + allowed} unless {@code ok}. */
    public void check(boolean ok, String what, String allowed) {
        if (!ok) {
            add(what + " is invalid: " + allowed);
        }
    }

    /** Records one problem (once), a sentence naming the key or attribute, the value and the fix. */
    public void add(String problem) {
        if (!problems.contains(problem)) {
            problems.add(problem);
        }
    }

    /**
     * Runs {@code check}; an {@link ExtensionConfigurationException} it throws becomes a problem (each of an
     * {@link InvalidConfiguration}'s problems when it lists several) instead of ending the check.
     *
     * @return the value, or empty when the check failed
     */
    public <T> Optional<T> attempt(Supplier<T> check) {
        try {
            return Optional.ofNullable(check.get());
        } catch (InvalidConfiguration e) {
            e.problems().forEach(this::add);
            return Optional.empty();
        } catch (ExtensionConfigurationException e) {
            add(e.getMessage());
            return Optional.empty();
        }
    }

    /** As {@link #attempt(Supplier)}, for a check without a value. */
    public void attempt(Runnable check) {
        attempt(() -> {
            check.run();
            return Boolean.TRUE;
        });
    }

    /** @return the problems so far, in the order found */
    public List<String> list() {
        return List.copyOf(problems);
    }

    /** @throws InvalidConfiguration listing every problem, when there is any */
    public void throwIfAny() {
        if (!problems.isEmpty()) {
            throw new InvalidConfiguration(problems);
        }
    }

    /**
     * Several configuration problems in one error. With one problem the message is that problem; with more, a count
     * and one numbered line per problem.
     */
    @API(status = INTERNAL, since = "0.1")
    public static final class InvalidConfiguration extends ExtensionConfigurationException {

        private static final long serialVersionUID = 1L;

        private final transient List<String> problems;

        InvalidConfiguration(List<String> problems) {
            super(message(problems));
            this.problems = List.copyOf(problems);
        }

        /** @return each problem, one sentence each */
        public List<String> problems() {
            return problems;
        }

        private static String message(List<String> problems) {
            if (problems.size() == 1) {
                return problems.get(0);
            }
            StringBuilder out = new StringBuilder(problems.size() + " configuration problems; fix them all before"
                    + " the run:");
            for (int i = 0; i < problems.size(); i++) {
                out.append(System.lineSeparator()).append("  ").append(i + 1).append(". ").append(problems.get(i));
            }
            return out.toString();
        }
    }
}
