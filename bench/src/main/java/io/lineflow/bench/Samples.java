package io.lineflow.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Repeated measurements of one figure: median and spread. */
public final class Samples {
    private final List<Double> values = new ArrayList<>();

    public Samples add(double v) {
        values.add(v);
        return this;
    }

    public boolean isEmpty() {
        return values.isEmpty();
    }

    public int size() {
        return values.size();
    }

    public double median() {
        List<Double> s = sorted();
        int n = s.size();
        return n == 0 ? Double.NaN : n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    public double min() {
        return sorted().get(0);
    }

    public double max() {
        List<Double> s = sorted();
        return s.get(s.size() - 1);
    }

    /** Half the range, relative to the median: a rough ± for a handful of runs. */
    public double spreadPercent() {
        return values.size() < 2 ? 0 : (max() - min()) / 2 / median() * 100;
    }

    private List<Double> sorted() {
        List<Double> s = new ArrayList<>(values);
        Collections.sort(s);
        return s;
    }
}
