package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apiguardian.api.API;

/**
 * Answers that depend on a name alone (a kernel's category or HTA type, the facts of a CPU event name), computed once
 * per distinct name and shared by every reader of the JVM. Names repeat every step and across the files of a rank
 * set, and each answer costs string tests or regexes, so a lookup replaces them; sharing across readers also means a
 * fresh reader does not begin with a run of misses, which the JIT would meet as a new branch in compiled code.
 * At most {@code limit} names are remembered (later names are computed every time), so a trace with unbounded
 * distinct names cannot grow it without bound. Thread-safe.
 *
 * @param <V> the answer, never null
 */
@API(status = INTERNAL, since = "0.1")
public final class NameMemo<V> {

    private final ConcurrentHashMap<String, V> answers = new ConcurrentHashMap<>();
    private final int limit;
    private final Function<String, V> compute;

    /**
     * @param limit   how many names are remembered at most
     * @param compute the answer for a name; must not return null and must depend on the name alone
     */
    public NameMemo(int limit, Function<String, V> compute) {
        this.limit = limit;
        this.compute = compute;
    }

    /** The answer for {@code name} (not null). */
    public V get(String name) {
        V known = answers.get(name);
        if (known != null) {
            return known;
        }
        V answer = compute.apply(name);
        if (answers.size() < limit) {
            answers.put(name, answer);
        }
        return answer;
    }
}
