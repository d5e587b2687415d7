package dev.profiledrollout.trace.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** IdJoin against a map with first-wins puts, on the id orders it meets and on lookups in every order. */
class IdJoinTest {

    /** The ids of each pattern in append order (duplicates included). */
    private static long[] ids(String pattern) {
        Random random = new Random(3);
        int n = 100_000;
        long[] ids = new long[n];
        for (int i = 0; i < n; i++) {
            ids[i] = switch (pattern) {
                case "increasing" -> 7_000_000L + 3L * i;
                case "nearly increasing" -> 7_000_000L + 3L * i + random.nextInt(40); // threads interleaved
                case "runs far apart" -> (i / 1_000) * 10_000_000L + i % 1_000;
                case "decreasing" -> -3L * i;
                case "random with duplicates" -> random.nextInt(60_000) - 30_000L;
                default -> throw new IllegalArgumentException(pattern);
            };
        }
        return ids;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"increasing", "nearly increasing", "runs far apart", "decreasing", "random with duplicates"})
    void finds_the_first_values_of_every_id_in_any_lookup_order(String pattern) {
        long[] ids = ids(pattern);
        IdJoin join = new IdJoin();
        Map<Long, long[]> reference = new LinkedHashMap<>();
        for (int i = 0; i < ids.length; i++) {
            join.putIfAbsent(ids[i], i, -i);
            reference.putIfAbsent(ids[i], new long[] {i, -i});
        }
        List<Long> lookups = new ArrayList<>();
        for (long id : ids) { // present ids in append order, then absent neighbours, then shuffled
            lookups.add(id);
        }
        for (long id : ids) {
            lookups.add(id + 1);
        }
        List<Long> shuffled = new ArrayList<>(lookups);
        java.util.Collections.shuffle(shuffled, new Random(9));
        lookups.addAll(shuffled);
        List<String> wrong = new ArrayList<>();
        for (long id : lookups) {
            int slot = join.find(id);
            long[] expected = reference.get(id);
            boolean right = expected == null ? slot < 0
                    : slot >= 0 && join.a(slot) == expected[0] && join.b(slot) == expected[1];
            if (!right && wrong.size() < 5) {
                wrong.add("id " + id + ": slot " + slot);
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(lookups).hasSize(4 * ids.length);
        assertThat(join.size()).isEqualTo(reference.size());
        long[] previous = {Long.MIN_VALUE};
        int[] visited = {0};
        join.forEach((id, a, b) -> {
            assertThat(id).isGreaterThan(previous[0]);
            previous[0] = id;
            visited[0]++;
        });
        assertThat(visited[0]).isEqualTo(reference.size());
        assertThatThrownBy(() -> join.putIfAbsent(1, 0, 0)).isInstanceOf(IllegalStateException.class);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"increasing", "nearly increasing", "runs far apart", "decreasing", "random with duplicates"})
    void a_join_without_b_keeps_the_first_a_of_every_id(String pattern) {
        long[] ids = ids(pattern);
        IdJoin join = IdJoin.keysAndA();
        Map<Long, Long> reference = new LinkedHashMap<>();
        for (int i = 0; i < ids.length; i++) {
            join.putIfAbsent(ids[i], i, -i);
            reference.putIfAbsent(ids[i], (long) i);
        }
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<Long, Long> e : reference.entrySet()) {
            int slot = join.find(e.getKey());
            if ((slot < 0 || join.a(slot) != e.getValue() || join.b(slot) != 0) && wrong.size() < 5) {
                wrong.add("id " + e.getKey() + ": slot " + slot);
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(join.size()).isEqualTo(reference.size());
        assertThat(join.find(Long.MAX_VALUE)).isNegative();
        assertThatThrownBy(() -> join.setB(0, 1)).isInstanceOf(IllegalStateException.class);
    }

    @org.junit.jupiter.api.Test
    void blocks_hold_entries_across_their_boundaries() {
        IdJoin join = new IdJoin();
        int n = 3 * IdJoin.BLOCK + 5;
        for (int i = n - 1; i >= 0; i--) { // reversed: the sort moves every entry across blocks
            join.putIfAbsent(i, i * 2L, i * 3L);
        }
        for (int i = 0; i < n; i++) {
            int slot = join.find(i);
            assertThat(slot).isEqualTo(i);
            assertThat(join.a(slot)).isEqualTo(i * 2L);
            assertThat(join.b(slot)).isEqualTo(i * 3L);
        }
    }

    @org.junit.jupiter.api.Test
    void a_join_grown_from_released_blocks_finds_its_own_entries_and_a_released_join_fails() {
        // the first join fills its blocks with other ids and values; the second, on the same thread, grows into them
        IdJoin first = new IdJoin();
        int n = 4 * IdJoin.BLOCK;
        for (int i = 0; i < n; i++) {
            first.putIfAbsent(10L * i, -1, -2);
        }
        assertThat(first.find(10L * (n - 1))).isEqualTo(n - 1);
        first.release();
        assertThatThrownBy(() -> first.find(0)).isInstanceOf(ArrayIndexOutOfBoundsException.class);
        assertThatThrownBy(() -> first.putIfAbsent(1, 1, 1)).isInstanceOf(IllegalStateException.class);

        IdJoin second = new IdJoin();
        int m = 3 * IdJoin.BLOCK + 7;
        for (int i = m - 1; i >= 0; i--) { // reversed: the sort reads and moves every slot of the reused blocks
            second.putIfAbsent(i, i * 2L, i * 3L);
        }
        assertThat(second.size()).isEqualTo(m);
        for (int i = 0; i < m; i++) {
            int slot = second.find(i);
            assertThat(slot).isEqualTo(i);
            assertThat(second.a(slot)).isEqualTo(i * 2L);
            assertThat(second.b(slot)).isEqualTo(i * 3L);
        }
        assertThat(second.find(10L * (n - 1))).isEqualTo(-1); // nothing of the first join's content
        second.release();
        second.release(); // twice: nothing more to give
    }
}
