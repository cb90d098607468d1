package io.github.redissonratelimit.benchmarks;

import java.util.Locale;

/**
 * Draws {@link AlgorithmBursts}: one panel per algorithm over the same time axis, the requests of each time bucket
 * as grey bars and the permits granted in it as coloured bars in front of them, with the whole seconds (where the
 * fixed windows turn over) marked.
 */
final class AlgorithmChart {

    private static final String[] COLORS = { "#2f7ed8", "#76b041", "#e4572e" };
    private static final String REQUESTS = "#d9d9d9";
    private static final int WIDTH = 760;
    private static final int LEFT = 60;
    private static final int RIGHT = 20;
    private static final int TOP = 56;
    private static final int PANEL = 120;
    private static final int GAP = 34;
    private static final int PLOT_WIDTH = WIDTH - LEFT - RIGHT;

    private AlgorithmChart() {
    }

    static String render(AlgorithmBursts.Result result, String footer) {
        int panels = result.granted().size();
        int height = TOP + panels * (PANEL + GAP) + 40;
        int top = 0;
        for (int requests : result.requests()) {
            top = Math.max(top, requests);
        }
        double scaleTop = Math.max(10, Math.ceil(top / 10.0) * 10); // grid lines every 10
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n", WIDTH, height, WIDTH, height));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">Permits "
                + "granted per %d ms, limit %d per second, the same bursty client</text>\n", LEFT,
                AlgorithmBursts.BUCKET_MS, AlgorithmBursts.RATE));
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"32\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                + "<text x=\"%d\" y=\"42\">requests sent (to each limiter)</text>\n", LEFT, REQUESTS, LEFT + 16));
        for (int p = 0; p < panels; p++) {
            panel(svg, result, p, TOP + p * (PANEL + GAP), scaleTop);
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#666\" font-size=\"10\">%s</text>\n",
                LEFT, height - 10, Chart.escape(footer)));
        svg.append("</svg>\n");
        return svg.toString();
    }

    /** One algorithm's panel: its title, grid, the requests and its grants. */
    private static void panel(StringBuilder svg, AlgorithmBursts.Result result, int index, int y, double scaleTop) {
        Algorithms algorithm = Algorithms.values()[index];
        int[] granted = result.granted().get(index);
        String name = algorithm == Algorithms.TOKEN_BUCKET ? algorithm.label() + " (burst " + AlgorithmBursts.RATE + ")"
                : algorithm.label();
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\" fill=\"%s\">%s: %d of %d "
                + "requests granted</text>\n", LEFT, y + 14, COLORS[index % COLORS.length], Chart.escape(name),
                result.total(granted), result.total(result.requests())));
        int plotTop = y + 22;
        int bottom = plotTop + PANEL - 22;
        grid(svg, plotTop, bottom, scaleTop);
        double width = (double) PLOT_WIDTH / result.buckets();
        for (int b = 0; b < result.buckets(); b++) {
            double x = LEFT + b * width;
            bar(svg, x + width * 0.05, width * 0.9, bottom, (bottom - plotTop) * result.requests()[b] / scaleTop, REQUESTS,
                    null);
            bar(svg, x + width * 0.2, width * 0.6, bottom, (bottom - plotTop) * granted[b] / scaleTop,
                    COLORS[index % COLORS.length], String.format(Locale.ROOT, "%.1f–%.1f s: %d of %d granted",
                            b * AlgorithmBursts.BUCKET_MS / 1000.0, (b + 1) * AlgorithmBursts.BUCKET_MS / 1000.0,
                            granted[b], result.requests()[b]));
        }
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n",
                LEFT, bottom, WIDTH - RIGHT, bottom));
    }

    /** A value line every 10; a dashed line and a label at every whole second. */
    private static void grid(StringBuilder svg, int plotTop, int bottom, double scaleTop) {
        for (int value = 0; value <= scaleTop; value += 10) {
            double y = bottom - (bottom - plotTop) * value / scaleTop;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eeeeee\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"10\">%.0f</text>\n", LEFT, y,
                    WIDTH - RIGHT, y, LEFT - 6, y + 3, (double) value));
        }
        int seconds = AlgorithmBursts.SPAN_MS / 1000;
        for (int s = 0; s <= seconds; s++) {
            double x = LEFT + PLOT_WIDTH * s / (double) seconds;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\" "
                    + "stroke-dasharray=\"3,3\"/><text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">"
                    + "%d s</text>\n", x, plotTop, x, bottom, x, bottom + 12, s));
        }
    }

    private static void bar(StringBuilder svg, double x, double width, int bottom, double height, String color,
            String title) {
        if (height <= 0) {
            return;
        }
        svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">",
                x, bottom - height, width, height, color));
        svg.append(title == null ? "" : "<title>" + title + "</title>").append("</rect>\n");
    }
}
