package io.github.redissonratelimit.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.contract.Algorithm.Limit;
import io.github.redissonratelimit.contract.Ledger.Grant;
import io.github.redissonratelimit.contract.Ledger.Loss;

/**
 * The check the contract's runs make ({@link LawCheck}), on grants written by hand: each law lets its bound through
 * and catches one permit more; a grant known only within a long range is not counted where it may not have been; a
 * loss of state allows one reset; an allowance its permits; grants of two configs are bound by the more generous.
 */
class LawCheckTest {

    private static final Duration SECOND = Duration.ofSeconds(1);
    /** A second of the epoch, ms: the start of a fixed window of a second and of a calendar hour in UTC. */
    private static final long START = 1_700_000_000_000L;

    private static Grant at(Limit limit, long millis) {
        return within(limit, millis, millis);
    }

    private static Grant within(Limit limit, long fromMillis, long toMillis) {
        return new Grant("k", limit, 1, (START + fromMillis) * 1_000, (START + toMillis) * 1_000, "");
    }

    private static boolean exceeded(List<Grant> grants, Loss... losses) {
        List<Grant> sorted = new ArrayList<>(grants);
        sorted.sort(java.util.Comparator.comparingLong(Grant::fromMicros));
        return LawCheck.worst(sorted, List.of(losses)).exceeded();
    }

    @Test
    void aSlidingWindowHoldsItsRateInAnyWindowOfItsInterval() {
        Limit eight = Algorithm.SLIDING_WINDOW.limit(8, 0, SECOND, null);
        List<Grant> grants = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            grants.add(at(eight, i * 10));
            grants.add(at(eight, 1_000 + i * 10)); // each one an interval after its twin
        }
        assertThat(exceeded(grants)).isFalse();
        grants.add(at(eight, 995));
        assertThat(exceeded(grants)).as("9 within 1000 ms").isTrue();
    }

    @Test
    void aTokenBucketHoldsItsBurstAndTheRateOverAnySpan() {
        Limit bucket = Algorithm.TOKEN_BUCKET.limit(8, 3, SECOND, null); // a permit every 125 ms
        List<Grant> grants = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            grants.add(at(bucket, 0));
        }
        for (int refill = 1; refill <= 8; refill++) {
            grants.add(at(bucket, refill * 125));
        }
        assertThat(exceeded(grants)).isFalse();
        grants.add(at(bucket, 5 * 125 + 60));
        assertThat(exceeded(grants)).as("one permit before its refill").isTrue();
    }

    @Test
    void aFixedWindowHoldsItsRateInEachWindow() {
        Limit eight = Algorithm.FIXED_WINDOW.limit(8, 0, SECOND, null);
        List<Grant> grants = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            grants.add(at(eight, 990 + i)); // the end of one window
            grants.add(at(eight, 1_000 + i)); // and the start of the next
        }
        assertThat(exceeded(grants)).as("16 within 18 ms, across the window's end").isFalse();
        grants.add(at(eight, 1_999));
        assertThat(exceeded(grants)).as("9 in one window").isTrue();
    }

    @Test
    void aCalendarQuotaHoldsItsRateInEachWindowOfItsZone() {
        // the zone's hours start 30 minutes into UTC's: START + 30 min ends one of them
        Limit quota = Algorithm.CALENDAR_WINDOW.limit(3, 0, null, Instant.ofEpochMilli(START + 1_800_000));
        List<Grant> grants = new ArrayList<>(List.of(at(quota, 1_799_000), at(quota, 1_799_500), at(quota, 1_799_900),
                at(quota, 1_800_000), at(quota, 1_800_100), at(quota, 1_800_200)));
        assertThat(exceeded(grants)).isFalse();
        grants.add(at(quota, 0));
        assertThat(exceeded(grants)).as("4 in the hour ending at START + 30 min").isTrue();
    }

    @Test
    void aGrantIsCountedOnlyInSpansThatHoldItsWholeRange() {
        Limit eight = Algorithm.SLIDING_WINDOW.limit(8, 0, SECOND, null);
        List<Grant> grants = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            grants.add(at(eight, 500 + i));
        }
        grants.add(within(eight, 0, 1_600)); // made somewhere within 1.6 s: maybe more than 1 s from the others
        assertThat(exceeded(grants)).isFalse();
        grants.add(within(eight, 400, 600));
        assertThat(exceeded(grants)).as("surely within 1 s of the 8").isTrue();
    }

    @Test
    void aLossOfStateAllowsOneResetInTheSpansThatMayHoldIt() {
        Limit eight = Algorithm.SLIDING_WINDOW.limit(8, 0, SECOND, null);
        List<Grant> grants = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            grants.add(at(eight, i * 20));
        }
        Loss loss = new Loss("DEL", (START + 150) * 1_000, (START + 160) * 1_000);
        assertThat(exceeded(grants, loss)).isFalse();
        assertThat(exceeded(grants, new Loss("DEL", (START + 400) * 1_000, (START + 401) * 1_000)))
                .as("the loss came after the grants").isTrue();
        grants.add(at(eight, 300));
        assertThat(exceeded(grants, loss)).as("more than one reset").isTrue();
    }

    @Test
    void aGrantMadeBeforeALossAndGivenBackAfterItIsNotAllowedOnceMore() {
        Limit eight = Algorithm.FIXED_WINDOW.limit(8, 0, SECOND, null);
        Ledger ledger = new Ledger();
        ledger.lost("k", "DEL", (START + 100) * 1_000, (START + 110) * 1_000);
        for (int i = 0; i < 9; i++) { // after the loss, one more than the rate
            ledger.kept(at(eight, 200 + i * 10));
        }
        assertThat(ledger.check("k").exceeded()).isTrue();
        // a grant made before the loss, given back after it: the fresh window never counted it, nothing comes back
        ledger.gaveBack(new Ledger.Refund("k", 1, (START + 50) * 1_000, (START + 250) * 1_000, (START + 260) * 1_000));
        assertThat(ledger.check("k").exceeded()).isTrue();
    }

    @Test
    void anAllowanceLetsItsPermitsThroughOnceInTheSpansThatMayHoldPartOfIt() {
        Limit five = Algorithm.SLIDING_WINDOW.limit(5, 0, SECOND, null);
        Ledger ledger = new Ledger();
        for (int i = 0; i < 8; i++) { // 5 from Redis, then 3 in memory while it stalled
            ledger.kept(at(five, i * 100));
        }
        List<Ledger.Allowance> stall = List.of(new Ledger.Allowance("a share", 3, (START + 450) * 1_000,
                (START + 460) * 1_000));
        assertThat(ledger.check("k", stall).exceeded()).isFalse();
        assertThat(ledger.check("k", List.of(new Ledger.Allowance("a share", 3, (START + 800) * 1_000,
                (START + 900) * 1_000))).exceeded()).as("after the grants").isTrue();
        ledger.kept(at(five, 750));
        assertThat(ledger.check("k", stall).exceeded()).as("one more than the allowance").isTrue();
    }

    @Test
    void grantsOfTwoConfigsAreBoundByTheMoreGenerous() {
        Limit eight = Algorithm.SLIDING_WINDOW.limit(8, 0, SECOND, null);
        Limit bucket = Algorithm.TOKEN_BUCKET.limit(8, 12, SECOND, null);
        List<Grant> grants = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            grants.add(at(i < 8 ? eight : bucket, i));
        }
        assertThat(exceeded(grants)).as("12 at once: the bucket's burst").isFalse();
        grants.add(at(eight, 20));
        assertThat(exceeded(grants)).as("13: more than either").isTrue();
    }
}
