package io.github.redissonratelimit.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;

/** What the local fallback writes back to Redis, and when: a writer that records the writes and answers on demand. */
class WriteBackTest {

    private static final LimitSpec FIVE_PER_MINUTE = new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.OVERALL);

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final List<List<GrantWriter.Grant>> writes = new ArrayList<>();
    private final List<CompletableFuture<Long>> answers = new ArrayList<>();
    private final LocalFallback fallback = new LocalFallback(InstanceCount.fixed(2, 0), 100, Duration.ofSeconds(1),
            now::get).writeBackTo((name, spec, grants) -> {
                writes.add(grants);
                CompletableFuture<Long> answer = new CompletableFuture<>();
                answers.add(answer);
                return answer;
            });

    private void advance(Duration duration) {
        now.addAndGet(duration.toNanos());
    }

    private void redisAnswers() {
        fallback.answeredByRedis("rl:{u}", FIVE_PER_MINUTE, 1, Decision.allow(new LimitState(4, Duration.ZERO)));
    }

    @Test
    void nothingIsKeptOrSentWhileNoGrantWasMadeInMemory() {
        redisAnswers();
        assertThat(writes).isEmpty();
        assertThat(fallback.writeBeforeDeciding("rl:{u}")).isNull();
        assertThat(fallback.getUnwrittenLimiterCount()).isZero();
    }

    @Test
    void whenRedisAnswersTheGrantsMadeInMemoryAreWrittenWithTheirAgesAndTheNextDecisionWaitsForThem() {
        assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed()).isTrue();
        advance(Duration.ofSeconds(10));
        assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 2).allowed()).isTrue();
        advance(Duration.ofSeconds(5));
        redisAnswers();

        assertThat(writes).hasSize(1);
        assertThat(writes.get(0)).extracting(GrantWriter.Grant::permits).containsExactly(1L, 2L);
        assertThat(writes.get(0)).extracting(GrantWriter.Grant::ageMillis).containsExactly(15_000L, 5_000L);
        CompletableFuture<Void> before = fallback.writeBeforeDeciding("rl:{u}");
        assertThat(before).as("the limiter's next decision waits for the write").isNotNull().isNotDone();

        answers.get(0).complete(3L);
        assertThat(before).isDone();
        assertThat(fallback.writeBeforeDeciding("rl:{u}")).isNull();
        assertThat(fallback.getWrittenBackCount()).isEqualTo(3);
        assertThat(fallback.getUnwrittenLimiterCount()).as("written: nothing kept").isZero();
        redisAnswers();
        assertThat(writes).as("nothing written twice").hasSize(1);
    }

    @Test
    void aFailedWriteIsSentAgainWithTheSameIdsSoThatRedisCountsEachGrantOnce() {
        fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1);
        redisAnswers();
        answers.get(0).completeExceptionally(new IllegalStateException("Redis went away again"));
        assertThat(fallback.getUnwrittenLimiterCount()).isOne();
        fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1);
        advance(Duration.ofSeconds(1));
        redisAnswers();

        assertThat(writes).hasSize(2);
        assertThat(writes.get(1)).hasSize(2);
        assertThat(writes.get(1).get(0).id()).isEqualTo(writes.get(0).get(0).id());
        assertThat(writes.get(1).get(1).id()).isNotEqualTo(writes.get(0).get(0).id());
    }

    @Test
    void aWriteAnsweredSlowlyIsSentAgainAtOnceSoThatRedisKeepsTheEarlierPlacement() {
        fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1);
        redisAnswers();
        advance(WriteBack.SLOW_WRITE.plusMillis(1)); // it waited on its way: its grant was placed that much late
        answers.get(0).complete(1L);

        assertThat(writes).hasSize(2);
        assertThat(writes.get(1).get(0).id()).isEqualTo(writes.get(0).get(0).id());
        answers.get(1).complete(0L);
        assertThat(fallback.getUnwrittenLimiterCount()).isZero();
        assertThat(fallback.getWrittenBackCount()).isEqualTo(1);
    }

    @Test
    void grantsThatLeftTheWindowAreNotWritten() {
        fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1);
        advance(Duration.ofMinutes(1));
        redisAnswers();
        assertThat(writes).isEmpty();
        assertThat(fallback.getUnwrittenLimiterCount()).isZero();
    }

    @Test
    void aGrantGivenBackBeforeItWasWrittenIsNotWritten() {
        fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1);
        fallback.released("rl:{u}", 1);
        redisAnswers();
        assertThat(writes).isEmpty();
    }

    @Test
    void anInstanceWhoseDecisionsDoNotReachRedisStillWritesItsGrantsWithinAFractionOfTheInterval() throws Exception {
        // e.g. its circuit opened while Redis is healthy: no answer comes, the rounds write anyway
        List<List<GrantWriter.Grant>> written = new java.util.concurrent.CopyOnWriteArrayList<>();
        LocalFallback busy = new LocalFallback(InstanceCount.fixed(2, 0), 100, Duration.ofSeconds(1), now::get)
                .writeBackTo((name, spec, grants) -> {
                    written.add(grants);
                    return CompletableFuture.completedFuture(1L);
                });
        busy.decide("rl:{u}", new LimitSpec(5, Duration.ofSeconds(1), RateLimitMode.OVERALL), 1);
        // the round thread marks the grants written once the writer's stage completes, after the writer returned
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while ((written.isEmpty() || busy.getUnwrittenLimiterCount() > 0) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(written).as("written by a round, without any answer of Redis").hasSize(1);
        assertThat(busy.getUnwrittenLimiterCount()).isZero();
    }

    @Test
    void withoutAWriterNothingIsKept() {
        LocalFallback memoryOnly = new LocalFallback(InstanceCount.fixed(2, 0), 100, Duration.ofSeconds(1), now::get);
        memoryOnly.decide("rl:{u}", FIVE_PER_MINUTE, 1);
        assertThat(memoryOnly.getUnwrittenLimiterCount()).isZero();
    }
}
