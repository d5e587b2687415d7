package dev.profiledrollout.trace.reading;

import dev.profiledrollout.trace.KernelStats;
import dev.profiledrollout.trace.analysis.CategoryStats;
import dev.profiledrollout.trace.analysis.KernelCategories;
import dev.profiledrollout.trace.analysis.KernelCategory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Column positions of an nsys kernel summary CSV and the category rows of its kernels. */
final class NsysColumns {

    static final int TOTAL = 0;
    static final int COUNT = 1;
    static final int MED = 2;
    static final int MIN = 3;
    static final int MAX = 4;
    static final int NAME = 5;

    private NsysColumns() {
    }

    /** Column indexes by role, or null when {@code header} is not the kernel summary header. */
    static int[] find(List<String> header) {
        int[] col = {-1, -1, -1, -1, -1, -1};
        for (int i = 0; i < header.size(); i++) {
            String h = header.get(i).trim().toLowerCase(Locale.ROOT);
            if (h.startsWith("total time")) {
                col[TOTAL] = i;
            } else if (h.equals("instances") || h.equals("count")) {
                col[COUNT] = i;
            } else if (h.startsWith("med")) {
                col[MED] = i;
            } else if (h.startsWith("min")) {
                col[MIN] = i;
            } else if (h.startsWith("max")) {
                col[MAX] = i;
            } else if (h.equals("name")) {
                col[NAME] = i;
            }
        }
        return col[TOTAL] < 0 || col[COUNT] < 0 || col[NAME] < 0 || col[MIN] < 0 || col[MAX] < 0 ? null : col;
    }

    /** Category rows from kernel totals alone (default rules; shares of the kernel total). */
    static List<CategoryStats> categories(List<KernelStats> kernels) {
        long[] counts = new long[KernelCategory.values().length];
        long[] totals = new long[counts.length];
        long all = 0;
        for (KernelStats k : kernels) {
            int c = KernelCategories.defaults().categoryOf(k.name()).ordinal();
            counts[c] += k.count();
            totals[c] += k.totalNs();
            all += k.totalNs();
        }
        List<CategoryStats> list = new ArrayList<>();
        for (KernelCategory c : KernelCategory.values()) {
            if (counts[c.ordinal()] > 0) {
                list.add(new CategoryStats(c, counts[c.ordinal()], totals[c.ordinal()],
                        all == 0 ? 0 : (double) totals[c.ordinal()] / all));
            }
        }
        return list;
    }
}
