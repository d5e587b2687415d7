package dev.profiledrollout.trace.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.EOFException;
import java.io.IOException;
import org.apiguardian.api.API;

/**
 * Walks a Kineto / Chrome trace JSON document with a streaming {@link JsonParser} and hands each event to a
 * {@link Handler}, without building a tree. Accepts {@code {"traceEvents":[…], …}} and bare arrays; top-level keys
 * other than {@code traceEvents}, {@code baseTimeNanoseconds} and {@code distributedInfo.rank} are skipped.
 * Values that are not needed are never converted, so {@code inf}/{@code NaN} or integers wider than 64 bits in
 * {@code args} cannot fail. Not thread-safe.
 */
@API(status = INTERNAL, since = "0.1")
public final class EventParser {

    /** Receives the document's content. */
    public interface Handler {
        /** One event; {@code event} is reused after the call returns. */
        void event(RawEvent event);

        /** {@code baseTimeNanoseconds}. */
        void baseTimeNanoseconds(long ns);

        /** {@code distributedInfo.rank}. */
        void distributedRank(int rank);

        /** Called when the event array starts. */
        void eventsStarted();

        /** {@code deviceProperties[i].name}, once per listed device, in file order. */
        default void deviceName(String name) {
        }
    }

    private final RawEvent event = new RawEvent();
    private final boolean pidOfEveryEvent;

    /** A parser that reads {@code pid} of GPU events only. */
    public EventParser() {
        this(false);
    }

    /** @param pidOfEveryEvent read {@code pid} of CPU events too (to split SGLang merged traces by rank) */
    public EventParser(boolean pidOfEveryEvent) {
        this.pidOfEveryEvent = pidOfEveryEvent;
    }
    private final StringBuilder dims = new StringBuilder();
    private long eventsSeen;

    /** Number of event objects read so far (complete or not). */
    public long eventsSeen() {
        return eventsSeen;
    }

