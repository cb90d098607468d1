package io.github.redissonratelimit.interceptor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitBackendUnavailableException.Reason;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * A caller that stops waiting for permits (an interrupted thread, a cancelled future, a cancelled subscription)
 * ends the wait: the permit that comes back later is not taken for nobody. Each limit allows one permit per two
 * seconds; the waiter is cancelled while the first grant still holds the permit, and the grants in Redis are
 * compared after the permit came back, when a waiter still retrying would have taken it.
 */
@ExtendWith(RealRedisExtension.class)
class CancelledWaitTest {

    /** Longer than the limits' interval: a wait that went on would have retried and taken the permit by then. */
    private static final long AFTER_THE_PERMIT_CAME_BACK_MILLIS = 3_000;

    /** Long enough for the waiter's first attempt to be rejected and its wait to start. */
    private static final long WHILE_WAITING_MILLIS = 300;

    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    @Test
    void anInterruptedBlockingCallerTakesNoPermit() throws Exception {
        assertNoGrantAfterCancel("blocking", waiters -> {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread caller = new Thread(() -> {
                try {
                    waiters.blocking();
                }
                catch (Throwable ex) {
                    thrown.set(ex);
                }
            });
            caller.start();
            Thread.sleep(WHILE_WAITING_MILLIS);
            caller.interrupt();
            caller.join(TimeUnit.SECONDS.toMillis(10));
            assertThat(thrown.get()).isInstanceOfSatisfying(RateLimitBackendUnavailableException.class,
                    ex -> assertThat(ex.getReason()).isEqualTo(Reason.INTERRUPTED));
        });
    }

    @Test
    void anInterruptedBlockingCallerUnderTheAllowPolicyTakesNoPermit() throws Exception {
        assertNoGrantAfterCancel("allowing", waiters -> {
            Thread caller = new Thread(() -> {
                try {
                    waiters.allowing();
                }
                catch (RuntimeException ex) {
                    // interrupted
                }
            });
            caller.start();
            Thread.sleep(WHILE_WAITING_MILLIS);
            caller.interrupt();
            caller.join(TimeUnit.SECONDS.toMillis(10));
        });
    }

    @Test
    void aCancelledFutureTakesNoPermit() throws Exception {
        assertNoGrantAfterCancel("future", waiters -> {
            CompletableFuture<String> call = waiters.future();
            Thread.sleep(WHILE_WAITING_MILLIS);
            assertThat(call.cancel(true)).as("still waiting when cancelled").isTrue();
        });
    }

    @Test
    void aCancelledSubscriptionTakesNoPermit() throws Exception {
        assertNoGrantAfterCancel("mono", waiters -> {
            AtomicReference<String> value = new AtomicReference<>();
            Disposable subscription = waiters.mono().subscribe(value::set);
            Thread.sleep(WHILE_WAITING_MILLIS);
            subscription.dispose();
            assertThat(value.get()).as("still waiting when cancelled").isNull();
        });
    }

    private void assertNoGrantAfterCancel(String key, Step cancelledWait) throws Exception {
        String permits = "rate_limit:{cancel:" + key + "}:permits";
        try (LimitedBeans beans = LimitedBeans.start(redis, Waiters.class); RespClient cli = redis.cli()) {
            Waiters waiters = beans.bean(Waiters.class);
            take(waiters, key);
            List<Object> grantsBefore = cli.list("ZRANGE", permits, "0", "-1", "WITHSCORES");
            assertThat(grantsBefore).as("the first call's grant").hasSize(2);

            cancelledWait.run(waiters);
            Thread.sleep(AFTER_THE_PERMIT_CAME_BACK_MILLIS);

            assertThat(cli.list("ZRANGE", permits, "0", "-1", "WITHSCORES"))
                    .as("the grants in Redis once the permit came back").isEqualTo(grantsBefore);
        }
    }

    /** Takes the one permit of {@code key}'s limit (through the proxy), so that the next call waits. */
    private static void take(Waiters waiters, String key) {
        switch (key) {
            case "blocking" -> waiters.blocking();
            case "allowing" -> waiters.allowing();
            case "future" -> waiters.future().join();
            case "mono" -> waiters.mono().block();
            default -> throw new IllegalArgumentException(key);
        }
    }

    @FunctionalInterface
    private interface Step {

        void run(Waiters waiters) throws Exception;
    }

    public static class Waiters {

        @RateLimit(key = "'cancel:blocking'", rate = 1, interval = 2, waitTimeout = "10s")
        public String blocking() {
            return "blocking";
        }

        @RateLimit(key = "'cancel:allowing'", rate = 1, interval = 2, waitTimeout = "10s",
                onBackendError = BackendErrorPolicy.ALLOW)
        public String allowing() {
            return "allowing";
        }

        @RateLimit(key = "'cancel:future'", rate = 1, interval = 2, waitTimeout = "10s")
        public CompletableFuture<String> future() {
            return CompletableFuture.completedFuture("future");
        }

        @RateLimit(key = "'cancel:mono'", rate = 1, interval = 2, waitTimeout = "10s")
        public Mono<String> mono() {
            return Mono.just("mono");
        }
    }
}
