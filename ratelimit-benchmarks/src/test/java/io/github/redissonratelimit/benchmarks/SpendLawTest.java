package io.github.redissonratelimit.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The check of the law at spend time over the logs of spends ({@link SpendLog}, {@link SpendLaw}). */
class SpendLawTest {

    private static final long MS = 1_000_000;

    /** Redis's clock reads nanoTime / 1000 exactly: µs for µs. */
    private static final SpendLaw.Offset EXACT = new SpendLaw.Offset(0, 0);

    @TempDir
    Path files;

    @Test
    void aWindowOfOneSecondWithMoreThanTheRateIsAViolationAndOneWithTheRateIsNot() {
        try (SpendLog first = log("first", 1); SpendLog second = log("second", 1)) {
            spend(first, 10, 500 * MS, 500 * MS);
            spend(second, 10, 1_600 * MS, 1_600 * MS); // 1.1 s later: never in one window with the first 10
            SpendLaw.Result apart = SpendLaw.check(List.of(first, second), EXACT, 10, 1_000);
            assertThat(apart.mostInAWindow()).isEqualTo(10);
            assertThat(apart.windowsOver()).isZero();
            assertThat(apart.spent()).isEqualTo(20);

            spend(second, 1, 1_400 * MS, 1_400 * MS); // 0.9 s after the first 10, 0.2 s before the last 10
            SpendLaw.Result over = SpendLaw.check(List.of(first, second), EXACT, 10, 1_000);
            assertThat(over.mostInAWindow()).isEqualTo(11);
            // the windows (a, a + 1 s] holding the first 10 and it (400 <= a < 500 ms) or it and the last 10 (600 <=
            // a < 1,400 ms)
            assertThat(over.windowsOver()).isEqualTo(100 + 800);
            assertThat(over.mostSurely()).isEqualTo(11);
            assertThat(over.windowsSurelyOver()).as("exact spends: surely over").isEqualTo(100 + 800);
        }
    }

    @Test
    void aSpendIsChargedToEveryWindowItsCallOrTheClocksUncertaintyOverlaps() {
        try (SpendLog spends = log("spends", 2)) {
            spend(spends, 10, 500 * MS, 500 * MS);
            // a call from 1.45 s to 1.55 s: spent 0.95 to 1.05 s after the first 10, maybe within 1 s of them
            spends.spent(1, 1_450 * MS, 1_550 * MS);
            SpendLaw.Result maybe = SpendLaw.check(List.of(spends), EXACT, 10, 1_000);
            assertThat(maybe.windowsOver()).isPositive();
            assertThat(maybe.windowsSurelyOver()).as("not decided at this resolution").isZero();
            assertThat(maybe.mostSurely()).isEqualTo(10);
            // the same spend at 1.55 s exactly, but a clock known only to ±60 ms: maybe 0.99 s after them
            try (SpendLog exact = log("exact", 2)) {
                spend(exact, 10, 500 * MS, 500 * MS);
                exact.spent(1, 1_550 * MS, 1_550 * MS);
                assertThat(SpendLaw.check(List.of(exact), EXACT, 10, 1_000).windowsOver()).isZero();
                assertThat(SpendLaw.check(List.of(exact), new SpendLaw.Offset(-60_000, 60_000), 10, 1_000)
                        .windowsOver()).isPositive();
            }
        }
    }

    @Test
    void whatOneJvmLoggedIsReadFromItsFileByAnother() {
        Path file = files.resolve("shared");
        try (SpendLog writer = SpendLog.create(file, 0, 3_000 * MS, 3)) {
            writer.spent(2, 700 * MS, 701 * MS);
        }
        try (SpendLog reader = SpendLog.open(file, 0, 3_000 * MS, 3)) {
            assertThat(reader.starts()[(int) (700 * MS / SpendLog.BUCKET_NANOS)]).isEqualTo(1);
            assertThat(reader.ends()[(int) (701 * MS / SpendLog.BUCKET_NANOS)]).isEqualTo(1);
            assertThat(SpendLaw.check(List.of(reader), EXACT, 1, 1_000).spent()).isEqualTo(1);
        }
    }

    private SpendLog log(String name, int threads) {
        return SpendLog.create(files.resolve(name), 0, 3_000 * MS, threads);
    }

    private static void spend(SpendLog log, int permits, long start, long end) {
        for (int i = 0; i < permits; i++) {
            log.spent(0, start, end);
        }
    }
}
