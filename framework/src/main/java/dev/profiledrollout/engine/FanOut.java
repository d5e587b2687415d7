package dev.profiledrollout.engine;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.apiguardian.api.API;

/**
 * Starts and stops the profiler on several engines at once: the workers of a router ({@code docs/PROTOCOLS.md} §3
 * "Client recipe") or the URLs of an attach list, recording per worker what happened.
 *
 * <h2>Failure policy: continue and report</h2>
 * Unhealthy workers are skipped. Every healthy worker is started concurrently; a worker whose start fails is
 * recorded as {@link WorkerOutcome.State#START_FAILED} and never stopped, and the others keep profiling. {@link #stop()}
 * stops every worker that started, concurrently, so no worker is left profiling; a failed stop is recorded, not
 * thrown. The caller decides what a failure means (the JUnit extension fails the window only when no worker started,
 * and always reports the outcomes). Why not stop all on the first failure: on a 64-worker deployment one sick worker
 * would make the window unusable, while the healthy ranks' traces are what the test measures.
 *
 * <p>Thread-safe for one start/stop cycle at a time. Owns the clients it creates: {@link #close()} closes them.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class FanOut implements AutoCloseable {

    private final List<Worker> workers;
    private final List<EngineClient> clients;
    private final WorkerOutcome[] outcomes;

    /**
     * @param workers the engines; none may be null; unhealthy ones are only reported
     * @param clients creates the client for one healthy worker's URL (SGLang or vLLM), not null
     */
    public FanOut(List<Worker> workers, Function<Worker, EngineClient> clients) {
        this.workers = List.copyOf(workers);
        this.clients = new ArrayList<>();
        this.outcomes = new WorkerOutcome[this.workers.size()];
        for (int i = 0; i < this.workers.size(); i++) {
            Worker w = this.workers.get(i);
            this.clients.add(w.healthy() ? Objects.requireNonNull(clients.apply(w), "client") : null);
            if (!w.healthy()) {
                outcomes[i] = new WorkerOutcome(w.url(), w.workerType(), WorkerOutcome.State.SKIPPED_UNHEALTHY, 0,
                        "the router reports is_healthy=false", null);
            }
        }
    }

    /** @return the workers, in the order given */
    public List<Worker> workers() {
        return workers;
    }

    /** @return the client of each healthy worker; null at the index of an unhealthy one */
    public List<EngineClient> clients() {
        return java.util.Collections.unmodifiableList(clients);
    }

    /**
     * Polls {@code /health} of every healthy worker concurrently.
     *
     * @throws EngineException the first failure, in worker order
     */
    public void awaitHealthy(java.time.Duration timeout) {
        runAll(i -> () -> {
            clients.get(i).awaitHealthy(timeout);
            return null;
        }, true);
    }

    /**
     * {@code /start_profile} on every healthy worker, concurrently.
     *
     * @param request the capture settings (SGLang body; vLLM sends none), not null
     * @return the outcome per worker, in worker order: {@code STARTED}, {@code START_FAILED} or
     *         {@code SKIPPED_UNHEALTHY}
     */
    public List<WorkerOutcome> start(ProfileRequest request) {
        Objects.requireNonNull(request, "request");
        return start(i -> request);
    }

    /**
     * {@code /start_profile} on every healthy worker, concurrently, each with its own request (for example its own
     * SGLang {@code output_dir}).
     *
     * @param requestForWorker the request for the worker at an index of {@link #workers()}, not null
     * @return the outcome per worker, as {@link #start(ProfileRequest)}
     */
    public List<WorkerOutcome> start(java.util.function.IntFunction<ProfileRequest> requestForWorker) {
        runAll(i -> () -> {
            Worker w = workers.get(i);
            try {
                clients.get(i).startProfile(requestForWorker.apply(i));
                set(i, new WorkerOutcome(w.url(), w.workerType(), WorkerOutcome.State.STARTED, 0, "", null));
            } catch (EngineException e) {
                set(i, new WorkerOutcome(w.url(), w.workerType(), WorkerOutcome.State.START_FAILED, e.status(),
                        e.getMessage(), null));
            }
            return null;
        }, false);
        return outcomes();
    }

    /**
     * {@code /stop_profile} on every worker that started, concurrently; idempotent.
     *
     * @return the outcome per worker, in worker order
     */
    public List<WorkerOutcome> stop() {
        runAll(i -> () -> {
            WorkerOutcome o = get(i);
            if (o == null || o.state() != WorkerOutcome.State.STARTED) {
                return null;
            }
            try {
                StopOutcome stop = clients.get(i).stopProfile();
                set(i, new WorkerOutcome(o.url(), o.workerType(), WorkerOutcome.State.PROFILED, 0, "", stop));
            } catch (EngineException e) {
                set(i, new WorkerOutcome(o.url(), o.workerType(), WorkerOutcome.State.STOP_FAILED, e.status(),
                        e.getMessage(), null));
            }
            return null;
        }, false);
        return outcomes();
    }

    /**
     * {@code /stop_profile} on every healthy worker, whether or not this object started it (a separate
     * {@code profile --action stop} call, as slime's {@code tools/profile_rollout.py} does), concurrently.
     *
     * @return the outcome per worker: {@code PROFILED} with the stop's outcome, {@code STOP_FAILED}, or
     *         {@code SKIPPED_UNHEALTHY}
     */
    public List<WorkerOutcome> stopAll() {
        for (int i = 0; i < workers.size(); i++) {
            Worker w = workers.get(i);
            WorkerOutcome o = get(i);
            if (clients.get(i) != null && (o == null || o.state() != WorkerOutcome.State.STARTED)) {
                set(i, new WorkerOutcome(w.url(), w.workerType(), WorkerOutcome.State.STARTED, 0, "", null));
            }
        }
        return stop();
    }

    /* Outcomes are written by the calling pool's threads and read by others (a shutdown hook reading them while a
       stop is in flight), hence synchronized access. */
    private synchronized WorkerOutcome get(int i) {
        return outcomes[i];
    }

    private synchronized void set(int i, WorkerOutcome outcome) {
        outcomes[i] = outcome;
    }

    /** @return the outcomes so far, in worker order; workers not yet called are absent */
    public synchronized List<WorkerOutcome> outcomes() {
        List<WorkerOutcome> list = new ArrayList<>();
        for (WorkerOutcome o : outcomes) {
            if (o != null) {
                list.add(o);
            }
        }
        return List.copyOf(list);
    }

    /** @return whether at least one worker is {@code STARTED} or {@code PROFILED} */
    public boolean anyStarted() {
        return outcomes().stream().anyMatch(o -> o.state() == WorkerOutcome.State.STARTED
                || o.state() == WorkerOutcome.State.PROFILED || o.state() == WorkerOutcome.State.STOP_FAILED);
    }

    private void runAll(Function<Integer, Callable<Void>> task, boolean rethrow) {
        List<Integer> targets = new ArrayList<>();
        for (int i = 0; i < workers.size(); i++) {
            if (clients.get(i) != null) {
                targets.add(i);
            }
        }
        if (targets.isEmpty()) {
            return;
        }
        ExecutorService pool = Executors.newFixedThreadPool(targets.size(), r -> {
            Thread t = new Thread(r, "profile-fan-out");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Void>> futures = new ArrayList<>();
            for (int i : targets) {
                futures.add(pool.submit(task.apply(i)));
            }
            RuntimeException first = null;
            for (Future<Void> f : futures) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    if (first == null && e.getCause() instanceof RuntimeException re) {
                        first = re;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new EngineException("Interrupted while calling the workers", workers.get(0).url(), -1, "", e);
                }
            }
            if (rethrow && first != null) {
                throw first;
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Closes every client. Never throws. */
    @Override
    public void close() {
        for (EngineClient c : clients) {
            if (c != null) {
                c.close();
            }
        }
    }
}
