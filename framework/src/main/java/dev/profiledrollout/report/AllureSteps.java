package dev.profiledrollout.report;

import static org.apiguardian.api.API.Status.INTERNAL;

import io.qameta.allure.Allure;
import io.qameta.allure.AllureLifecycle;
import io.qameta.allure.model.Label;
import io.qameta.allure.model.Parameter;
import io.qameta.allure.model.Status;
import io.qameta.allure.model.StepResult;
import io.qameta.allure.util.ResultsUtils;
import java.util.Map;
import java.util.UUID;
import org.apiguardian.api.API;

/**
 * Allure steps, parameters, labels and attachments for the profiled test running on this thread, through
 * {@link Allure#getLifecycle()}.
 *
 * <p>Everything here does nothing, and logs nothing, unless an Allure test case is running on the calling thread
 * (with {@code allure-jupiter} on the test classpath): suites without Allure pay nothing.
 */
@API(status = INTERNAL, since = "0.1")
public final class AllureSteps {

    private AllureSteps() {
    }

    /** @return whether an Allure test case is running on this thread */
    public static boolean active() {
        return Allure.getLifecycle().getCurrentTestCase().isPresent();
    }

    /**
     * A step's body; may throw a checked exception, which the step rethrows.
     *
     * @param <T> what the body returns
     * @param <E> what it may throw
     */
    @FunctionalInterface
    public interface Body<T, E extends Exception> {
        T run() throws E;
    }

    /** Runs {@code body} as the step {@code name}; its outcome is the step's status. */
    public static <T, E extends Exception> T step(String name, Body<T, E> body) throws E {
        return step(name, -1, body);
    }

    /**
     * Runs {@code body} as the step {@code name}, dated from {@code startMillis} (epoch ms; for a phase that began
     * before the code that waits for it, such as the load), or from now when {@code startMillis} is negative. The step
     * passes when {@code body} returns, fails on an {@link AssertionError}, and is broken on anything else thrown,
     * which is rethrown unchanged.
     */
    public static <T, E extends Exception> T step(String name, long startMillis, Body<T, E> body) throws E {
        if (!active()) {
            return body.run();
        }
        AllureLifecycle lifecycle = Allure.getLifecycle();
        String uuid = UUID.randomUUID().toString();
        lifecycle.startStep(uuid, new StepResult().setName(name));
        if (startMillis >= 0) {
            lifecycle.updateStep(uuid, s -> s.setStart(startMillis));
        }
        try {
            T value = body.run();
            lifecycle.updateStep(uuid, s -> s.setStatus(Status.PASSED));
            return value;
        } catch (Exception | Error e) {
            lifecycle.updateStep(uuid, s -> s.setStatus(ResultsUtils.getStatus(e).orElse(Status.BROKEN))
                    .setStatusDetails(ResultsUtils.getStatusDetails(e).orElse(null)));
            throw e;
        } finally {
            lifecycle.stopStep(uuid);
        }
    }

    /** Runs {@code children} (which add steps) inside the step {@code name}, whose status is {@code passed}. */
    static void budgets(String name, boolean passed, Runnable children) {
        if (!active()) {
            return;
        }
        AllureLifecycle lifecycle = Allure.getLifecycle();
        String uuid = UUID.randomUUID().toString();
        lifecycle.startStep(uuid, new StepResult().setName(name));
        try {
            children.run();
        } finally {
            lifecycle.updateStep(uuid, s -> s.setStatus(passed ? Status.PASSED : Status.FAILED));
            lifecycle.stopStep(uuid);
        }
    }

    /** Adds a finished step {@code name} with the given outcome and no duration (a verdict). */
    static void outcome(String name, boolean passed, String message) {
        if (!active()) {
            return;
        }
        AllureLifecycle lifecycle = Allure.getLifecycle();
        String uuid = UUID.randomUUID().toString();
        lifecycle.startStep(uuid, new StepResult().setName(name));
        lifecycle.updateStep(uuid, s -> s.setStatus(passed ? Status.PASSED : Status.FAILED)
                .setStatusDetails(passed ? null : new io.qameta.allure.model.StatusDetails().setMessage(message)));
        lifecycle.stopStep(uuid);
    }

    /**
     * Adds the run's parameters and the labels that group runs: epic = backend, feature = model, and tags for the
     * backend, the model and the engine kind.
     *
     * @param parameters from {@link ReportParameters#of}
     */
    static void describe(Map<String, String> parameters) {
        if (!active()) {
            return;
        }
        Allure.getLifecycle().updateTestCase(tc -> {
            // the URL (a random port for the simulator) must not split one test's history into many
            parameters.forEach((k, v) -> tc.getParameters().add(new Parameter().setName(k).setValue(v)
                    .setExcluded(k.equals("engine URL"))));
            String backend = parameters.getOrDefault("backend", "unknown backend");
            String model = parameters.getOrDefault("model", "unknown model");
            tc.getLabels().add(ResultsUtils.createEpicLabel(backend));
            tc.getLabels().add(ResultsUtils.createFeatureLabel(model));
            tc.getLabels().add(new Label().setName(ResultsUtils.TAG_LABEL_NAME).setValue(backend));
            tc.getLabels().add(new Label().setName(ResultsUtils.TAG_LABEL_NAME).setValue(model));
            if (parameters.containsKey("engine kind")) {
                tc.getLabels().add(new Label().setName(ResultsUtils.TAG_LABEL_NAME)
                        .setValue(parameters.get("engine kind")));
            }
        });
    }

    /** Attaches {@code content} to the running step or, outside steps, to the test case. */
    static void attach(String name, String type, String extension, byte[] content) {
        if (active()) {
            Allure.getLifecycle().addAttachment(name, type, extension, content);
        }
    }
}
