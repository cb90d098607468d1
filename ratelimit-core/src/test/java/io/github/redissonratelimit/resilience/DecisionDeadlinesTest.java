package io.github.redissonratelimit.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

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
    }

    /** Dropped means no longer held: a future the deadlines let go of can be collected, one they hold cannot. */
    @Test
    void theDeadlinesOfAnsweredFuturesAreDroppedWithoutTouchingThem() {
        DecisionDeadlines deadlines = new DecisionDeadlines(Duration.ofHours(1));
        WeakReference<CompletableFuture<String>> answered = answeredWithin(deadlines, "first");
        CompletableFuture<String> pending = deadlines.within(new CompletableFuture<>());
        WeakReference<CompletableFuture<String>> answeredLater = answeredWithin(deadlines, "third");

        deadlines.expire(System.nanoTime());

        // the oldest pending one keeps its place; the done one before it is gone, the one behind it waits its turn
        assertThat(collected(answered)).as("the answered future before the pending one is dropped").isTrue();
        assertThat(collected(answeredLater)).as("the answered future behind the pending one waits its turn").isFalse();
        assertThat(answeredLater.get().join()).isEqualTo("third");
        assertThat(pending).isNotDone();

        pending.complete("second");
        deadlines.expire(System.nanoTime());
        assertThat(collected(answeredLater)).as("dropped once the pending one before it is answered").isTrue();
    }

    private static WeakReference<CompletableFuture<String>> answeredWithin(DecisionDeadlines deadlines, String answer) {
        CompletableFuture<String> future = deadlines.within(new CompletableFuture<>());
        future.complete(answer);
        return new WeakReference<>(future);
    }

    /** Whether the future was collected within a few collections: never, while anything holds it. */
    private static boolean collected(WeakReference<?> reference) {
        for (int i = 0; i < 20 && reference.get() != null; i++) {
            System.gc();
            LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
        }
        return reference.get() == null;
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
        Set<Thread> before = deadlineThreads();
        CompletableFuture<String> pending = deadlines.within(new CompletableFuture<>());
        Set<Thread> started = deadlineThreads();
        started.removeAll(before);
        assertThat(started).as("a thread watches the deadline").hasSize(1);

        Throwable error = catchThrowable(() -> pending.get(30, TimeUnit.SECONDS));

        assertThat(error).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TimeoutException.class);
        Thread watcher = started.iterator().next();
        watcher.join(30_000);
        assertThat(watcher.isAlive()).as("the deadline thread ends once no deadline is left").isFalse();

        // a later deadline starts a thread again
        CompletableFuture<String> next = deadlines.within(new CompletableFuture<>());
        assertThat(catchThrowable(() -> next.get(30, TimeUnit.SECONDS))).hasCauseInstanceOf(TimeoutException.class);
        CompletableFuture<String> answered = deadlines.within(new CompletableFuture<>());
        answered.complete("in time");
        assertThat(answered.get(30, TimeUnit.SECONDS)).isEqualTo("in time");
    }

    private static Set<Thread> deadlineThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.isAlive() && thread.getName().startsWith("ratelimit-deadlines-"))
                .collect(Collectors.toCollection(HashSet::new));
    }
}
