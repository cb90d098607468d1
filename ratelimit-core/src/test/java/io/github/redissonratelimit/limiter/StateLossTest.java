package io.github.redissonratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.key.LimiterNaming;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedissonClients;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * The free permits counter {@code {key}:value} disappears mid-run while the grants in {@code {key}:permits}
 * stay, as after a failover to a replica that missed a write, or an eviction of that one key.
 *
 * <p>RRateLimiter's acquire script, on a missing counter, re-creates it full ({@code rate}) although the
 * grants of the current window are still in the ZSET: up to {@code rate} extra grants follow. Its
 * correction branch ("if free + released > rate, recount the ZSET") only runs when expired grants are
 * released and the sum exceeds the rate; under steady demand the counter is near zero whenever grants
 * expire, so the sum never exceeds it and twice the rate is granted for as long as the demand lasts
 * (measured below). The backend's acquire script re-creates a missing counter from the grants still in
 * the window, so the invariant free + held = rate holds right after the loss.
 */
@ExtendWith(RealRedisExtension.class)
class StateLossTest {

    private static final Duration INTERVAL = Duration.ofSeconds(1);

    @RegisterExtension
    final RedissonClients clients = new RedissonClients();
    private final LimiterNaming naming = new LimiterNaming();
    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    private RedissonClient client() {
        RedissonClient client = clients.create(redis);
        return client;
    }

    private static int granted(int calls, BooleanSupplier call) {
        return (int) IntStream.range(0, calls).filter(i -> call.getAsBoolean()).count();
    }

    private static void sleepUntil(long startMillis, long offsetMillis) throws InterruptedException {
        long remaining = startMillis + offsetMillis - System.currentTimeMillis();
        if (remaining > 0) {
            Thread.sleep(remaining);
        }
    }

    /**
     * 5 grants at t0; the counter is deleted at t0+400ms and 5 more are granted at once (the counter came
     * back full). At t0+1150ms the first 5 have expired, the burst has not; at t0+1550ms the burst has too.
     */
    private int[] lossScenario(String name, BooleanSupplier acquire) throws InterruptedException {
        long t0 = System.currentTimeMillis();
        int[] granted = new int[4];
        granted[0] = granted(5, acquire);
        sleepUntil(t0, 400);
        assertThat(redis.number("DEL", LimiterKeys.value(name))).isEqualTo(1);
        granted[1] = granted(6, acquire);
        sleepUntil(t0, 1_150);
        granted[2] = granted(10, acquire);
        sleepUntil(t0, 1_550);
        granted[3] = granted(10, acquire);
        return granted;
    }

    @Test
    void redissonAloneGrantsTwiceTheRateForAsLongAsDemandLasts() throws InterruptedException {
        RRateLimiter limiter = client().getRateLimiter(naming.limiterName("loss:redisson"));
        limiter.trySetRate(RateType.OVERALL, 5, INTERVAL);

        int[] granted = lossScenario(naming.limiterName("loss:redisson"), limiter::tryAcquire);

        assertThat(granted[0]).isEqualTo(5);
        assertThat(granted[1]).as("burst: the counter came back full").isEqualTo(5);
        // the first grants expire: 0 free + 5 released is not above the rate, so the correction does not run
        // and 5 more are granted while the burst's 5 are still in the window: 10 in [t0+400, t0+1400)
        assertThat(granted[2]).isEqualTo(5);
        assertThat(granted[3]).as("and so on, one window after another").isEqualTo(5);
    }

    @Test
    void theBackendRecountsALostCounterFromTheGrantsInTheWindow() throws InterruptedException {
        RateLimitBackend backend = new RedissonRateLimitBackend(client());
        LimitSpec spec = new LimitSpec(5, INTERVAL, RateLimitMode.OVERALL);
        String name = naming.limiterName("loss:backend");

        int[] granted = lossScenario(name, () -> backend.tryAcquire(name, spec, 1).allowed());

        assertThat(granted[0]).isEqualTo(5);
        assertThat(granted[1]).as("no burst: the counter came back as rate - held = 0").isZero();
        assertThat(granted[2]).as("the first 5 grants left the window").isEqualTo(5);
        assertThat(granted[3]).as("the 5 grants of t0+1150ms are still in the window").isZero();
    }

