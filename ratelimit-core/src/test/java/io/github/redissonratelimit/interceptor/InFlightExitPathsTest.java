package io.github.redissonratelimit.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.test.redis.InFlightPermits;
import io.github.redissonratelimit.test.redis.TestRedis;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A call limited in flight holds its permit from its start to its end and gives it back on every exit path: return,
 * throw, a future completed, failed or cancelled before the method ran, a Mono completed, failed or cancelled, a Flux
 * completed or cancelled. Each limit holds one permit at once with the default lease of 30 s, renewed while held: a
 * permit that comes back within {@link InFlightPermits#GIVEN_BACK_WITHIN} was given back, not left to expire.
 */
class InFlightExitPathsTest {

    private static final Queue<Runnable> gated = new ConcurrentLinkedQueue<>();
    private static final AtomicBoolean gate = new AtomicBoolean();
    private static LimitedBeans beans;
    private static Calls calls;

    private final InFlightPermits redis = new InFlightPermits(TestRedis.endpoint());

    @BeforeAll
    static void start() {
        TestRedis.endpoint().flushAll();
        // the method of a future runs on this executor: held back while the gate is shut
        Executor executor = task -> {
            if (gate.get()) {
                gated.add(task);
            }
            else {
                task.run();
            }
        };
        beans = LimitedBeans.start(TestRedis.endpoint(), interceptor -> interceptor.setAsyncExecutor(executor),
                Calls.class);
        calls = beans.bean(Calls.class);
    }

    @AfterAll
    static void stop() {
        beans.close();
    }

    @Test
    void aReturnGivesThePermitBack() {
        assertThat(calls.returns(() -> redis.held("exit:return"))).as("held during the call").isEqualTo(1);
        redis.awaitGivenBack("exit:return");
        assertThat(calls.returns(() -> 0)).as("a second call passes").isZero();
    }

    @Test
    void aThrowGivesThePermitBack() {
        assertThatThrownBy(() -> calls.fails(() -> redis.held("exit:throw"))).hasMessage("held 1");
        redis.awaitGivenBack("exit:throw");
    }

    @Test
    void aCompletedFutureGivesThePermitBack() {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> call = calls.future(work);
        redis.awaitHeld("exit:future", 1);
        assertThat(call).isNotDone();
        work.complete("done");
        assertThat(call.join()).isEqualTo("done");
        redis.awaitGivenBack("exit:future");
    }

    @Test
    void aFailedFutureGivesThePermitBack() {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> call = calls.futureFailing(work);
        redis.awaitHeld("exit:future-failed", 1);
        work.completeExceptionally(new IllegalStateException("failed"));
        assertThatThrownBy(call::join).isInstanceOf(CompletionException.class).hasRootCauseMessage("failed");
        redis.awaitGivenBack("exit:future-failed");
    }

    @Test
    void aFutureCancelledBeforeItsMethodRanGivesThePermitBack() {
        AtomicInteger ran = new AtomicInteger();
        gate.set(true);
        try {
            CompletableFuture<String> call = calls.futureCancelled(ran);
            redis.awaitHeld("exit:future-cancelled", 1);
            while (gated.isEmpty()) {
                Thread.onSpinWait(); // the method's turn is queued once the grant came back
            }
            assertThat(call.cancel(false)).isTrue();
        }
        finally {
            gate.set(false);
            gated.forEach(Runnable::run);
            gated.clear();
        }
        redis.awaitGivenBack("exit:future-cancelled");
        assertThat(ran).as("the method never ran").hasValue(0);
    }

    @Test
    void aCompletedMonoGivesThePermitBack() {
        Sinks.One<String> work = Sinks.one();
        CompletableFuture<String> call = calls.mono("exit:mono", work.asMono()).toFuture();
        redis.awaitHeld("exit:mono", 1);
        work.tryEmitValue("done");
        assertThat(call.join()).isEqualTo("done");
        redis.awaitGivenBack("exit:mono");
    }

    @Test
    void aFailedMonoGivesThePermitBack() {
        Sinks.One<String> work = Sinks.one();
        CompletableFuture<String> call = calls.mono("exit:mono-failed", work.asMono()).toFuture();
        redis.awaitHeld("exit:mono-failed", 1);
        work.tryEmitError(new IllegalStateException("failed"));
        assertThatThrownBy(call::join).hasRootCauseMessage("failed");
        redis.awaitGivenBack("exit:mono-failed");
    }

    @Test
    void aCancelledMonoGivesThePermitBack() {
        Disposable subscription = calls.mono("exit:mono-cancelled", Mono.never()).subscribe();
        redis.awaitHeld("exit:mono-cancelled", 1);
        subscription.dispose();
        redis.awaitGivenBack("exit:mono-cancelled");
    }

    @Test
    void aCompletedFluxGivesThePermitBack() {
        Sinks.Many<String> work = Sinks.many().unicast().onBackpressureBuffer();
        CompletableFuture<Long> call = calls.flux("exit:flux", work.asFlux()).count().toFuture();
        redis.awaitHeld("exit:flux", 1);
        work.tryEmitNext("a");
        work.tryEmitNext("b");
        assertThat(redis.held("exit:flux")).as("held between elements").isEqualTo(1);
        work.tryEmitComplete();
        assertThat(call.join()).isEqualTo(2);
        redis.awaitGivenBack("exit:flux");
    }

    @Test
    void aCancelledFluxGivesThePermitBack() {
        Disposable subscription = calls.flux("exit:flux-cancelled", Flux.never()).subscribe();
        redis.awaitHeld("exit:flux-cancelled", 1);
        subscription.dispose();
        redis.awaitGivenBack("exit:flux-cancelled");
    }

    public static class Calls {

        @RateLimit(key = "'exit:return'", rate = 1, algorithm = RateLimitAlgorithm.IN_FLIGHT)
        public long returns(LongSupplier heldNow) {
            return heldNow.getAsLong();
        }

        @RateLimit(key = "'exit:throw'", rate = 1, algorithm = RateLimitAlgorithm.IN_FLIGHT)
        public long fails(LongSupplier heldNow) {
            throw new IllegalStateException("held " + heldNow.getAsLong());
        }

        @RateLimit(key = "'exit:future'", rate = 1, algorithm = RateLimitAlgorithm.IN_FLIGHT)
        public CompletableFuture<String> future(CompletableFuture<String> work) {
            return work;
        }

        @RateLimit(key = "'exit:future-failed'", rate = 1, algorithm = RateLimitAlgorithm.IN_FLIGHT)
        public CompletableFuture<String> futureFailing(CompletableFuture<String> work) {
            return work;
        }

        @RateLimit(key = "'exit:future-cancelled'", rate = 1, algorithm = RateLimitAlgorithm.IN_FLIGHT)
        public CompletableFuture<String> futureCancelled(AtomicInteger ran) {
            ran.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        }

        @RateLimit(key = "#key", rate = 1, algorithm = RateLimitAlgorithm.IN_FLIGHT)
        public Mono<String> mono(String key, Mono<String> work) {
            return work;
        }

        @RateLimit(key = "#key", rate = 1, algorithm = RateLimitAlgorithm.IN_FLIGHT)
        public Flux<String> flux(String key, Flux<String> work) {
            return work;
        }
    }
}
