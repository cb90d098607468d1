package io.github.redissonratelimit.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.util.context.Context;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.RateLimitKeyException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.outcome.RateLimitOutcome;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * CompletableFuture and reactive methods. Non-blocking is shown with {@code CLIENT PAUSE WRITE}: Redis
 * holds every script call until {@code CLIENT UNPAUSE}, so whatever the calling thread does before the
 * unpause, it did without waiting for Redis.
 */
@ExtendWith(RealRedisExtension.class)
class AsyncRateLimitingTest {

    private RedisEndpoint redis;
    private Scheduler caller;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
        caller = Schedulers.newSingle("caller");
    }

    @AfterEach
    void tearDown() {
        caller.dispose();
    }

    /** Runs {@code whilePaused} while Redis holds every write (and so every RRateLimiter script call). */
    private void withRedisPaused(RespClient cli, ThrowingRunnable whilePaused) throws Exception {
        cli.command("CLIENT", "PAUSE", "30000", "WRITE");
        try {
            whilePaused.run();
        }
        finally {
            cli.command("CLIENT", "UNPAUSE");
        }
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void aCompletableFutureMethodReturnsBeforeRedisAnswersAndRunsOffTheRedisThreads() throws Exception {
        try (LimitedBeans beans = LimitedBeans.start(redis, Quotes.class); RespClient cli = redis.cli()) {
            Quotes quotes = beans.bean(Quotes.class);
            AtomicReference<CompletableFuture<String>> future = new AtomicReference<>();

            withRedisPaused(cli, () -> {
                future.set(quotes.future("ACME"));
                assertThat(future.get()).isNotDone();
                assertThat(quotes.runs()).as("the method waits for its permit").isZero();
            });

            assertThat(future.get().get(30, TimeUnit.SECONDS)).isEqualTo("quote ACME");
            assertThat(quotes.lastThread()).doesNotContain("redisson").isNotEqualTo(Thread.currentThread().getName());
        }
    }

    @Test
    void aCompletableFutureMethodRunsOnTheConfiguredExecutor() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor(task -> new Thread(task, "quotes-executor"));
        try (LimitedBeans beans = LimitedBeans.start(redis, interceptor -> interceptor.setAsyncExecutor(executor),
                Quotes.class)) {
            Quotes quotes = beans.bean(Quotes.class);

            assertThat(quotes.future("ACME").get(30, TimeUnit.SECONDS)).isEqualTo("quote ACME");
            assertThat(quotes.lastThread()).isEqualTo("quotes-executor");
        }
        finally {
            executor.shutdown();
        }
    }

    @Test
    void aRejectedCompletableFutureCompletesExceptionallyOrWithTheFallback() throws Exception {
        try (LimitedBeans beans = LimitedBeans.start(redis, Quotes.class)) {
            Quotes quotes = beans.bean(Quotes.class);
            quotes.future("X").get(30, TimeUnit.SECONDS);
            quotes.future("X").get(30, TimeUnit.SECONDS);

            CompletableFuture<String> rejected = quotes.future("X");
            assertThatThrownBy(() -> rejected.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(RateLimitExceededException.class);
            assertThat(quotes.runs()).isEqualTo(2);

            assertThat(quotes.futureWithFallback("Y").get(30, TimeUnit.SECONDS)).isEqualTo("quote Y");
            assertThat(quotes.futureWithFallback("Y").get(30, TimeUnit.SECONDS)).isEqualTo("no quote for Y");
        }
    }

    @Test
    void aKeyThatCannotBeResolvedFailsTheFutureOrTheMono() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Quotes.class)) {
            Quotes quotes = beans.bean(Quotes.class);

            assertThat(quotes.futureByKey(null)).failsWithin(30, TimeUnit.SECONDS).withThrowableThat()
                    .withCauseInstanceOf(RateLimitKeyException.class);
            StepVerifier.create(quotes.monoByKey(null)).expectError(RateLimitKeyException.class).verify();
        }
    }

    @Test
    void subscribingToALimitedMonoDoesNotBlockTheSubscribingThread() throws Exception {
        try (LimitedBeans beans = LimitedBeans.start(redis, Quotes.class); RespClient cli = redis.cli()) {
            Quotes quotes = beans.bean(Quotes.class);
            List<String> events = new CopyOnWriteArrayList<>();
            CompletableFuture<String> result = new CompletableFuture<>();

            withRedisPaused(cli, () -> {
                Mono<String> mono = quotes.mono("ACME");
                caller.schedule(() -> {
                    mono.subscribe(value -> {
                        events.add("value");
                        result.complete(value + " on " + Thread.currentThread().getName());
                    }, result::completeExceptionally);
                    events.add("subscribed");
                });
                CountDownLatch nextTaskRan = new CountDownLatch(1);
                caller.schedule(() -> {
                    events.add("next task");
                    nextTaskRan.countDown();
                });
                assertThat(nextTaskRan.await(30, TimeUnit.SECONDS)).isTrue();
                // the caller's single thread went on to its next task while Redis held the decision
                assertThat(events).containsExactly("subscribed", "next task");
            });

            assertThat(result.get(30, TimeUnit.SECONDS)).startsWith("quote ACME on ").doesNotContain("caller");
            assertThat(events).containsExactly("subscribed", "next task", "value");
        }
    }

    @Test
    void everySubscriptionTakesPermitsAndARejectionIsAnError() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Quotes.class)) {
            Quotes quotes = beans.bean(Quotes.class);
            Mono<String> mono = quotes.mono("R");

            StepVerifier.create(mono).expectNext("quote R").verifyComplete();
            StepVerifier.create(mono).expectNext("quote R").verifyComplete();
            StepVerifier.create(mono).expectErrorSatisfies(ex -> assertThat(ex)
                    .isInstanceOfSatisfying(RateLimitExceededException.class,
                            rejection -> assertThat(rejection.getKey()).isEqualTo("mono:R"))).verify();
            assertThat(quotes.runs()).as("the Mono's work ran for the two allowed subscriptions").isEqualTo(2);
        }
    }

    @Test
    void aFluxTakesItsPermitsOncePerSubscriptionNotPerElement() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Quotes.class)) {
            Quotes quotes = beans.bean(Quotes.class);

            StepVerifier.create(quotes.flux("F")).expectNext("F1", "F2", "F3").verifyComplete();
            StepVerifier.create(quotes.flux("F")).expectError(RateLimitExceededException.class).verify();
        }
    }

    @Test
    void aRejectedMonoUsesItsFallback() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Quotes.class)) {
            Quotes quotes = beans.bean(Quotes.class);

            StepVerifier.create(quotes.monoWithFallback("Z")).expectNext("quote Z").verifyComplete();
            StepVerifier.create(quotes.monoWithFallback("Z")).expectNextMatches(value -> value.startsWith("later Z in "))
                    .verifyComplete();
        }
    }

    @Test
    void aReactiveCallRejectedByALaterLimitGivesBackTheEarlierGrants() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Quotes.class); RespClient cli = redis.cli()) {
            Quotes quotes = beans.bean(Quotes.class);

            StepVerifier.create(quotes.twoLimits("u")).expectNext("quote u").verifyComplete();
            for (int i = 0; i < 3; i++) {
                StepVerifier.create(quotes.twoLimits("u")).expectError(RateLimitExceededException.class).verify();
            }

            assertThat(cli.string("GET", "rate_limit:{burst:u}:value")).isEqualTo("2");
            assertThat(cli.number("ZCARD", "rate_limit:{burst:u}:permits")).isEqualTo(1);
        }
    }

    @Test
    void aMonoWaitsForItsPermitOnATimerNotOnTheSubscribingThread() throws Exception {
        try (LimitedBeans beans = LimitedBeans.start(redis, Quotes.class)) {
            Quotes quotes = beans.bean(Quotes.class);
            List<String> events = new CopyOnWriteArrayList<>();
            CountDownLatch done = new CountDownLatch(2);

            caller.schedule(() -> {
                for (int i = 0; i < 2; i++) {
                    quotes.patientMono().subscribe(value -> {
                        events.add(value);
                        done.countDown();
                    }, ex -> done.countDown());
                }
            });
            CountDownLatch nextTaskRan = new CountDownLatch(1);
            caller.schedule(() -> {
                events.add("next task");
                nextTaskRan.countDown();
            });

            assertThat(nextTaskRan.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
            // one permit per 3 seconds: the second subscription waited for it, and the caller's only thread
            // ran its next task meanwhile
            assertThat(events).hasSize(3).containsOnlyOnce("next task").endsWith("patient")
                    .filteredOn("patient"::equals).hasSize(2);
        }
    }

    @Test
    void aListenerInTheSubscriberContextIsToldTheDecisions() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Quotes.class)) {
            Quotes quotes = beans.bean(Quotes.class);
            List<RateLimitOutcome> seen = new CopyOnWriteArrayList<>();
            RateLimitListener listener = seen::addAll;

            quotes.mono("C").contextWrite(Context.of(RateLimitListener.class, listener)).block();

            assertThat(seen).singleElement().satisfies(outcome -> {
                assertThat(outcome.key()).isEqualTo("mono:C");
                assertThat(outcome.allowed()).isTrue();
                assertThat(outcome.displayName()).isEqualTo("Quotes.mono");
            });
            assertThat(beans.outcomes()).as("and the application's listeners").hasSize(1);
        }
    }

    public static class Quotes {

        private final AtomicInteger runs = new AtomicInteger();
        private volatile String lastThread;

        int runs() {
            return runs.get();
        }

        String lastThread() {
            return lastThread;
        }

        @RateLimit(key = "'future:' + #symbol", rate = 2, interval = 60)
        public CompletableFuture<String> future(String symbol) {
            runs.incrementAndGet();
            lastThread = Thread.currentThread().getName();
            return CompletableFuture.completedFuture("quote " + symbol);
        }

        @RateLimit(key = "#symbol", rate = 2, interval = 60)
        public CompletableFuture<String> futureByKey(String symbol) {
            return CompletableFuture.completedFuture(symbol);
        }

        @RateLimit(key = "#symbol", rate = 2, interval = 60)
        public Mono<String> monoByKey(String symbol) {
            return Mono.justOrEmpty(symbol);
        }

        @RateLimit(key = "'future-fallback:' + #symbol", rate = 1, interval = 60, fallback = "noQuote")
        public CompletableFuture<String> futureWithFallback(String symbol) {
            return CompletableFuture.completedFuture("quote " + symbol);
        }

        CompletableFuture<String> noQuote(String symbol) {
            return CompletableFuture.completedFuture("no quote for " + symbol);
        }

        @RateLimit(key = "'mono:' + #symbol", rate = 2, interval = 60)
        public Mono<String> mono(String symbol) {
            return Mono.fromCallable(() -> {
                runs.incrementAndGet();
                return "quote " + symbol;
            });
        }

        @RateLimit(key = "'flux:' + #symbol", rate = 1, interval = 60)
        public Flux<String> flux(String symbol) {
            return Flux.just(symbol + 1, symbol + 2, symbol + 3);
        }

        @RateLimit(key = "'mono-fallback:' + #symbol", rate = 1, interval = 60, fallback = "later")
        public Mono<String> monoWithFallback(String symbol) {
            return Mono.just("quote " + symbol);
        }

        Mono<String> later(String symbol, RateLimitExceededException ex) {
            return Mono.just("later " + symbol + " in " + ex.getRetryAfterSeconds() + "s");
        }

        @RateLimit(name = "burst", key = "'burst:' + #user", rate = 3, interval = 60)
        @RateLimit(name = "daily", key = "'daily:' + #user", rate = 1, interval = 1, unit = TimeUnit.DAYS)
        public Mono<String> twoLimits(String user) {
            return Mono.just("quote " + user);
        }

        @RateLimit(rate = 1, interval = 3, waitTimeout = "10s")
        public Mono<String> patientMono() {
            return Mono.just("patient");
        }
    }
}
