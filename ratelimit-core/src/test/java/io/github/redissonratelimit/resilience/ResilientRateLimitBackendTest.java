package io.github.redissonratelimit.resilience;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static io.github.redissonratelimit.limiter.BackendCalls.release;
import static io.github.redissonratelimit.limiter.BackendCalls.state;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisException;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitBackendUnavailableException.Reason;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.outcome.CircuitState;

/** The decorator's logic against scripted backends; {@link RedisOutageTest} runs it against a real Redis. */
class ResilientRateLimitBackendTest {

    private static final LimitSpec SPEC = new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.OVERALL);
    private static final Duration DEADLINE = Duration.ofMillis(50);

    private final List<CompletableFuture<Decision>> issued = new CopyOnWriteArrayList<>();
    private final AtomicInteger calls = new AtomicInteger();
    private final List<String> events = new CopyOnWriteArrayList<>();

    private final RateLimitListener listener = new RateLimitListener() {
        @Override
        public void onOutcomes(java.util.List<io.github.redissonratelimit.outcome.RateLimitOutcome> outcomes) {
        }

        @Override
        public void onBackendFailure(String limiterName, Throwable error) {
            events.add("failure " + error.getClass().getSimpleName());
        }

        @Override
        public void onBackendSkipped(String limiterName) {
            events.add("skipped");
        }

        @Override
        public void onCircuitStateChange(CircuitState from, CircuitState to) {
            events.add(from + "->" + to);
        }
    };

    /** A backend whose every answer comes from {@code answers}. */
    private RateLimitBackend backend(Supplier<CompletableFuture<Decision>> answers) {
        return new RateLimitBackend() {
            @Override
            public CompletionStage<Decision> acquire(AcquireRequest request) {
                String limiterName = request.limiterName();
                LimitSpec spec = request.spec();
                long permits = request.permits();
                calls.incrementAndGet();
                CompletableFuture<Decision> answer = answers.get();
                issued.add(answer);
                return answer;
            }
        };
    }

    private ResilientRateLimitBackend resilient(Supplier<CompletableFuture<Decision>> answers) {
        return new ResilientRateLimitBackend(backend(answers), DEADLINE, 3, Duration.ofMinutes(1), List.of(listener));
    }

    @Test
    void passesDecisionsThrough() {
        ResilientRateLimitBackend backend = resilient(() -> CompletableFuture.completedFuture(
                Decision.reject(Duration.ofSeconds(7))));

        assertThat(acquire(backend, "rl:{k}", SPEC, 1)).isEqualTo(Decision.reject(Duration.ofSeconds(7)));
        assertThat(backend.acquire("rl:{k}", SPEC, 1).toCompletableFuture().join()).isEqualTo(Decision.reject(Duration.ofSeconds(7)));
        assertThat(backend.getFailureCount()).isZero();
        assertThat(events).isEmpty();
    }

    @Test
    void anUnansweredCallEndsAtTheDeadlineAndIsCancelledAfterTheLivenessTime() {
        ResilientRateLimitBackend backend = resilient(CompletableFuture::new);

        assertThatThrownBy(() -> acquire(backend, "rl:{k}", SPEC, 1))
                .isInstanceOfSatisfying(RateLimitBackendUnavailableException.class, ex -> {
                    assertThat(ex.getReason()).isEqualTo(Reason.TIMEOUT);
                    assertThat(ex.getLimiterName()).isEqualTo("rl:{k}");
                    assertThat(ex.getMessage()).contains("within 50ms");
                    assertThat(ex.getRetryAfterSeconds()).isEqualTo(1);
                    // how long ago the call was sent, for the local policy: never less than the deadline it missed
                    assertThat(ex.getWaited()).isGreaterThanOrEqualTo(DEADLINE);
                });
        assertThat(backend.getFailureCount()).isEqualTo(1);
        assertThat(events).containsExactly("failure TimeoutException");
        awaitUnanswered(backend, 1);
        assertThat(issued).singleElement().satisfies(future -> assertThat(future).isCancelled());
        assertThat(backend.getLateAnswerCount()).isZero();
    }

    @Test
    void lateAnswersProveRedisAliveAndNeverOpenTheCircuit() {
        ResilientRateLimitBackend backend = resilient(CompletableFuture::new); // threshold 3
        for (int i = 0; i < 10; i++) {
            assertThatThrownBy(() -> acquire(backend, "rl:{k}", SPEC, 1))
                    .isInstanceOfSatisfying(RateLimitBackendUnavailableException.class,
                            ex -> assertThat(ex.getReason()).isEqualTo(Reason.TIMEOUT));
            issued.get(i).complete(Decision.allow()); // after its caller's deadline, within the liveness time
        }
        assertThat(backend.getLateAnswerCount()).isEqualTo(10);
        assertThat(backend.getUnansweredCount()).isZero();
        assertThat(backend.getState()).isEqualTo(CircuitState.CLOSED);
        assertThat(events).filteredOn(event -> event.contains("->")).isEmpty();
        assertThat(issued).noneMatch(CompletableFuture::isCancelled);
    }

    @Test
    void noAnswerWithinTheLivenessTimeOpensTheCircuitAndALateProbeAnswerClosesIt() {
        ResilientRateLimitBackend backend = new ResilientRateLimitBackend(backend(CompletableFuture::new),
                MasterCircuits.SINGLE, DEADLINE, Duration.ofMillis(150), 3, Duration.ofMillis(1), () -> List.of(listener));
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> acquire(backend, "rl:{k}", SPEC, 1));
        }
        awaitUnanswered(backend, 3);
        assertThat(backend.getState()).isEqualTo(CircuitState.OPEN);
        assertThat(issued).hasSize(3).allMatch(CompletableFuture::isCancelled);

        // the probe misses its deadline: the circuit stays half open (others skipped) until its answer comes
        awaitProbe(backend);
        assertThat(backend.getState()).isEqualTo(CircuitState.HALF_OPEN);
        assertThatThrownBy(() -> acquire(backend, "rl:{k}", SPEC, 1))
                .isInstanceOfSatisfying(RateLimitBackendUnavailableException.class, ex -> {
                    assertThat(ex.getReason()).isEqualTo(Reason.CIRCUIT_OPEN);
                    assertThat(ex.getWaited()).as("nothing sent").isZero();
                });
        issued.get(3).complete(Decision.allow());
        assertThat(backend.getState()).isEqualTo(CircuitState.CLOSED);
        assertThat(backend.getLateAnswerCount()).isEqualTo(1);
        assertThat(events).filteredOn(event -> event.contains("->"))
                .containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED");
    }

    @Test
    void anErrorAfterTheDeadlineCountsAsAFailure() {
        ResilientRateLimitBackend backend = resilient(CompletableFuture::new);
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> acquire(backend, "rl:{k}", SPEC, 1));
            issued.get(i).completeExceptionally(new RedisConnectionException("connection lost"));
        }
        assertThat(backend.getState()).isEqualTo(CircuitState.OPEN);
        assertThat(backend.getLateAnswerCount()).isZero();
        assertThat(backend.getUnansweredCount()).isZero();
    }

    @Test
    void theLivenessTimeMustBeLongerThanTheDeadline() {
        assertThatThrownBy(() -> new ResilientRateLimitBackend(backend(CompletableFuture::new), MasterCircuits.SINGLE,
                DEADLINE, DEADLINE, 3, Duration.ofSeconds(1), List::of))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("liveness");
        assertThat(ResilientRateLimitBackend.defaultLiveness(Duration.ofMillis(100))).isEqualTo(Duration.ofSeconds(1));
        assertThat(ResilientRateLimitBackend.defaultLiveness(Duration.ofSeconds(2))).isEqualTo(Duration.ofSeconds(4));
    }

    /** Waits (bounded) until the doubts settled as unanswered reach {@code count}: counted, not timed. */
    private static void awaitUnanswered(ResilientRateLimitBackend backend, long count) {
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (backend.getUnansweredCount() < count && System.nanoTime() < until) {
            Thread.onSpinWait();
        }
        assertThat(backend.getUnansweredCount()).isEqualTo(count);
    }

    /** Calls until one is let through as the probe (it misses its deadline: nothing answers). */
    private void awaitProbe(ResilientRateLimitBackend backend) {
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (calls.get() < 4 && System.nanoTime() < until) {
            try {
                acquire(backend, "rl:{k}", SPEC, 1);
            }
            catch (RateLimitBackendUnavailableException expected) {
                // skipped until the open duration passed, then the probe's deadline
            }
        }
        assertThat(calls).hasValue(4);
    }

    @Test
    void theAsynchronousCallHasTheSameDeadline() {
        ResilientRateLimitBackend backend = resilient(CompletableFuture::new);

        assertThatThrownBy(() -> backend.acquire("rl:{k}", SPEC, 1).toCompletableFuture().join())
                .isInstanceOf(CompletionException.class)
                .cause().isInstanceOfSatisfying(RateLimitBackendUnavailableException.class,
                        ex -> assertThat(ex.getReason()).isEqualTo(Reason.TIMEOUT));
        awaitUnanswered(backend, 1);
        assertThat(issued).singleElement().satisfies(future -> assertThat(future).isCancelled());
    }

    @Test
    void releaseAndStatePassThroughWithTheSameDeadline() {
        List<String> passed = new CopyOnWriteArrayList<>();
        CompletableFuture<LimitState> neverAnswered = new CompletableFuture<>();
        RateLimitBackend delegate = new RateLimitBackend() {
            @Override
            public CompletionStage<Decision> acquire(AcquireRequest request) {
                String limiterName = request.limiterName();
                LimitSpec spec = request.spec();
                long permits = request.permits();
                throw new AssertionError("not used");
            }

            @Override
            public CompletionStage<Void> release(AcquireRequest request, Decision granted) {
                String limiterName = request.limiterName();
                LimitSpec spec = request.spec();
                long permits = request.permits();
                passed.add("release " + limiterName + " " + permits);
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public CompletionStage<LimitState> state(String limiterName, LimitSpec spec) {
                passed.add("state " + limiterName);
                return limiterName.equals("rl:{slow}") ? neverAnswered
                        : CompletableFuture.completedFuture(new LimitState(4, Duration.ofSeconds(3)));
            }
        };
        ResilientRateLimitBackend backend = new ResilientRateLimitBackend(delegate, DEADLINE, 3, Duration.ofMinutes(1));

        release(backend, "rl:{k}", SPEC, 2);
        assertThat(state(backend, "rl:{k}", SPEC)).isEqualTo(new LimitState(4, Duration.ofSeconds(3)));
        assertThatThrownBy(() -> state(backend, "rl:{slow}", SPEC))
                .isInstanceOfSatisfying(RateLimitBackendUnavailableException.class,
                        ex -> assertThat(ex.getReason()).isEqualTo(Reason.TIMEOUT));

        assertThat(passed).containsExactly("release rl:{k} 2", "state rl:{k}", "state rl:{slow}");
        assertThat(neverAnswered).isCancelled();
        assertThat(backend.getState()).as("reads do not open the circuit").isEqualTo(CircuitState.CLOSED);
    }

    @Test
    void whileTheCircuitIsOpenReleaseAndStateDoNotTouchTheBackend() {
        ResilientRateLimitBackend backend = resilient(() -> CompletableFuture.failedFuture(
                new RedisConnectionException("Unable to connect to Redis server")));
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> acquire(backend, "rl:{k}", SPEC, 1));
        }

        assertThatThrownBy(() -> release(backend, "rl:{k}", SPEC, 1))
                .isInstanceOfSatisfying(RateLimitBackendUnavailableException.class,
                        ex -> assertThat(ex.getReason()).isEqualTo(Reason.CIRCUIT_OPEN));
        assertThatThrownBy(() -> backend.state("rl:{k}", SPEC).join()).cause()
                .isInstanceOfSatisfying(RateLimitBackendUnavailableException.class,
                        ex -> assertThat(ex.getReason()).isEqualTo(Reason.CIRCUIT_OPEN));
    }

    @Test
    void repeatedFailuresOpenTheCircuitAndLaterCallsSkipTheBackend() {
        ResilientRateLimitBackend backend = resilient(() -> CompletableFuture.failedFuture(
                new RedisConnectionException("Unable to connect to Redis server")));

        List<Reason> reasons = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            try {
                acquire(backend, "rl:{k}", SPEC, 1);
            }
            catch (RateLimitBackendUnavailableException ex) {
                reasons.add(ex.getReason());
                if (ex.getReason() == Reason.CIRCUIT_OPEN) {
                    assertThat(ex.getCause()).isInstanceOf(RedisConnectionException.class);
                    assertThat(ex.getRetryAfterSeconds()).isBetween(59L, 60L);
                }
            }
        }

        assertThat(reasons).hasSize(10).startsWith(Reason.ERROR, Reason.ERROR, Reason.ERROR)
                .endsWith(Reason.CIRCUIT_OPEN, Reason.CIRCUIT_OPEN);
        assertThat(calls).hasValue(3);
        assertThat(backend.getState()).isEqualTo(CircuitState.OPEN);
        assertThat(backend.getFailureCount()).isEqualTo(3);
        assertThat(backend.getSkippedCount()).isEqualTo(7);
        assertThat(events).startsWith("failure RedisConnectionException", "failure RedisConnectionException",
                "failure RedisConnectionException", "CLOSED->OPEN", "skipped").hasSize(11);
    }

    @Test
    void errorsThatAreNotOutagesReachTheCallerUnchangedAndDoNotCount() {
        IllegalStateException bug = new IllegalStateException("bug");
        RedisException scriptError = new RedisException("ERR user_script:1: Requested permits amount cannot exceed "
                + "defined rate script: 0123, on @user_script:1.. channel: [id: 0x1]");
        List<RuntimeException> failures = List.of(bug, scriptError);
        AtomicInteger next = new AtomicInteger();
        ResilientRateLimitBackend backend = resilient(() -> CompletableFuture.failedFuture(
                failures.get(next.getAndIncrement() % 2)));

        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> acquire(backend, "rl:{k}", SPEC, 1)).isSameAs(bug);
            assertThatThrownBy(() -> acquire(backend, "rl:{k}", SPEC, 1)).isSameAs(scriptError);
        }
        assertThat(backend.getState()).isEqualTo(CircuitState.CLOSED);
        assertThat(backend.getFailureCount()).isZero();
        assertThat(events).isEmpty();
    }

    @Test
    void aBackendThatThrowsInsteadOfFailingItsFutureIsHandledAlike() {
        RateLimitBackend throwing = new RateLimitBackend() {
            @Override
            public CompletionStage<Decision> acquire(AcquireRequest request) {
                String limiterName = request.limiterName();
                LimitSpec spec = request.spec();
                long permits = request.permits();
                throw new RedisConnectionException("refused");
            }
        };
        ResilientRateLimitBackend backend = new ResilientRateLimitBackend(throwing, DEADLINE, 3, Duration.ofSeconds(1));

        assertThatThrownBy(() -> acquire(backend, "rl:{k}", SPEC, 1))
                .isInstanceOfSatisfying(RateLimitBackendUnavailableException.class,
                        ex -> assertThat(ex.getReason()).isEqualTo(Reason.ERROR));
    }

    @Test
    void rejectsANonPositiveDeadline() {
        assertThatThrownBy(() -> new ResilientRateLimitBackend(backend(CompletableFuture::new), Duration.ZERO, 3,
                Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
    }
}
