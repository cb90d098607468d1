package io.github.redissonratelimit.benchmarks;

import java.util.Arrays;
import java.util.List;

final class Stats {

    private Stats() {
    }

    /** Nearest-rank quantile of sorted values; 0 when empty. */
    static long quantile(long[] sorted, double quantile) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(quantile * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    static double median(List<Double> values) {
        return percentile(values, 0.5);
    }

    /** Linear interpolation between the closest ranks; NaN when empty. */
    static double percentile(List<Double> values, double quantile) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        double position = quantile * (sorted.length - 1);
        int below = (int) Math.floor(position);
        int above = (int) Math.ceil(position);
        return sorted[below] + (sorted[above] - sorted[below]) * (position - below);
    }
}
