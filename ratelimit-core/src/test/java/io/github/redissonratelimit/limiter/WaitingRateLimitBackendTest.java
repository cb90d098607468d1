package io.github.redissonratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.annotation.RateLimitMode;

/**
 * {@link WaitingRateLimitBackend} when its caller is gone (pure logic; against Redis see
 * {@code CancelledWaitTest}): an attempt under way when the wait is cancelled may still be granted, and that grant
 * is given back.
 */
class WaitingRateLimitBackendTest {

    private static final LimitSpec SPEC = new LimitSpec(1, Duration.ofSeconds(1), RateLimitMode.OVERALL);

    private final List<CompletableFuture<Decision>> attempts = new CopyOnWriteArrayList<>();
    private final List<String> released = new CopyOnWriteArrayList<>();

    private final RateLimitBackend backend = new RateLimitBackend() {

        @Override
        public CompletionStage<Decision> acquire(AcquireRequest request) {
            String limiterName = request.limiterName();
            LimitSpec spec = request.spec();
            long permits = request.permits();
            CompletableFuture<Decision> attempt = new CompletableFuture<>();
            attempts.add(attempt);
            return attempt;
        }

        @Override
        public CompletionStage<Void> release(AcquireRequest request, Decision granted) {
            String limiterName = request.limiterName();
            LimitSpec spec = request.spec();
            long permits = request.permits();
            released.add(limiterName + " x" + permits);
            return CompletableFuture.completedFuture(null);
        }
    };

    @Test
    void aGrantMadeAfterTheCallerCancelledIsGivenBack() {
        CompletableFuture<Decision> wait = new WaitingRateLimitBackend(backend)
                .acquire(AcquireRequest.of("limiter", SPEC, 1).waitingUpTo(Duration.ofSeconds(10))).toCompletableFuture();

        assertThat(wait.cancel(false)).isTrue();
        attempts.get(0).complete(Decision.allow());

        assertThat(released).containsExactly("limiter x1");
        assertThat(attempts).as("no further attempt").hasSize(1);
    }

    @Test
    void aRejectionAfterTheCallerCancelledEndsTheWait() {
        CompletableFuture<Decision> wait = new WaitingRateLimitBackend(backend)
                .acquire(AcquireRequest.of("limiter", SPEC, 1).waitingUpTo(Duration.ofSeconds(10))).toCompletableFuture();

        wait.cancel(false);
        attempts.get(0).complete(Decision.reject(Duration.ofMillis(1)));

        assertThat(released).isEmpty();
        assertThat(attempts).as("no retry for a caller who is gone").hasSize(1);
    }

    @Test
    void aGrantForACallerStillWaitingIsKept() {
        CompletableFuture<Decision> wait = new WaitingRateLimitBackend(backend)
                .acquire(AcquireRequest.of("limiter", SPEC, 1).waitingUpTo(Duration.ofSeconds(10))).toCompletableFuture();

        attempts.get(0).complete(Decision.allow());

        assertThat(wait).isCompletedWithValue(Decision.allow());
        assertThat(released).isEmpty();
    }
}