    @Test
    void underConcurrentLoadALostCounterAdmitsNoExtraGrants() throws Exception {
        int rate = 10;
        LimitSpec spec = new LimitSpec(rate, INTERVAL, RateLimitMode.OVERALL);
        String name = naming.limiterName("loss:concurrent");
        List<RateLimitBackend> backends = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            RateLimitBackend backend = new RedissonRateLimitBackend(client());
            backend.tryAcquire("warm-up:{" + i + "}", spec, 1);
            backends.add(backend);
        }
        Hammer hammer = new Hammer(backends, 3);
        AtomicLong deletedAt = new AtomicLong();

        GrantLog log = GrantLog.start(redis, name);
        try {
            hammer.run(name, spec, Duration.ofMillis(4_500), Duration.ofMillis(1_500), () -> {
                deletedAt.set(System.currentTimeMillis());
                redis.command("DEL", LimiterKeys.value(name));
            });
        }
        finally {
            log.close();
        }

        List<GrantLog.Event> grants = log.grants();
        assertThat(grants).hasSize(hammer.granted());
        long maxInFlight = log.calls().stream().mapToLong(GrantLog.Event::inFlightMillis).max().orElseThrow() + 1;
        long window = INTERVAL.toMillis() - maxInFlight;
        long lost = deletedAt.get();
        List<GrantLog.Event> before = GrantLog.between(grants, 0, lost);
        List<GrantLog.Event> afterOneInterval = GrantLog.between(grants, lost + INTERVAL.toMillis(), Long.MAX_VALUE);
        int burst = (int) GrantLog.countIn(grants, lost, lost + INTERVAL.toMillis()) - rate;
        assertThat(GrantLog.maxInAnyWindow(before, window)).isLessThanOrEqualTo(rate);
        assertThat(GrantLog.maxInAnyWindow(grants, window)).as("no extra grants: the counter is recounted")
                .isLessThanOrEqualTo(rate);
        assertThat(GrantLog.maxInAnyWindow(afterOneInterval, window)).as("from one interval after the loss")
                .isLessThanOrEqualTo(rate);
        assertThat(afterOneInterval).as("and not starved").hasSizeGreaterThanOrEqualTo(rate);
        System.out.printf("[state-loss] %d grants; counter deleted %d ms after the first; grants in the interval "
                + "after the loss: %d (rate %d); most in any %d ms window: before %d, overall %d, from one "
                + "interval after the loss %d; longest in flight %d ms%n", grants.size(),
                lost - grants.get(0).stampMillis(), rate + burst, rate, window, GrantLog.maxInAnyWindow(before, window),
                GrantLog.maxInAnyWindow(grants, window), GrantLog.maxInAnyWindow(afterOneInterval, window),
                maxInFlight - 1);
    }

    @Test
    void losingTheGrantsBreaksRedissonAloneButTheBackendRepairsIt() {
        LimitSpec spec = new LimitSpec(3, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        String name = naming.limiterName("loss:grants");
        RedissonClient client = client();
        RateLimitBackend backend = new RedissonRateLimitBackend(client);
        assertThat(granted(4, () -> backend.tryAcquire(name, spec, 1).allowed())).isEqualTo(3);

        redis.command("DEL", LimiterKeys.permits(name)); // the counter (0) stays

        // RRateLimiter's own script now fails on every call: it looks for the oldest grant to answer the wait
        assertThatThrownBy(() -> client.getRateLimiter(name).tryAcquire())
                .isInstanceOf(RedisException.class).hasMessageContaining("attempt to perform arithmetic on a nil value");
        // the backend sets the counter back to the full rate (the grants it stood for are gone) and retries
        assertThat(granted(4, () -> backend.tryAcquire(name, spec, 1).allowed())).isEqualTo(3);
        assertThat(granted(4, () -> backend.tryAcquireAsync(name, spec, 1).toCompletableFuture().join().allowed()))
                .isZero();
        redis.command("DEL", LimiterKeys.permits(name));
        assertThat(granted(4, () -> backend.tryAcquireAsync(name, spec, 1).toCompletableFuture().join().allowed()))
                .as("the asynchronous call repairs alike").isEqualTo(3);
    }
}
