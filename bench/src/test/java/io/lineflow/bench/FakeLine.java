package io.lineflow.bench;

/**
 * The other line's JVM as {@link OtherLineTest} starts it: {@link OtherLine}'s own side of the
 * protocol, with rows that answer at once instead of running Flink. The n-th run takes n + 0.5 s;
 * only {@code lineflow} is exact; {@code die} ends the JVM without an answer.
 */
public final class FakeLine {
    private FakeLine() {}

    public static void main(String[] args) throws Exception {
        int[] runs = {0};
        OtherLine.serve(args[0], row -> {
            runs[0]++;
            if (row.equals("die")) {
                System.exit(3);
            }
            return new LineRows.Run(runs[0] + 0.5, row.equals("lineflow"));
        });
    }
}
