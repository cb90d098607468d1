package io.github.redissonratelimit.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.contract.Algorithm.Limit;
import io.github.redissonratelimit.redis.BackendOptions;
import io.github.redissonratelimit.redis.LimiterClock;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.TestRedis;

/**
 * The contract's check fails a limiter that breaks its law on a real Redis: with {@code ratelimit.clock=client},
 * instances whose clocks are 2 h behind Redis's, right and 2 h ahead call a token bucket in turn, and each one after
 * the first finds the bucket full by its own clock (the writer's state is hours in its past), so three bursts come out
 * where one is allowed. The same instances on Redis's clock are what {@link AlgorithmContract} checks.
 */
class ClientClockBreaksTheLawTest {

    @Test
    void clientClocksTwoHoursApartBreakATokenBucketsLawAndTheCheckFindsIt() throws Exception {
        RedisEndpoint redis = TestRedis.endpoint();
        redis.flushAll();
        List<Instance> instances = new ArrayList<>();
        try {
            for (Duration offset : List.of(Duration.ofHours(-2), Duration.ZERO, Duration.ofHours(2))) {
                instances.add(Instance.start(redis, offset, Duration.ofSeconds(1), Duration.ofMillis(200),
                        BackendOptions.DEFAULTS.withClock(LimiterClock.CLIENT)));
            }
            RedisTime time = RedisTime.of(redis, "contract");
            Ledger ledger = new Ledger();
            Calls calls = new Calls(ledger, time);
            long origin = time.now();
            Limit bucket = Algorithm.TOKEN_BUCKET.limit(8, 3, Duration.ofSeconds(1), null);
            for (Instance instance : instances) { // in turn, 300 ms each
                long until = System.nanoTime() + Duration.ofMillis(300).toNanos();
                while (System.nanoTime() < until) {
                    calls.plain(instance, "client-clock", bucket, 1);
                    Thread.sleep(10);
                }
                calls.awaitAnswers(Duration.ofSeconds(5));
            }

            LawCheck.Worst worst = ledger.check("client-clock");
            System.out.println("[contract client clock] " + worst.describe(origin));
            assertThat(worst.exceeded()).as("three bursts of 3 within about a second: %s", worst.describe(origin))
                    .isTrue();
        }
        finally {
            instances.forEach(Instance::close);
        }
    }
}