    /**
     * Reads the document after its first token, {@code first} (START_OBJECT or START_ARRAY).
     *
     * @throws EOFException on end of input inside the document (truncation)
     * @throws IOException  on malformed JSON, from the parser
     */
    public void parse(JsonParser parser, JsonToken first, Handler handler) throws IOException {
        if (first == JsonToken.START_ARRAY) {
            handler.eventsStarted();
            readEvents(parser, handler);
            return;
        }
        JsonToken token;
        while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            JsonToken value = parser.nextToken();
            if ("traceEvents".equals(field) && value == JsonToken.START_ARRAY) {
                handler.eventsStarted();
                readEvents(parser, handler);
            } else if ("baseTimeNanoseconds".equals(field) && value == JsonToken.VALUE_NUMBER_INT) {
                try {
                    handler.baseTimeNanoseconds(parser.getLongValue());
                } catch (IOException | RuntimeException outOfRange) {
                    // not a usable base: ignore
                }
            } else if ("distributedInfo".equals(field) && value == JsonToken.START_OBJECT) {
                readDistributedInfo(parser, handler);
            } else if ("deviceProperties".equals(field) && value == JsonToken.START_ARRAY) {
                readDeviceProperties(parser, handler);
            } else {
                parser.skipChildren();
            }
        }
        if (token == null) {
            throw new EOFException("end of input inside the top-level object");
        }
    }

    private static void readDistributedInfo(JsonParser parser, Handler handler) throws IOException {
        JsonToken token;
        while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            JsonToken value = parser.nextToken();
            if ("rank".equals(field) && value == JsonToken.VALUE_NUMBER_INT) {
                try {
                    handler.distributedRank(parser.getIntValue());
                } catch (IOException | RuntimeException outOfRange) {
                    // ignore
                }
            } else {
                parser.skipChildren();
            }
        }
        if (token == null) {
            throw new EOFException("end of input inside distributedInfo");
        }
    }

    private static void readDeviceProperties(JsonParser parser, Handler handler) throws IOException {
        JsonToken token;
        while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
            if (token == null) {
                throw new EOFException("end of input inside deviceProperties");
            }
            if (token != JsonToken.START_OBJECT) {
                parser.skipChildren();
                continue;
            }
            while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if ("name".equals(field) && value == JsonToken.VALUE_STRING) {
                    handler.deviceName(parser.getText());
                } else {
                    parser.skipChildren();
                }
            }
            if (token == null) {
                throw new EOFException("end of input inside deviceProperties");
            }
        }
    }

    private void readEvents(JsonParser parser, Handler handler) throws IOException {
        JsonToken token;
        while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
            if (token == null) {
                throw new EOFException("end of input inside the event array");
            }
            if (token == JsonToken.START_OBJECT) {
                eventsSeen++;
                readEvent(parser);
                handler.event(event);
            } else {
                parser.skipChildren();
            }
        }
    }

    /** Reads one event object; the parser is on its START_OBJECT and ends on its END_OBJECT. */
    private void readEvent(JsonParser parser) throws IOException {
        RawEvent e = event;
        e.clear();
        JsonToken token;
        while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            JsonToken value = parser.nextToken();
            if (value == null) {
                throw new EOFException("end of input inside an event");
            }
            if (value == JsonToken.START_OBJECT && "args".equals(field) && e.wanted()) {
                readArgs(parser, e);
                continue;
            }
            if (value.isStructStart()) {
                parser.skipChildren();
                continue;
            }
            if (value == JsonToken.VALUE_NULL) {
                continue;
            }
            switch (field) {
                case "ph" -> {
                    e.phSeen = true;
                    e.complete = parser.getTextLength() == 1
                            && parser.getTextCharacters()[parser.getTextOffset()] == 'X';
                }
                case "cat" -> e.cat = RawEvent.categoryOf(parser.getTextCharacters(), parser.getTextOffset(),
                        parser.getTextLength());
                case "name" -> {
                    if (e.wanted()) {
                        e.name = parser.getText();
                    }
                }
                case "tid" -> {
                    if (e.wanted()) {
                        e.tid = value == JsonToken.VALUE_STRING ? parser.getText().hashCode()
                                : value == JsonToken.VALUE_NUMBER_INT ? longValue(parser, value) : RawEvent.NONE;
                    }
                }
                case "pid" -> {
                    if (e.wanted() && (pidOfEveryEvent || e.cat == RawEvent.CAT_ABSENT || RawEvent.isGpu(e.cat))) {
                        e.pid = parser.getText();
                    }
                }
                case "ts" -> {
                    if (e.wanted()) {
                        e.tsNs = nanos(parser, e);
                    }
                }
                case "dur" -> {
                    if (e.wanted()) {
                        e.durNs = nanos(parser, e);
                    }
                }
                default -> {
                    // not needed
                }
            }
        }
        if (token == null) {
            throw new EOFException("end of input inside an event");
        }
    }

    private static long nanos(JsonParser parser, RawEvent e) throws IOException {
        try {
            return MicrosToNanos.parse(parser.getTextCharacters(), parser.getTextOffset(), parser.getTextLength());
        } catch (NumberFormatException notFinite) {
            e.badTime = true;
            return RawEvent.NONE;
        }
    }

    private void readArgs(JsonParser parser, RawEvent e) throws IOException {
        JsonToken token;
        while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            JsonToken value = parser.nextToken();
            if (value == null) {
                throw new EOFException("end of input inside args");
            }
            switch (field) {
                case "correlation" -> e.correlation = longValue(parser, value);
                case "External id" -> e.externalId = longValue(parser, value);
                case "stream" -> e.stream = longValue(parser, value);
                case "Input Dims", "Input type", "Input Strides", "Concrete Inputs" -> {
                    if (value == JsonToken.START_ARRAY
                            && (field.equals("Input Dims") || RooflineOps.wantsArguments(e.name))) {
                        dims.setLength(0);
                        writeCompact(parser, value, dims);
                        String text = dims.toString();
                        switch (field) {
                            case "Input Dims" -> e.inputDims = text;
                            case "Input type" -> e.inputTypes = text;
                            case "Input Strides" -> e.inputStrides = text;
                            default -> e.concreteInputs = text;
                        }
                    } else {
                        parser.skipChildren();
                    }
                }
                default -> parser.skipChildren();
            }
        }
        if (token == null) {
            throw new EOFException("end of input inside args");
        }
    }

    private static long longValue(JsonParser parser, JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_NUMBER_INT) {
            try {
                return parser.getLongValue();
            } catch (IOException | RuntimeException tooLarge) {
                return RawEvent.NONE;
            }
        }
        if (value.isStructStart()) {
            parser.skipChildren();
        }
        return RawEvent.NONE;
    }

    /** Writes the value at {@code token} (already current) as compact JSON, {@code ", "} between elements. */
    private static void writeCompact(JsonParser parser, JsonToken token, StringBuilder out) throws IOException {
        if (token == JsonToken.START_ARRAY) {
            out.append('[');
            boolean first = true;
            JsonToken t;
            while ((t = parser.nextToken()) != JsonToken.END_ARRAY) {
                if (t == null) {
                    throw new EOFException("end of input inside Input Dims");
                }
                if (!first) {
                    out.append(", ");
                }
                first = false;
                writeCompact(parser, t, out);
            }
            out.append(']');
        } else if (token == JsonToken.START_OBJECT) {
            parser.skipChildren();
            out.append("{}");
        } else if (token == JsonToken.VALUE_STRING) {
            out.append('"').append(parser.getText()).append('"');
        } else {
            out.append(parser.getText());
        }
    }
}
