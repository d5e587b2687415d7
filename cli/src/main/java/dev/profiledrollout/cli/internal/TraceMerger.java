package dev.profiledrollout.cli.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.profiledrollout.trace.files.RankIdentity;
import dev.profiledrollout.trace.files.TraceFiles;
import dev.profiledrollout.trace.reading.TraceFormatException;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.apiguardian.api.API;

/**
 * Writes the trace files of a rank set as one Chrome / Kineto JSON trace that Perfetto or {@code chrome://tracing}
 * opens at once, instead of one file per rank.
 *
 * <h2>What the merged file holds</h2>
 * <ul>
 *   <li>{@code traceEvents}: every event of every input, inputs in the given order, each event's fields as written
 *       except {@code pid}, which becomes a number unique over the whole file (each input's processes (its CPU
 *       process, each GPU) keep their own pid, so CPU threads and GPU streams stay apart); flow events
 *       ({@code ph} {@code s}, {@code t}, {@code f}) also get an {@code id} unique to their input (numbers:
 *       {@code id × inputs + input index}; strings: prefixed {@code "r<index>:"}), so arrows never join two ranks;
 *       when the inputs' {@code baseTimeNanoseconds} differ (timestamps relative to each rank's own base), {@code ts}
 *       is moved onto the smallest base, exactly in decimal.</li>
 *   <li>Per output process, at the end of {@code traceEvents}: {@code process_name} {@code "<label> · <original
 *       process_labels, else process_name, else pid N>"} (e.g. {@code "TP-1 · GPU 1"}, {@code "TP-1 · CPU"}),
 *       {@code process_labels} the original {@code process_name} (else the label) and {@code process_sort_index}
 *       numbering the processes input by input (within an input, by the original sort index, then first
 *       appearance); the inputs' own {@code process_name}, {@code process_labels} and {@code process_sort_index}
 *       events are replaced by these.</li>
 *   <li>Top level: the first input's fields other than {@code traceEvents}, {@code deviceProperties},
 *       {@code distributedInfo} and {@code baseTimeNanoseconds}; {@code deviceProperties} of all inputs in input
 *       order; {@code baseTimeNanoseconds} the smallest base when any input has one; {@code profiledRolloutMerge}
 *       {@code {"ranks":[{"label","file","events","distributedInfo","baseTimeNanoseconds","pids":{original:
 *       merged}}]}}.</li>
 * </ul>
 *
 * <p>Memory: each input is read twice with Jackson's streaming parser (once for its top-level fields, skipping the
 * events; once to copy the events), one event at a time; the writer streams too. Memory is bounded by the largest
 * single event and the number of processes, not by the file sizes. Number text is kept exactly (no round trip through
 * {@code double}). Inputs may be gzip ({@code .gz}) or plain JSON, an object with {@code traceEvents} or a bare array
 * of events.
 *
 * <p>Reference: SGLang merges its ranks' traces the same way in spirit, renaming each pid with a rank prefix and
 * recomputing {@code process_sort_index} per rank, in memory ({@code sgl-project/sglang},
 * {@code python/sglang/srt/utils/profile_merger.py}); this class keeps numeric pids, which every viewer accepts.
 *
 * <p>Used only by {@code analyze --merge}, so it lives in the CLI rather than in the framework jar.
 */
