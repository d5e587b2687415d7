package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import org.apiguardian.api.API;

/**
 * The fields of one trace event that the analyses use, as read by {@link EventParser}; one mutable instance is
 * reused for every event. Fields an event's category does not need are left unread (null / {@link #NONE}) to save
 * time: for example the name, times and args of {@code python_function} events.
 */
@API(status = INTERNAL, since = "0.1")
public final class RawEvent {

    /** Marks an absent numeric value. */
    public static final long NONE = Long.MIN_VALUE;

    /** {@code cat} not present (yet). */
    public static final int CAT_ABSENT = -1;
    /** A category no analysis uses ({@code python_function}, {@code ac2g}, …). */
    public static final int CAT_OTHER = 0;
    public static final int CAT_KERNEL = 1;
    public static final int CAT_MEMCPY = 2;
    public static final int CAT_MEMSET = 3;
    public static final int CAT_CPU_OP = 4;
    public static final int CAT_RUNTIME = 5;
    public static final int CAT_USER_ANNOTATION = 6;
    public static final int CAT_GPU_USER_ANNOTATION = 7;
    /**
     * {@code cuda_sync}: CUPTI synchronization records ({@code Stream Sync}, {@code Stream Wait Event}, {@code Event
     * Sync}, {@code Context Sync}; pytorch/kineto {@code libkineto/src/CuptiActivity.h}, {@code cupti_strings.cpp}).
     * Not GPU work, but HTA counts those on a stream as GPU events (§3.1 of docs/TRACES.md).
     */
    public static final int CAT_CUDA_SYNC = 8;

    /** Whether {@code ph} was {@code "X"}; {@link #phSeen} says whether {@code ph} was present at all. */
    public boolean complete;
    public boolean phSeen;
    /** One of the {@code CAT_*} codes (matched case-insensitively). */
    public int cat;
    public String name;
    public String pid;
    /** {@code ts} in ns, or {@link #NONE} when absent or unread. */
    public long tsNs;
    /** {@code dur} in ns, or {@link #NONE} when absent or unread. */
    public long durNs;
    /** Whether {@code ts} or {@code dur} was present but not a finite number. */
    public boolean badTime;
    /** {@code tid} (a string tid as its hash), or {@link #NONE}. */
    public long tid;
    /** {@code args.correlation}. */
    public long correlation;
    /** {@code args.stream}, or {@link #NONE}. */
    public long stream;
    /** {@code args."External id"}. */
    public long externalId;
    /** {@code args."Input Dims"} as compact JSON text, or null. */
    public String inputDims;
    /** {@code args."Input type"} as compact JSON text, or null. */
    public String inputTypes;
    /** {@code args."Input Strides"} as compact JSON text, or null. */
    public String inputStrides;
    /** {@code args."Concrete Inputs"} as compact JSON text, or null. */
    public String concreteInputs;

    /** Resets every field to absent. */
    public void clear() {
        complete = false;
        phSeen = false;
        cat = CAT_ABSENT;
        name = null;
        pid = null;
        tsNs = NONE;
        durNs = NONE;
        badTime = false;
        correlation = NONE;
        stream = NONE;
        tid = NONE;
        externalId = NONE;
        inputDims = null;
        inputTypes = null;
        inputStrides = null;
        concreteInputs = null;
    }

    /** Whether the fields of this event may still be needed, judging by what has been read so far. */
    boolean wanted() {
        return (!phSeen || complete) && cat != CAT_OTHER;
    }

    /** Whether the code is a GPU activity (kernel, memcpy, memset). */
    public static boolean isGpu(int cat) {
        return cat == CAT_KERNEL || cat == CAT_MEMCPY || cat == CAT_MEMSET;
    }

    /** The category code of {@code len} chars at {@code off}, case-insensitively. */
    static int categoryOf(char[] buf, int off, int len) {
        return switch (len) {
            case 6 -> is(buf, off, len, "kernel") ? CAT_KERNEL : is(buf, off, len, "memcpy") ? CAT_MEMCPY
                    : is(buf, off, len, "memset") ? CAT_MEMSET : is(buf, off, len, "cpu_op") ? CAT_CPU_OP : CAT_OTHER;
            case 9 -> is(buf, off, len, "cuda_sync") ? CAT_CUDA_SYNC : CAT_OTHER;
            case 10 -> is(buf, off, len, "gpu_memcpy") ? CAT_MEMCPY : is(buf, off, len, "gpu_memset") ? CAT_MEMSET
                    : CAT_OTHER;
            case 11 -> is(buf, off, len, "cuda_driver") ? CAT_RUNTIME : CAT_OTHER;
            case 12 -> is(buf, off, len, "cuda_runtime") ? CAT_RUNTIME : CAT_OTHER;
            case 15 -> is(buf, off, len, "user_annotation") ? CAT_USER_ANNOTATION : CAT_OTHER;
            case 19 -> is(buf, off, len, "gpu_user_annotation") ? CAT_GPU_USER_ANNOTATION : CAT_OTHER;
            default -> CAT_OTHER;
        };
    }

    private static boolean is(char[] buf, int off, int len, String lower) {
        for (int i = 0; i < len; i++) {
            char c = buf[off + i];
            if (c >= 'A' && c <= 'Z') {
                c = (char) (c + ('a' - 'A'));
            }
            if (c != lower.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
