package io.github.redissonratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Draws the throughput table as an SVG: one group of bars per thread count, one bar per contender at its
 * median, with a whisker over the middle half of the rounds (first to third quartile).
 */
final class Chart {

    private static final String[] COLORS = { "#8c8c8c", "#2f7ed8", "#e4572e", "#76b041", "#9ec5ee", "#b07aa1", "#f2a541", "#4b3f72" };
    private static final int WIDTH = 760;
    private static final int HEIGHT = 420;
    private static final int LEFT = 80;
    private static final int RIGHT = 20;
    private static final int TOP = 50;
    private static final int BOTTOM = 90;
    private static final int PLOT_WIDTH = WIDTH - LEFT - RIGHT;
    private static final int PLOT_HEIGHT = HEIGHT - TOP - BOTTOM;

    private Chart() {
    }

    static String render(Results results) {
        List<String> ids = new ArrayList<>(results.contenders.keySet());
        double top = 0;
        for (String id : ids) {
            for (int threads : results.settings.threadCounts()) {
                top = Math.max(top, results.upperQuartile(id, threads));
            }
        }
        double scaleTop = niceCeiling(top);

        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n", WIDTH, HEIGHT, WIDTH, HEIGHT));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"24\" font-size=\"15\" font-weight=\"bold\">"
                + "Allowed decisions per second (median of %d rounds, whiskers: quartiles)</text>\n", LEFT,
                results.settings.rounds()));
        axis(svg, scaleTop);
        bars(svg, results, ids, scaleTop);
        legendAndFooter(svg, results, ids);
        svg.append("</svg>\n");
        return svg.toString();
    }

    /** The horizontal grid lines with their values. */
    private static void axis(StringBuilder svg, double scaleTop) {
        for (int tick = 0; tick <= 5; tick++) {
            double value = scaleTop * tick / 5;
            double y = TOP + PLOT_HEIGHT - PLOT_HEIGHT * tick / 5.0;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>\n",
                    LEFT, y, WIDTH - RIGHT, y));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                    LEFT - 6, y + 4, String.format(Locale.ROOT, "%,.0f", value)));
        }
    }

    /** One group of bars per thread count, and the base line. */
    private static void bars(StringBuilder svg, Results results, List<String> ids, double scaleTop) {
        List<Integer> threadCounts = results.settings.threadCounts();
        double groupWidth = (double) PLOT_WIDTH / threadCounts.size();
        double barWidth = groupWidth * 0.8 / ids.size();
        for (int g = 0; g < threadCounts.size(); g++) {
            int threads = threadCounts.get(g);
            double groupLeft = LEFT + g * groupWidth + groupWidth * 0.1;
            for (int c = 0; c < ids.size(); c++) {
                bar(svg, results, ids.get(c), COLORS[c % COLORS.length], threads, groupLeft + c * barWidth, barWidth,
                        scaleTop);
            }
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d thread%s</text>\n",
                    LEFT + g * groupWidth + groupWidth / 2, TOP + PLOT_HEIGHT + 18, threads, threads == 1 ? "" : "s"));
        }
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n",
                LEFT, TOP + PLOT_HEIGHT, WIDTH - RIGHT, TOP + PLOT_HEIGHT));
    }

    /** One contender's bar at its median, with its whisker and its figure. */
    private static void bar(StringBuilder svg, Results results, String id, String color, int threads, double x,
            double barWidth, double scaleTop) {
        double median = results.medianPerSecond(id, threads);
        double height = PLOT_HEIGHT * median / scaleTop;
        double y = TOP + PLOT_HEIGHT - height;
        svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                + "fill=\"%s\"><title>(%s) %d threads: %,.0f/s</title></rect>\n", x + 2, y, barWidth - 4, height,
                color, id, threads, median));
        double low = TOP + PLOT_HEIGHT - PLOT_HEIGHT * results.lowerQuartile(id, threads) / scaleTop;
        double high = TOP + PLOT_HEIGHT - PLOT_HEIGHT * results.upperQuartile(id, threads) / scaleTop;
        double middle = x + barWidth / 2;
        svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                + "stroke=\"#333\"/>\n", middle, low, middle, high));
        svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                + "font-size=\"10\">%s</text>\n", middle, Math.min(y, high) - 4, compact(median)));
    }

    private static void legendAndFooter(StringBuilder svg, Results results, List<String> ids) {
        double legendY = HEIGHT - BOTTOM + 44;
        for (int c = 0; c < ids.size(); c++) {
            double x = LEFT + c * (PLOT_WIDTH / (double) ids.size());
            svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
                    x, legendY, COLORS[c % COLORS.length]));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", x + 16, legendY + 10,
                    escape(legend(ids.get(c)))));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#666\" font-size=\"10\">%s</text>\n",
                LEFT, HEIGHT - 10, escape(results.machine.processors() + " CPUs, " + results.machine.cpu() + ", Java "
                        + System.getProperty("java.runtime.version") + ", Redis " + results.redisVersion)));
    }

    private static String legend(String id) {
        return switch (id) {
            case "a" -> "(a) raw RRateLimiter";
            case "b" -> "(b) @RateLimit proxy";
            case "c" -> "(c) hand-rolled aspect";
            case "d" -> "(d) bucket4j";
            case "e" -> "(e) @RateLimit, no pipelining";
            case "f" -> "(f) @RateLimit, client clock";
            case "g" -> "(g) @RateLimit, new user per call";
            case "h" -> "(h) @RateLimit, two limits";
            default -> "(" + id + ")";
        };
    }

    static double niceCeiling(double value) {
        if (value <= 0 || Double.isNaN(value)) {
            return 1;
        }
        double magnitude = Math.pow(10, Math.floor(Math.log10(value)));
        for (double step : new double[] { 1, 2, 2.5, 5, 10 }) {
            if (step * magnitude >= value) {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }

    private static String compact(double value) {
        return value >= 10_000 ? String.format(Locale.ROOT, "%.1fk", value / 1_000) : String.format(Locale.ROOT, "%.0f", value);
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
