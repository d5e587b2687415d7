package dev.profiledrollout.cli.internal;

import static org.apiguardian.api.API.Status.INTERNAL;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apiguardian.api.API;

/**
 * Rows of text cells printed as an aligned table (columns of numbers right-aligned) or as CSV (RFC 4180 quoting), the two text
 * forms of the {@code history} commands' {@code --format}.
 */
@API(status = INTERNAL)
public final class TextTable {

    private static final java.util.regex.Pattern NUMBER =
            java.util.regex.Pattern.compile("[-+]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][-+]?\\d+)?( %)?");

    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();
    private final java.util.Set<Integer> whole = new java.util.HashSet<>();

    public TextTable(List<String> header) {
        this.header = List.copyOf(header);
    }

    /** Adds a row; null cells print empty. */
    public TextTable row(List<?> cells) {
        List<String> text = new ArrayList<>();
        for (Object cell : cells) {
            text.add(cell == null ? "" : cell.toString());
        }
        rows.add(text);
        return this;
    }

    /** Columns (0-based) {@link #printTable(PrintWriter, int)} never cuts, e.g. a verdict. */
    public TextTable keepWhole(int... columns) {
        for (int c : columns) {
            whole.add(c);
        }
        return this;
    }

    public boolean isEmpty() {
        return rows.isEmpty();
    }

    /** The table with a header line, columns padded to their widest cell. */
    public void printTable(PrintWriter out) {
        printTable(out, Integer.MAX_VALUE);
    }

    /** Text columns are not cut below this many characters. */
    static final int MIN_CUT_WIDTH = 8;

    /**
     * The table with a header line, at most {@code maxWidth} characters a line when the numeric columns and
     * {@value #MIN_CUT_WIDTH} characters of each text column allow it: while the table is too wide, the widest text
     * column loses a character; a cell longer than its column ends in {@code …}. Numbers are never cut.
     *
     * @param maxWidth the widest line wanted, in characters
     * @return whether any cell was cut
     */
    public boolean printTable(PrintWriter out, int maxWidth) {
        int[] width = new int[header.size()];
        for (List<String> row : allRows()) {
            for (int c = 0; c < row.size() && c < width.length; c++) {
                width[c] = Math.max(width[c], row.get(c).length());
            }
        }
        boolean[] numeric = new boolean[header.size()];
        for (int c = 1; c < numeric.length; c++) {
            int column = c;
            numeric[c] = rows.stream().map(r -> column < r.size() ? r.get(column) : "").filter(s -> !s.isEmpty())
                    .allMatch(TextTable::isNumber);
        }
        int total = Arrays.stream(width).sum() + 2 * Math.max(0, width.length - 1);
        while (total > maxWidth) {
            int widest = -1;
            for (int c = 0; c < width.length; c++) {
                if (!numeric[c] && !whole.contains(c) && width[c] > MIN_CUT_WIDTH
                        && (widest < 0 || width[c] > width[widest])) {
                    widest = c;
                }
            }
            if (widest < 0) {
                break;
            }
            width[widest]--;
            total--;
        }
        boolean cut = false;
        boolean first = true;
        for (List<String> row : allRows()) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < row.size() && c < width.length; c++) {
                String cell = row.get(c);
                if (cell.length() > width[c]) {
                    cell = cell.substring(0, width[c] - 1) + "…";
                    cut = true;
                }
                boolean right = !first && numeric[c];
                String padded = right ? " ".repeat(width[c] - cell.length()) + cell
                        : cell + " ".repeat(width[c] - cell.length());
                line.append(c == 0 ? "" : "  ").append(padded);
            }
            out.println(line.toString().stripTrailing());
            first = false;
        }
        return cut;
    }

    /** The table as CSV, header first. */
    public void printCsv(PrintWriter out) {
        for (List<String> row : allRows()) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < row.size(); c++) {
                String cell = row.get(c);
                if (c > 0) {
                    line.append(',');
                }
                if (cell.contains(",") || cell.contains("\"") || cell.contains("\n")) {
                    line.append('"').append(cell.replace("\"", "\"\"")).append('"');
                } else {
                    line.append(cell);
                }
            }
            out.println(line);
        }
    }

    private List<List<String>> allRows() {
        List<List<String>> all = new ArrayList<>();
        all.add(header);
        all.addAll(rows);
        return all;
    }

    private static boolean isNumber(String s) {
        return NUMBER.matcher(s).matches();
    }
}