@API(status = INTERNAL, since = "0.1")
public final class TraceMerger {

    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();
    /** Floats as BigDecimal and exact decimal nodes: number text survives the copy. */
    private static final ObjectMapper EVENTS = JsonMapper.builder(JSON)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES).build();
    private static final String MERGE_FIELD = "profiledRolloutMerge";

    private TraceMerger() {
    }

    /**
     * One input: a trace file and the label its processes get.
     *
     * @param file  a Kineto / Chrome JSON trace, gzip or plain, not null
     * @param label e.g. {@code "TP-0"}, {@code "rank 3"}, {@code "worker-1/TP-0"}; not null, not blank
     */
    public record Input(Path file, String label) {
        public Input {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(label, "label");
            if (label.isBlank()) {
                throw new IllegalArgumentException("the label of " + file + " is blank; give each rank a label");
            }
        }
    }

    /**
     * One merged input.
     *
     * @param label  its label
     * @param file   its file
     * @param events events copied (the replaced process metadata not counted)
     * @param pids   original pid text → merged pid, in first-appearance order
     */
    public record Rank(String label, Path file, long events, Map<String, Integer> pids) {
        public Rank {
            pids = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(pids));
        }
    }

    /**
     * What was written.
     *
     * @param file            the merged trace
     * @param ranks           per input, in input order
     * @param events          events written, the added process metadata included
     * @param metadataDropped the inputs' process metadata events replaced
     * @param shiftedNs       per input, ns added to its timestamps (0 unless the bases differ)
     */
    public record Result(Path file, List<Rank> ranks, long events, long metadataDropped, List<Long> shiftedNs) {
        public Result {
            ranks = List.copyOf(ranks);
            shiftedNs = List.copyOf(shiftedNs);
        }
    }

    /**
     * Labels and orders trace files as ranks: by worker ({@code workerOf} order of first appearance), then by the rank
     * in the file name ({@link RankIdentity#fromFileName}), else by {@code distributedInfo.rank}, else by file name.
     * Labels are {@link RankIdentity#label()} ({@code TP-1}), else {@code rank N}, else the file name, prefixed
     * {@code "<worker>/"} when the worker is not {@code ""}.
     *
     * @param files    the traces, not null
     * @param workerOf the worker of each file ({@code ""} for one engine), not null
     * @return the inputs in rank order
     * @throws TraceFormatException when a file without a rank in its name is not JSON
     * @throws IOException          when a file without a rank in its name cannot be read for its {@code distributedInfo}
     */
    public static List<Input> byRank(List<Path> files, Function<Path, String> workerOf) throws IOException {
        record Keyed(Path file, String worker, Optional<RankIdentity> rank, OptionalInt distributed) {
        }
        List<String> workers = new ArrayList<>();
        List<Keyed> keyed = new ArrayList<>();
        for (Path f : files) {
            String worker = Objects.requireNonNull(workerOf.apply(f), "worker");
            if (!workers.contains(worker)) {
                workers.add(worker);
            }
            Optional<RankIdentity> rank = RankIdentity.fromFileName(String.valueOf(f.getFileName()));
            OptionalInt distributed;
            try {
                distributed = rank.isPresent() ? OptionalInt.empty() : TraceFiles.distributedRank(f);
            } catch (JsonParseException e) {
                throw notJson(f, e);
            }
            keyed.add(new Keyed(f, worker, rank, distributed));
        }
        keyed.sort(Comparator.<Keyed>comparingInt(k -> workers.indexOf(k.worker()))
                .thenComparing((a, b) -> a.rank().isPresent() && b.rank().isPresent()
                        ? a.rank().get().compareTo(b.rank().get())
                        : Boolean.compare(a.rank().isEmpty(), b.rank().isEmpty()))
                .thenComparingInt(k -> k.distributed().orElse(Integer.MAX_VALUE))
                .thenComparing(k -> String.valueOf(k.file().getFileName())));
        List<Input> inputs = new ArrayList<>();
        for (Keyed k : keyed) {
            String label = k.rank().map(RankIdentity::label)
                    .orElse(k.distributed().isPresent() ? "rank " + k.distributed().getAsInt()
                            : String.valueOf(k.file().getFileName()));
            inputs.add(new Input(k.file(), k.worker().isEmpty() ? label : k.worker() + "/" + label));
        }
        return inputs;
    }

    /**
     * Merges {@code inputs} into {@code out} (gzip when its name ends in {@code .gz}), written to a temporary file
     * next to it and moved into place, so a failed merge leaves no partial file.
     *
     * @param inputs the ranks, in the order they are to appear, at least one, not null
     * @param out    the merged trace to write, not null; replaced when it exists
     * @return what was written
     * @throws TraceFormatException when an input is not a JSON trace (names the file and the position)
     * @throws IOException          when an input cannot be read or the output cannot be written
     */
    public static Result merge(List<Input> inputs, Path out) throws IOException {
        Objects.requireNonNull(out, "out");
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("nothing to merge: give at least one trace file");
        }
        List<TopLevel> tops = new ArrayList<>();
        for (Input input : inputs) {
            tops.add(topLevel(input.file()));
        }
        long base = tops.stream().mapToLong(t -> t.base().orElse(0)).min().orElse(0);
        boolean anyBase = tops.stream().anyMatch(t -> t.base().isPresent());
        Path dir = out.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "." + out.getFileName(), ".part");
        try {
            Result result;
            try (OutputStream raw = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16);
                 OutputStream stream = out.getFileName().toString().endsWith(".gz") ? new GZIPOutputStream(raw, 1 << 16)
                         : raw;
                 JsonGenerator json = EVENTS.createGenerator(stream)) {
                json.writeStartObject();
                json.writeArrayFieldStart("traceEvents");
                List<Rank> ranks = new ArrayList<>();
                List<Long> shifts = new ArrayList<>();
                List<List<Process>> processes = new ArrayList<>();
                int[] nextPid = {1};
                long written = 0;
                long dropped = 0;
                for (int i = 0; i < inputs.size(); i++) {
                    long shift = tops.get(i).base().orElse(0) - base;
                    shifts.add(shift);
                    Copy copy = new Copy(i, inputs.size(), shift, nextPid);
                    copyEvents(inputs.get(i).file(), json, copy);
                    written += copy.events;
                    dropped += copy.dropped;
                    Map<String, Integer> pids = new LinkedHashMap<>();
                    copy.processes.values().forEach(p -> pids.put(p.original, p.pid));
                    ranks.add(new Rank(inputs.get(i).label(), inputs.get(i).file(), copy.events, pids));
                    processes.add(new ArrayList<>(copy.processes.values()));
                }
                written += writeProcessMetadata(json, inputs, processes);
                json.writeEndArray();
                writeTopLevel(json, inputs, tops, ranks, anyBase ? OptionalLong.of(base) : OptionalLong.empty());
                json.writeEndObject();
                result = new Result(out, ranks, written, dropped, shifts);
            }
            try {
                Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (java.nio.file.AtomicMoveNotSupportedException e) {
                Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING);
            }
            return result;
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** An input's top-level fields other than its events, small by nature. */
    private record TopLevel(Map<String, JsonNode> fields, OptionalLong base) {
    }

    /** One process of one input: its original pid text, merged pid, name and sort index. */
    private static final class Process {
        final String original;
        final int pid;
        final int firstSeen;
        String name;
        String labels;
        Long sortIndex;

        Process(String original, int pid, int firstSeen) {
            this.original = original;
            this.pid = pid;
            this.firstSeen = firstSeen;
        }
    }

    /** The state of copying one input. */
    private static final class Copy {
        final int index;
        final int inputs;
        final BigDecimal shiftUs;
        final int[] nextPid;
        final Map<String, Process> processes = new LinkedHashMap<>();
        long events;
        long dropped;

        Copy(int index, int inputs, long shiftNs, int[] nextPid) {
            this.index = index;
            this.inputs = inputs;
            this.shiftUs = shiftNs == 0 ? null : BigDecimal.valueOf(shiftNs, 3);
            this.nextPid = nextPid;
        }

        Process process(JsonNode pid) {
            return process(pid == null || pid.isNull() ? "" : pid.asText());
        }

        Process process(String key) {
            return processes.computeIfAbsent(key, k -> new Process(k, nextPid[0]++, processes.size()));
        }
    }

    private static InputStream open(Path file) throws IOException {
        InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        try {
            return file.getFileName().toString().endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
        } catch (IOException e) {
            raw.close();
            throw e;
        }
    }

    private static TopLevel topLevel(Path file) throws IOException {
        Map<String, JsonNode> fields = new LinkedHashMap<>();
        try (InputStream in = open(file); JsonParser p = EVENTS.createParser(in)) {
            JsonToken first = p.nextToken();
            if (first == JsonToken.START_ARRAY) {
                return new TopLevel(fields, OptionalLong.empty());
            }
            if (first != JsonToken.START_OBJECT) {
                throw new TraceFormatException(file, "it is neither a JSON object with traceEvents nor an array of "
                        + "events", null);
            }
            boolean events = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                if (name.equals("traceEvents")) {
                    events = true;
                    p.skipChildren();
                } else {
                    fields.put(name, EVENTS.readTree(p));
                }
            }
            if (!events) {
                throw new TraceFormatException(file, "its JSON object has no traceEvents array", null);
            }
        } catch (JsonParseException e) {
            throw notJson(file, e);
        }
        JsonNode base = fields.get("baseTimeNanoseconds");
        return new TopLevel(fields, base != null && base.canConvertToLong() && base.isIntegralNumber()
                ? OptionalLong.of(base.longValue()) : OptionalLong.empty());
    }

    private static TraceFormatException notJson(Path file, JsonParseException e) {
        return new TraceFormatException(file, "invalid JSON at line " + e.getLocation().getLineNr() + ", column "
                + e.getLocation().getColumnNr() + " (" + e.getOriginalMessage() + ")", e);
    }

    private static void copyEvents(Path file, JsonGenerator json, Copy copy) throws IOException {
        try (InputStream in = open(file); JsonParser p = EVENTS.createParser(in)) {
            JsonToken first = p.nextToken();
            if (first == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    p.nextToken();
                    if (name.equals("traceEvents") && p.currentToken() == JsonToken.START_ARRAY) {
                        copyArray(p, json, copy);
                        return;
                    }
                    p.skipChildren();
                }
            } else if (first == JsonToken.START_ARRAY) {
                copyArray(p, json, copy);
            }
        } catch (JsonParseException e) {
            throw notJson(file, e);
        }
    }

    private static void copyArray(JsonParser p, JsonGenerator json, Copy copy) throws IOException {
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() != JsonToken.START_OBJECT) {
                p.skipChildren(); // not an event; Chrome ignores it too
                continue;
            }
            ObjectNode event;
            JsonToken first = p.nextToken();
            if (first == JsonToken.END_OBJECT) {
                event = EVENTS.createObjectNode();
            } else if (p.currentName().equals("ph")) {
                if (p.nextToken() == JsonToken.VALUE_STRING && !p.getText().equals("M")) {
                    streamEvent(p.getText(), p, json, copy);
                    continue;
                }
                event = EVENTS.createObjectNode();
                event.set("ph", EVENTS.readTree(p));
                if (p.nextToken() == JsonToken.FIELD_NAME) {
                    event.setAll((ObjectNode) EVENTS.readTree(p)); // the remaining fields
                }
            } else {
                // metadata, or fields in an unusual order: the event as a tree, read from its first field
                event = (ObjectNode) EVENTS.readTree(p);
            }
            Process process = copy.process(event.get("pid"));
            String ph = event.path("ph").asText("");
            String name = event.path("name").asText("");
            if (ph.equals("M") && (name.equals("process_name") || name.equals("process_sort_index")
                    || name.equals("process_labels"))) {
                JsonNode args = event.path("args");
                if (name.equals("process_name") && args.path("name").isTextual()) {
                    process.name = args.path("name").asText();
                } else if (name.equals("process_labels") && args.path("labels").isTextual()) {
                    process.labels = args.path("labels").asText();
                } else if (name.equals("process_sort_index") && args.path("sort_index").canConvertToLong()) {
                    process.sortIndex = args.path("sort_index").longValue();
                }
                copy.dropped++;
                continue;
            }
            event.put("pid", process.pid);
            if ((ph.equals("s") || ph.equals("t") || ph.equals("f")) && event.has("id")) {
                JsonNode id = event.get("id");
                if (id.isIntegralNumber()) {
                    event.put("id", id.bigIntegerValue().multiply(BigInteger.valueOf(copy.inputs))
                            .add(BigInteger.valueOf(copy.index)));
                } else {
                    event.put("id", "r" + copy.index + ":" + id.asText());
                }
            }
            if (copy.shiftUs != null && event.path("ts").isNumber()) {
                event.put("ts", event.get("ts").decimalValue().add(copy.shiftUs));
            }
            EVENTS.writeTree(json, event);
            copy.events++;
        }
    }

    /**
     * Copies one event whose first field, {@code "ph"}, was just read and is not metadata, token by token: the common
     * case, without building a tree. Numbers keep their text ({@link JsonGenerator#copyCurrentEventExact}).
     */
    private static void streamEvent(String ph, JsonParser p, JsonGenerator json, Copy copy) throws IOException {
        boolean flow = ph.equals("s") || ph.equals("t") || ph.equals("f");
        boolean pid = false;
        json.writeStartObject();
        json.writeStringField("ph", ph);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equals("pid")) {
                pid = true;
                json.writeNumberField("pid", copy.process(value == JsonToken.VALUE_NULL ? "" : p.getText()).pid);
            } else if (flow && field.equals("id") && value == JsonToken.VALUE_NUMBER_INT) {
                json.writeFieldName("id");
                json.writeNumber(p.getBigIntegerValue().multiply(BigInteger.valueOf(copy.inputs))
                        .add(BigInteger.valueOf(copy.index)));
            } else if (flow && field.equals("id") && value == JsonToken.VALUE_STRING) {
                json.writeStringField("id", "r" + copy.index + ":" + p.getText());
            } else if (copy.shiftUs != null && field.equals("ts") && value.isNumeric() && !p.isNaN()) {
                json.writeFieldName("ts");
                json.writeNumber(p.getDecimalValue().add(copy.shiftUs));
            } else {
                json.writeFieldName(field);
                copyExact(p, json);
            }
        }
        if (!pid) {
            json.writeNumberField("pid", copy.process("").pid);
        }
        json.writeEndObject();
        copy.events++;
    }

    /** Copies the current value (a scalar, or a whole object or array) keeping number text. */
    private static void copyExact(JsonParser p, JsonGenerator json) throws IOException {
        int depth = 0;
        while (true) {
            JsonToken t = p.currentToken();
            if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                depth++;
            } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                depth--;
            }
            json.copyCurrentEventExact(p);
            if (depth == 0) {
                return;
            }
            p.nextToken();
        }
    }

    private static long writeProcessMetadata(JsonGenerator json, List<Input> inputs, List<List<Process>> processes)
            throws IOException {
        long written = 0;
        int sortIndex = 0;
        for (int i = 0; i < inputs.size(); i++) {
            List<Process> list = new ArrayList<>(processes.get(i));
            list.sort(Comparator.<Process, Long>comparing(p -> p.sortIndex == null ? Long.MAX_VALUE : p.sortIndex)
                    .thenComparingInt(p -> p.firstSeen));
            String label = inputs.get(i).label();
            for (Process p : list) {
                // Kineto names a rank's CPU process and its GPUs alike (the job name) and tells them apart in
                // process_labels ("CPU", "GPU 0"): that is the part worth showing after the rank
                String original = p.labels != null ? p.labels : p.name != null ? p.name
                        : p.original.isEmpty() ? "" : "pid " + p.original;
                writeMeta(json, p.pid, "process_name", "name", original.isEmpty() ? label : label + " · " + original);
                writeMeta(json, p.pid, "process_labels", "labels", p.name != null ? p.name : label);
                json.writeStartObject();
                json.writeStringField("ph", "M");
                json.writeStringField("name", "process_sort_index");
                json.writeNumberField("pid", p.pid);
                json.writeNumberField("tid", 0);
                json.writeObjectFieldStart("args");
                json.writeNumberField("sort_index", sortIndex++);
                json.writeEndObject();
                json.writeEndObject();
                written += 3;
            }
        }
        return written;
    }

    private static void writeMeta(JsonGenerator json, int pid, String name, String arg, String value)
            throws IOException {
        json.writeStartObject();
        json.writeStringField("ph", "M");
        json.writeStringField("name", name);
        json.writeNumberField("pid", pid);
        json.writeNumberField("tid", 0);
        json.writeObjectFieldStart("args");
        json.writeStringField(arg, value);
        json.writeEndObject();
        json.writeEndObject();
    }

    private static void writeTopLevel(JsonGenerator json, List<Input> inputs, List<TopLevel> tops, List<Rank> ranks,
                                      OptionalLong base) throws IOException {
        for (Map.Entry<String, JsonNode> f : tops.get(0).fields().entrySet()) {
            String name = f.getKey();
            if (!name.equals("deviceProperties") && !name.equals("distributedInfo")
                    && !name.equals("baseTimeNanoseconds") && !name.equals(MERGE_FIELD)) {
                json.writeFieldName(name);
                EVENTS.writeTree(json, f.getValue());
            }
        }
        ArrayNode devices = EVENTS.createArrayNode();
        for (TopLevel t : tops) {
            JsonNode d = t.fields().get("deviceProperties");
            if (d != null && d.isArray()) {
                devices.addAll((ArrayNode) d);
            }
        }
        if (!devices.isEmpty()) {
            json.writeFieldName("deviceProperties");
            EVENTS.writeTree(json, devices);
        }
        if (base.isPresent()) {
            json.writeNumberField("baseTimeNanoseconds", base.getAsLong());
        }
        json.writeObjectFieldStart(MERGE_FIELD);
        json.writeArrayFieldStart("ranks");
        for (int i = 0; i < ranks.size(); i++) {
            Rank r = ranks.get(i);
            json.writeStartObject();
            json.writeStringField("label", r.label());
            json.writeStringField("file", String.valueOf(inputs.get(i).file().getFileName()));
            json.writeNumberField("events", r.events());
            JsonNode info = tops.get(i).fields().get("distributedInfo");
            if (info != null) {
                json.writeFieldName("distributedInfo");
                EVENTS.writeTree(json, info);
            }
            if (tops.get(i).base().isPresent()) {
                json.writeNumberField("baseTimeNanoseconds", tops.get(i).base().getAsLong());
            }
            json.writeObjectFieldStart("pids");
            for (Map.Entry<String, Integer> e : r.pids().entrySet()) {
                json.writeNumberField(e.getKey(), e.getValue());
            }
            json.writeEndObject();
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeEndObject();
    }
}
