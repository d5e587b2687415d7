package dev.profiledrollout.cli.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apiguardian.api.API;

/** Prints an {@link AnalysisViews.View} as an aligned text table or as RFC 4180 CSV. */
@API(status = INTERNAL, since = "0.1")
public final class ViewPrinter {

    private static final int MAX_CELL = 80;

    private ViewPrinter() {
    }

    /**
     * Aligned columns, long cells cut to 80 characters with "…"; at most {@code limit} rows, then a count of the rest.
     */
    public static void table(PrintWriter out, AnalysisViews.View view, int limit) {
        int columns = view.header().size();
        int[] width = new int[columns];
        List<List<String>> shown = view.rows().subList(0, Math.min(limit, view.rows().size()));
        for (int c = 0; c < columns; c++) {
            width[c] = view.header().get(c).length();
            for (List<String> row : shown) {
                width[c] = Math.max(width[c], cut(row.get(c)).length());
            }
        }
        line(out, view.header(), width);
        for (List<String> row : shown) {
            line(out, row, width);
        }
        if (view.rows().size() > shown.size()) {
            out.println("  … " + (view.rows().size() - shown.size()) + " more rows (use --format csv or json for all)");
        }
    }

    /**
     * {@link #table} in the units of the kernel table: a column named {@code xNs} becomes {@code x ms} with three
     * decimals, a {@code share} column a percentage with one decimal; other cells are printed as they are.
     */
    public static void readableTable(PrintWriter out, AnalysisViews.View view, int limit) {
        List<String> header = view.header();
        List<String> names = new ArrayList<>();
        for (String h : header) {
            names.add(h.endsWith("Ns") ? h.substring(0, h.length() - 2) + " ms" : h);
        }
        List<List<String>> rows = new ArrayList<>();
        for (List<String> row : view.rows()) {
            List<String> cells = new ArrayList<>();
            for (int c = 0; c < row.size(); c++) {
                String cell = row.get(c);
                if (header.get(c).endsWith("Ns") && !cell.isEmpty()) {
                    cells.add(String.format(Locale.ROOT, "%.3f", Double.parseDouble(cell) / 1e6));
                } else if (header.get(c).equals("share") && !cell.isEmpty()) {
                    cells.add(String.format(Locale.ROOT, "%.1f%%", 100 * Double.parseDouble(cell)));
                } else {
                    cells.add(cell);
                }
            }
            rows.add(cells);
        }
        table(out, new AnalysisViews.View(names, rows), limit);
    }

    /** CSV with a header; {@code prefix} cells (for example the file) come first on every line. */
    public static void csv(PrintWriter out, List<String> prefixHeader, List<String> prefix, AnalysisViews.View view,
                           boolean withHeader) {
        if (withHeader) {
            out.println(csvLine(concat(prefixHeader, view.header())));
        }
        for (List<String> row : view.rows()) {
            out.println(csvLine(concat(prefix, row)));
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new java.util.ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static String csvLine(List<String> cells) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                line.append(',');
            }
            String cell = cells.get(i);
            if (cell.indexOf(',') >= 0 || cell.indexOf('"') >= 0 || cell.indexOf('\n') >= 0) {
                line.append('"').append(cell.replace("\"", "\"\"")).append('"');
            } else {
                line.append(cell);
            }
        }
        return line.toString();
    }

    private static void line(PrintWriter out, List<String> cells, int[] width) {
        StringBuilder line = new StringBuilder(" ");
        for (int c = 0; c < cells.size(); c++) {
            String cell = cut(cells.get(c));
            boolean left = c == 0 || !isNumber(cell);
            line.append(' ');
            line.append(left ? String.format("%-" + width[c] + "s", cell) : String.format("%" + width[c] + "s", cell));
        }
        out.println(line.toString().stripTrailing());
    }

    private static boolean isNumber(String s) {
        return !s.isEmpty() && (Character.isDigit(s.charAt(0)) || s.charAt(0) == '-');
    }

    private static String cut(String s) {
        return s.length() <= MAX_CELL ? s : s.substring(0, MAX_CELL - 1) + "…";
    }
}
