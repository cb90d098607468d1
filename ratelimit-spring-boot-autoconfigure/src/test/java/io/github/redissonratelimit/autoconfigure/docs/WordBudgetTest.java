package io.github.redissonratelimit.autoconfigure.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

/**
 * The user pages ({@link MarkdownFiles#userPages()}) stay readable in one sitting: together at most
 * {@value #BUDGET} words, counted as {@code wc -w} counts them (whitespace-separated tokens). Measurement and
 * maintainer material belongs in docs/performance.md and docs/benchmarks.md, which are not counted.
 */
class WordBudgetTest {

    static final int BUDGET = 17_500;

    @Test
    void theUserPagesStayWithinTheirWordBudget() {
        Map<String, Integer> words = MarkdownFiles.userPages().stream()
                .collect(Collectors.toMap(MarkdownFiles::name, WordBudgetTest::words));
        int total = words.values().stream().mapToInt(Integer::intValue).sum();
        assertThat(total).as("words in the user pages (README.md, docs/*.md but benchmarks, performance, releasing); "
                + "the biggest: " + biggest(words)).isLessThanOrEqualTo(BUDGET);
    }

    @Test
    void wordsAreCountedAsWcCountsThem() {
        assertThat(words(List.of("# Title", "", "  two\twords  ", "`ratelimit.key-ttl` | `1h` |"))).isEqualTo(8);
        assertThat(words(List.of("", "   "))).isZero();
    }

    @Test
    void aPageOverTheBudgetIsNamedAmongTheBiggest() {
        String named = biggest(Map.of("docs/a.md", 10, "docs/huge.md", BUDGET + 1, "README.md", 5));
        assertThat(named).startsWith("docs/huge.md (" + (BUDGET + 1) + ")");
    }

    private static int words(Path page) {
        return words(MarkdownFiles.lines(page));
    }

    static int words(List<String> lines) {
        int count = 0;
        for (String line : lines) {
            for (String token : line.strip().split("\\s+")) {
                if (!token.isEmpty()) {
                    count++;
                }
            }
        }
        return count;
    }

    static String biggest(Map<String, Integer> words) {
        return words.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder()))
                .limit(5)
                .map(entry -> entry.getKey() + " (" + entry.getValue() + ")")
                .collect(Collectors.joining(", "));
    }
}
