package io.github.redissonratelimit.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The law at spend time by grant, in Redis's ms ({@link ReceiptLog}, {@link ReceiptLaw}). */
class ReceiptLawTest {

    private static final long ORIGIN = 1_800_000_000_000L;

    private static final long RATE = 10;

    private static final long INTERVAL = 1_000;

    private static final long LEASE = 10;

    @TempDir
    Path files;

    @Test
    void aLeaseIsChargedToEveryWindowItCouldHaveBeenSpentIn() {
        try (ReceiptLog first = log("first"); ReceiptLog second = log("second")) {
            lease(first, 1_010, 10); // granted at 1,000 ms, spent until 1,010: Redis counts it until 2,010
            lease(second, 2_020, 10); // granted at 2,010, when Redis no longer counts the first
            ReceiptLaw.Result apart = ReceiptLaw.check(List.of(first, second), RATE, INTERVAL, LEASE);
            assertThat(apart.mostInAWindow()).isEqualTo(10);
            assertThat(apart.windowsOver()).isZero();
            assertThat(apart.spent()).isEqualTo(20);
            assertThat(apart.holds()).isTrue();
        }
        try (ReceiptLog first = log("third"); ReceiptLog second = log("fourth")) {
            lease(first, 1_010, 10);
            // granted at 2,009, while Redis still counts the first: spent maybe at 2,009, within 1 s of the first's
            // last spends at 1,010 (the window (1,009, 2,009])
            lease(second, 2_019, 10);
            ReceiptLaw.Result over = ReceiptLaw.check(List.of(first, second), RATE, INTERVAL, LEASE);
            assertThat(over.mostInAWindow()).isEqualTo(20);
            assertThat(over.windowsOver()).isEqualTo(1);
            assertThat(over.holds()).isFalse();
        }
    }

    @Test
    void aLeaseStampedAtItsGrantInsteadOfItsEndIsFoundOverTheRate() {
        // the grants of an algorithm that counted a lease from its grant for one interval: Redis would free its
        // permits at 2,000 ms, and grant the next lease then, while the first may have been spent until 1,010
        try (ReceiptLog spends = log("spends")) {
            lease(spends, 1_010, 10);
            lease(spends, 2_010, 10);
            ReceiptLaw.Result result = ReceiptLaw.check(List.of(spends), RATE, INTERVAL, LEASE);
            assertThat(result.mostInAWindow()).isEqualTo(20);
            assertThat(result.windowsOver()).isEqualTo(10); // n from 1,000 to 1,009
        }
    }

    @Test
    void aPlainGrantIsSpentInTheMillisecondRedisGrantedIt() {
        try (ReceiptLog spends = log("plain")) {
            plain(spends, 500_999, 10); // µs: the ms 500
            plain(spends, 1_500_000, 10); // ms 1,500, exactly one interval later: never in one window with them
            assertThat(ReceiptLaw.check(List.of(spends), RATE, INTERVAL, LEASE).windowsOver()).isZero();
            plain(spends, 1_499_999, 1); // ms 1,499: in the window (499, 1,499] with the first 10
            ReceiptLaw.Result over = ReceiptLaw.check(List.of(spends), RATE, INTERVAL, LEASE);
            assertThat(over.mostInAWindow()).isEqualTo(11);
            assertThat(over.windowsOver()).isEqualTo(1 + 999); // (499, 1,499], and n in [500, 1,498] with the last 10
            assertThat(over.spent()).isEqualTo(21);
        }
    }

    @Test
    void aPermitGivenBackIsNotCharged() {
        try (ReceiptLog spends = log("refund")) {
            lease(spends, 1_010, 10);
            spends.spent("l" + (ORIGIN + 1_010), -1, 0, 0, false);
            lease(spends, 2_019, 1);
            ReceiptLaw.Result result = ReceiptLaw.check(List.of(spends), RATE, INTERVAL, LEASE);
            assertThat(result.mostInAWindow()).isEqualTo(10);
            assertThat(result.holds()).isTrue();
        }
    }

    @Test
    void permitsServedDuringTheirCallAreCheckedAgainstTheirLeasesEnd() {
        try (ReceiptLog spends = log("calls")) {
            long end = ORIGIN + 1_010;
            String receipt = "l" + end;
            spends.spent(receipt, 1, (end - 1) * 1_000, end * 1_000 + 999, true); // ended within the end ms
            spends.spent(receipt, 2, end * 1_000 + 500, (end + 1) * 1_000, true); // open after the end ms
            spends.spent(receipt, 3, (end + 1) * 1_000, (end + 1) * 1_000, true); // started after it
            spends.spent(receipt, 4, (end + 5) * 1_000, (end + 6) * 1_000, false); // answered by Redis: its own grant
            ReceiptLaw.Result result = ReceiptLaw.check(List.of(spends), RATE, INTERVAL, LEASE);
            assertThat(result.servedInCall()).isEqualTo(6);
            assertThat(result.openAtLeaseEnd()).isEqualTo(2);
            assertThat(result.afterLeaseEnd()).isEqualTo(3);
            assertThat(result.spent()).isEqualTo(10);
            assertThat(result.holds()).as("a permit surely spent after its lease's end").isFalse();
        }
    }

    @Test
    void aReceiptOfAnotherFormIsCountedAsUnplaced() {
        try (ReceiptLog spends = log("unplaced")) {
            spends.spent(null, 1, 0, 0, false);
            spends.spent("r12:3", 2, 0, 0, false);
            spends.spent("x", 4, 0, 0, false);
            ReceiptLaw.Result result = ReceiptLaw.check(List.of(spends), RATE, INTERVAL, LEASE);
            assertThat(result.unplaced()).isEqualTo(7);
            assertThat(result.spent()).isZero();
            assertThat(result.holds()).isFalse();
        }
    }

    @Test
    void aGrantOutsideTheLogsSpanFailsTheDecisionThatGotIt() {
        try (ReceiptLog spends = log("outside")) {
            assertThatThrownBy(() -> spends.spent("l" + (ORIGIN - 1), 1, 0, 0, false))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("outside the log's span");
        }
    }

    private ReceiptLog log(String name) {
        return ReceiptLog.create(files.resolve(name), ORIGIN, 3_000);
    }

    private static void lease(ReceiptLog log, long endMillis, long permits) {
        log.spent("l" + (ORIGIN + endMillis), permits, 0, 0, false);
    }

    private static void plain(ReceiptLog log, long micros, long permits) {
        log.spent("r" + (ORIGIN * 1_000 + micros), permits, 0, 0, false);
    }
}
