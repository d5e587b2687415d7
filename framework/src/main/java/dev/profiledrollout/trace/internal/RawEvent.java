package dev.profiledrollout.trace.internal;

/**
 * The fields of one trace event that the analyses use, as read by {@link EventParser}; one mutable instance is
 * reused for every event. Text values are as written; {@code ts}/{@code dur} are the decimal text in µs (convert
 * with {@link MicrosToNanos}); numeric {@code args} are {@link #NONE} when absent or not an integer.
 */
public final class RawEvent {

    /** Marks an absent numeric arg. */
    public static final long NONE = Long.MIN_VALUE;

    public String ph;
    public String cat;
    public String name;
    public String pid;
    public String tid;
    public String ts;
    public String dur;
    /** {@code args.correlation}. */
    public long correlation;
    /** {@code args."External id"}. */
    public long externalId;
    /** {@code args.stream}. */
    public long stream;
    /** {@code args."Input Dims"} as compact JSON text, or null. */
    public String inputDims;

    void clear() {
        ph = null;
        cat = null;
        name = null;
        pid = null;
        tid = null;
        ts = null;
        dur = null;
        correlation = NONE;
        externalId = NONE;
        stream = NONE;
        inputDims = null;
    }
}
