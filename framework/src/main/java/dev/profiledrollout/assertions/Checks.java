package dev.profiledrollout.assertions;

import dev.profiledrollout.verdict.Verdict;

/** Verdicts of the checks that count things (samples, failed requests, offending kernels). */
final class Checks {

    private Checks() {
    }

    /**
     * A count compared with a budget: the texts are the plain numbers, the gap is null for a budget of 0.
     *
     * @param scope {@link Verdict#scope()}, not null
     */
    static Verdict count(Verdict.Kind kind, String scope, String measure, String relation, long actual, long budget,
            String detail, boolean passed) {
        return Verdict.of(kind, measure, relation, actual, budget, "", String.valueOf(actual), String.valueOf(budget),
                detail, passed).withScope(scope);
    }
}
