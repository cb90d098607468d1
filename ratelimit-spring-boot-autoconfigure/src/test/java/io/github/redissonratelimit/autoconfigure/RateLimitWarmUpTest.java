package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.DelegatingRateLimitBackend;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.outcome.RateLimitOutcome;
import io.github.redissonratelimit.outcome.CircuitState;
import io.github.redissonratelimit.resilience.CircuitStates;
import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * The warm start ({@link RateLimitScriptWarmUp}, {@link WarmUpDecisions}): before the context is up, real decisions
 * ran on a throwaway limiter through the Redisson backend and its decorators, left no key behind and told the
 * listeners nothing. The cold-start burst itself is {@code ColdStartBurstTest} in the sample app.
 */
@ExtendWith(RealRedisExtension.class)
class RateLimitWarmUpTest {

    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, AopAutoConfiguration.class))
                .withPropertyValues(RateLimitAutoConfigurationRedisTest.TEST_BACKEND_TIMEOUT)
                .withBean(RedissonClient.class, redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown"));
    }

    @Test
    void decisionsRunThroughTheWholeBackendBeforeTheContextIsUpAndLeaveNoKey() {
        CommandStats before = redis.commandStats();
        CountingDecorator counting = new CountingDecorator();
        RecordingListener listener = new RecordingListener();
        runner().withBean("countingDecorator", RateLimitBackendDecorator.class, () -> counting)
                .withBean(RecordingListener.class, () -> listener)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    CommandStats delta = redis.commandStats().minus(before);
                    int acquisitions = 1 + WarmUpDecisions.ROUNDS * WarmUpDecisions.CONCURRENT
                            + WarmUpDecisions.THROUGH_DECORATORS;
                    assertThat(delta.calls("evalsha") + delta.calls("evalsha_ro")).as("commands: %s", delta)
                            .isGreaterThanOrEqualTo(acquisitions + 2); // and a state read and a refund
                    assertThat(counting.acquisitions).as("through the decorators").hasValue(
                            WarmUpDecisions.THROUGH_DECORATORS);
                    // the only key left is the instance heartbeat of the local outage policy
                    assertThat(redis.keys("*")).as("the throwaway limiter's keys are deleted")
                            .containsOnly("ratelimit-instances:{rate_limit:}");
                    CircuitStates resilience = context.getBean(ResilienceDecorator.class).circuits();
                    assertThat(resilience.getState()).isEqualTo(CircuitState.CLOSED);
                    assertThat(resilience.getFailureCount()).isZero();
                    assertThat(listener.events).as("no outcome, failure or circuit change for the warm-up").isEmpty();
                });
    }

    @Test
    void theThrowawayLimiterCannotBeOneOfTheApplication() {
        runner().withPropertyValues("ratelimit.key-prefix=shop:").run(context -> {
            WarmUpDecisions decisions = new WarmUpDecisions(context.getBean(RedissonClient.class), null, null, 5,
                    context.getBean(io.github.redissonratelimit.naming.LimiterNaming.class));
            String name = decisions.limiterName();
            assertThat(name).startsWith("shop:{ratelimit warm-up ").endsWith("}");
            io.github.redissonratelimit.naming.LimiterNaming naming = context
                    .getBean(io.github.redissonratelimit.naming.LimiterNaming.class);
            // a logical key made of the same text is escaped: its space can never appear raw
            assertThat(naming.limiterName(name.substring("shop:{".length(), name.length() - 1))).isNotEqualTo(name);
            assertThat(new WarmUpDecisions(context.getBean(RedissonClient.class), null, null, 5, naming).limiterName())
                    .as("one per instance").isNotEqualTo(name);
        });
    }

    @Test
    void fewerDecisionsThroughTheCircuitBreakerThanItsFailureThreshold() {
        for (int threshold : new int[] { 1, 2 }) {
            CountingDecorator counting = new CountingDecorator();
            runner().withPropertyValues("ratelimit.circuit-breaker.failure-threshold=" + threshold)
                    .withBean("countingDecorator", RateLimitBackendDecorator.class, () -> counting)
                    .run(context -> assertThat(counting.acquisitions).as("threshold %d", threshold)
                            .hasValue(threshold - 1));
        }
    }

    @Test
    void anApplicationsOwnBackendGetsNoWarmUpDecisions() {
        runner().withBean(RateLimitAutoConfiguration.REDISSON_BACKEND, RateLimitBackend.class, TestBackends::unused)
                .run(context -> assertThat(context).hasNotFailed()); // unused() fails any call
    }

    /** A decorator of the application, which follows the {@code getDelegate()} convention. */
    static final class CountingDecorator implements RateLimitBackendDecorator {

        final AtomicInteger acquisitions = new AtomicInteger();

        @Override
        public RateLimitBackend decorate(RateLimitBackend backend) {
            return new Counting(backend, acquisitions);
        }
    }

    /** A decorator of the application's own, which says what it wraps as the SPI asks. */
    public static final class Counting implements DelegatingRateLimitBackend {

        private final RateLimitBackend delegate;
        private final AtomicInteger acquisitions;

        Counting(RateLimitBackend delegate, AtomicInteger acquisitions) {
            this.delegate = delegate;
            this.acquisitions = acquisitions;
        }

        @Override
        public CompletionStage<Decision> acquire(AcquireRequest request) {
            String limiterName = request.limiterName();
            LimitSpec spec = request.spec();
            long permits = request.permits();
            acquisitions.incrementAndGet();
            return delegate.acquire(limiterName, spec, permits);
        }

        @Override
        public RateLimitBackend getDelegate() {
            return delegate;
        }
    }

    static final class RecordingListener implements RateLimitListener {

        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void onOutcomes(List<RateLimitOutcome> outcomes) {
            outcomes.forEach(outcome -> events.add("outcome " + outcome.limiterName()));
        }

        @Override
        public void onBackendFailure(String limiterName, Throwable error) {
            events.add("failure " + limiterName + " " + error);
        }

        @Override
        public void onCircuitStateChange(CircuitState from, CircuitState to) {
            events.add(from + " -> " + to);
        }
    }
}
