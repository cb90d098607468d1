package io.github.redissonratelimit.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;

class DecisionDeadlinesTest {

    private static final Duration TIMEOUT = Duration.ofMillis(100);

    @Test
    void aFutureNotDoneFailsAtItsDeadlineNeverBefore() {
        DecisionDeadlines deadlines = new DecisionDeadlines(Duration.ofHours(1)); // the thread never gets there
        long before = System.nanoTime();
        CompletableFuture<String> pending = deadlines.within(new CompletableFuture<>());
        long after = System.nanoTime();
        long timeout = Duration.ofHours(1).toNanos();

        deadlines.expire(before + timeout - 1);
        assertThat(pending).isNotDone();

        deadlines.expire(after + timeout);
        assertThat(catchThrowable(pending::join)).hasCauseInstanceOf(TimeoutException.class);
        assertThat(deadlines.queued()).isZero();
    }

    @Test
    void theDeadlinesOfAnsweredFuturesAreDroppedWithoutTouchingThem() {
        DecisionDeadlines deadlines = new DecisionDeadlines(Duration.ofHours(1));
        CompletableFuture<String> answered = deadlines.within(new CompletableFuture<>());
        CompletableFuture<String> pending = deadlines.within(new CompletableFuture<>());
        CompletableFuture<String> answeredLater = deadlines.within(new CompletableFuture<>());
        answered.complete("first");
        answeredLater.complete("third");

        deadlines.expire(System.nanoTime());

        // the oldest pending one keeps its place; the done one before it is gone, the one behind it waits its turn
        assertThat(deadlines.queued()).isEqualTo(2);
        assertThat(answered.join()).isEqualTo("first");
        assertThat(pending).isNotDone();

        pending.complete("second");
        deadlines.expire(System.nanoTime());
        assertThat(deadlines.queued()).isZero();
        assertThat(answeredLater.join()).isEqualTo("third");
    }

    @Test
    void deadlinesAreExpiredInOrderOfTheirTimeWhileLaterOnesWait() {
        DecisionDeadlines deadlines = new DecisionDeadlines(Duration.ofHours(1));
        CompletableFuture<String> first = deadlines.within(new CompletableFuture<>());
        long between = System.nanoTime();
        CompletableFuture<String> second = deadlines.within(new CompletableFuture<>());

        deadlines.expire(between + Duration.ofHours(1).toNanos());

        assertThat(first).isCompletedExceptionally();
        assertThat(second).isNotDone();
        second.complete("answered"); // lets its thread end
    }

    @Test
    void itsThreadFailsAFutureNobodyAnswersAndEndsWhenNothingIsLeftToWatch() throws Exception {
        DecisionDeadlines deadlines = new DecisionDeadlines(TIMEOUT);
        CompletableFuture<String> pending = deadlines.within(new CompletableFuture<>());

        Throwable error = catchThrowable(() -> pending.get(30, TimeUnit.SECONDS));

        assertThat(error).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TimeoutException.class);
        awaitNoThread(deadlines);

        // a later deadline starts a thread again
        CompletableFuture<String> next = deadlines.within(new CompletableFuture<>());
        assertThat(catchThrowable(() -> next.get(30, TimeUnit.SECONDS))).hasCauseInstanceOf(TimeoutException.class);
        CompletableFuture<String> answered = deadlines.within(new CompletableFuture<>());
        answered.complete("in time");
        assertThat(answered.get(30, TimeUnit.SECONDS)).isEqualTo("in time");
    }

    private static void awaitNoThread(DecisionDeadlines deadlines) throws InterruptedException {
        for (int i = 0; i < 300 && deadlines.watching(); i++) {
            Thread.sleep(100);
        }
        assertThat(deadlines.watching()).as("the deadline thread ends once no deadline is left").isFalse();
    }
}
