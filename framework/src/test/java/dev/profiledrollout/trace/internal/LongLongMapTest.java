package dev.profiledrollout.trace.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** LongLongMap against java.util.HashMap on dense, strided, signed and random keys. */
class LongLongMapTest {

    /** The keys of each pattern, in insertion order. */
    private static long[] keys(String pattern) {
        Random random = new Random(5);
        return switch (pattern) {
            // profiler counters: dense and increasing, a few gaps
            case "dense ids" -> LongStream.range(0, 300_000).map(i -> 1_000_000 + i + i / 7).toArray();
            // a long trace tiled from a short one: dense runs far apart
            case "runs of ids" -> LongStream.range(0, 200_000).map(i -> (i / 2_000) * 10_000_000L + i % 2_000).toArray();
            // a power-of-two stride: every key lands on the same slot when placed by value
            case "stride 2^20" -> LongStream.range(0, 50_000).map(i -> i << 20).toArray();
            case "negative and huge" -> LongStream.range(0, 50_000)
                    .map(i -> i % 2 == 0 ? -i * 4096 - 1 : Long.MAX_VALUE - i * 65_536).toArray();
            case "random" -> LongStream.range(0, 200_000).map(i -> random.nextLong()).toArray();
            default -> throw new IllegalArgumentException(pattern);
        };
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"dense ids", "runs of ids", "stride 2^20", "negative and huge", "random"})
    void finds_what_a_hash_map_finds(String pattern) {
        LongLongMap map = new LongLongMap();
        Map<Long, long[]> reference = new HashMap<>();
        // GIVEN every key put twice (the first values win), values derived from the key
        for (long k : keys(pattern)) {
            map.putIfAbsent(k, k * 3, ~k);
            map.putIfAbsent(k, 0, 0);
            reference.putIfAbsent(k, new long[] {k * 3, ~k});
        }
        // THEN the same size, every key with its first values, and absent neighbours absent
        assertThat(map.size()).isEqualTo(reference.size());
        for (Map.Entry<Long, long[]> e : reference.entrySet()) {
            int slot = map.find(e.getKey());
            assertThat(slot).isNotNegative();
            assertThat(map.a(slot)).isEqualTo(e.getValue()[0]);
            assertThat(map.b(slot)).isEqualTo(e.getValue()[1]);
            long neighbour = e.getKey() + 1;
            assertThat(map.find(neighbour) >= 0).isEqualTo(reference.containsKey(neighbour));
        }
        // and forEach visits each entry once; addToB changes only present keys
        long[] visited = new long[1];
        map.forEach((key, a, b) -> {
            visited[0]++;
            assertThat(reference.get(key)).containsExactly(a, b);
        });
        assertThat(visited[0]).isEqualTo(reference.size());
        long someKey = reference.keySet().iterator().next();
        assertThat(map.addToB(someKey, 5)).isTrue();
        assertThat(map.b(map.find(someKey))).isEqualTo(~someKey + 5);
    }
}
