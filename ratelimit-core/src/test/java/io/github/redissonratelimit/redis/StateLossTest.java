package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static io.github.redissonratelimit.limiter.BackendCalls.state;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.FreshRedis;
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
class StateLossTest {

    private static final Duration INTERVAL = Duration.ofSeconds(1);

    private final LimiterNaming naming = new LimiterNaming();
    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();

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
     * back full). At t0+1300ms the first 5 have expired, the burst has not; at t0+1700ms the burst has too.
     */
    private int[] lossScenario(String name, BooleanSupplier acquire) throws InterruptedException {
        long t0 = System.currentTimeMillis();
        int[] granted = new int[4];
        granted[0] = granted(5, acquire);
        sleepUntil(t0, 400);
        assertThat(redis.number("DEL", LimiterNaming.valueKey(name))).isEqualTo(1);
        granted[1] = granted(6, acquire);
        sleepUntil(t0, 1_300); // 300 ms of slack for the first 5 grants to be made after t0 on a loaded machine
        granted[2] = granted(10, acquire);
        sleepUntil(t0, 1_700);
        granted[3] = granted(10, acquire);
        return granted;
    }

    @Test
    void redissonAloneGrantsTwiceTheRateForAsLongAsDemandLasts() throws InterruptedException {
        RRateLimiter limiter = fresh.newClient().getRateLimiter(naming.limiterName("loss:redisson"));
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
        RateLimitBackend backend = new RedissonRateLimitBackend(fresh.newClient());
        LimitSpec spec = new LimitSpec(5, INTERVAL, RateLimitMode.OVERALL);
        String name = naming.limiterName("loss:backend");
        acquire(backend, "warm-up:{loss}", spec, 1); // connected, script loaded: the grants below are all at t0

        int[] granted = lossScenario(name, () -> acquire(backend, name, spec, 1).allowed());

        assertThat(granted[0]).isEqualTo(5);
        assertThat(granted[1]).as("no burst: the counter came back as rate - held = 0").isZero();
        assertThat(granted[2]).as("the first 5 grants left the window").isEqualTo(5);
        assertThat(granted[3]).as("the 5 grants of t0+1300ms are still in the window").isZero();
    }

    @Test
    void losingTheGrantsBreaksRedissonAloneAndTheBackendHoldsWhatTheCounterSaysIsTaken() {
        LimitSpec spec = new LimitSpec(3, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        String name = naming.limiterName("loss:grants");
        RedissonClient client = fresh.newClient();
        RateLimitBackend backend = new RedissonRateLimitBackend(client);
        assertThat(granted(4, () -> acquire(backend, name, spec, 1).allowed())).isEqualTo(3);

        redis.command("DEL", LimiterNaming.permitsKey(name)); // the counter (0) stays

        // RRateLimiter's own script now fails on every call: it looks for the oldest grant to answer the wait
        assertThatThrownBy(() -> client.getRateLimiter(name).tryAcquire())
                .isInstanceOf(RedisException.class).hasMessageContaining("attempt to perform arithmetic on a nil value");
        // the backend holds the 3 permits the counter says are taken, for one interval from now: no extra grant
        assertThat(granted(4, () -> acquire(backend, name, spec, 1).allowed())).isZero();
        assertThat(redis.number("ZCARD", LimiterNaming.permitsKey(name))).as("one hold for the lost grants").isEqualTo(1);
        Decision rejected = acquire(backend, name, spec, 1);
        assertThat(rejected.retryAfter()).as("the hold expires one interval after the loss was seen")
                .isGreaterThan(Duration.ofSeconds(55)).isLessThanOrEqualTo(Duration.ofMinutes(1));
        assertThat(state(backend, name, spec).available()).isZero();

        redis.command("DEL", LimiterNaming.valueKey(name), LimiterNaming.permitsKey(name));
        assertThat(granted(4, () -> backend.acquire(name, spec, 1).toCompletableFuture().join().allowed()))
                .as("both lost: a fresh window").isEqualTo(3);
    }
}
