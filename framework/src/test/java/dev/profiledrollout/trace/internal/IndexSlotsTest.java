package dev.profiledrollout.trace.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** IndexSlots as its callers probe it, across growth and with rows that share a hash. */
class IndexSlotsTest {

    private final IndexSlots slots = new IndexSlots();
    private final List<String> rows = new ArrayList<>();

    /** The caller's loop of the class Javadoc, with a hash that puts every eighth key on the same value. */
    private int rowOf(String key) {
        int hash = key.hashCode() % 8 == 0 ? 42 : key.hashCode();
        for (int s = slots.first(hash); ; s = slots.next(s)) {
            int row = slots.row(s);
            if (row < 0) {
                row = rows.size();
                rows.add(key);
                slots.add(s, row, hash);
                return row;
            }
            if (slots.hash(row) == hash && rows.get(row).equals(key)) {
                return row;
            }
        }
    }

    @Test
    void finds_every_row_again_after_growing_and_with_shared_hashes() {
        for (int i = 0; i < 5_000; i++) {
            assertThat(rowOf("key " + i)).isEqualTo(i);
        }
        for (int i = 4_999; i >= 0; i--) {
            assertThat(rowOf("key " + i)).isEqualTo(i);
        }
        assertThat(rows).hasSize(5_000);
    }

    @Test
    void refuses_rows_out_of_order() {
        assertThatThrownBy(() -> slots.add(slots.first(7), 1, 7)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected 0, got 1");
    }
}
