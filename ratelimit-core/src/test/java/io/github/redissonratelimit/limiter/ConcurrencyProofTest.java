package io.github.redissonratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.key.LimiterNaming;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedissonClients;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * Twelve threads on three Redisson clients take permits from one OVERALL limiter (20 per second) as
 * fast as they are granted, for four and a half windows. Every grant is recorded by Redis itself
 * ({@link GrantLog}: the stamp the limiter stored and when Redis ran the script).
 *
 * <p>RRateLimiter stamps a grant with the calling client's clock when the command is built, and Redis
 * runs the commands in the order they arrive. A call that was in flight {@code d} ms runs as if its
 * client's clock were {@code d} ms late, and the expired grants a later-stamped call already removed are
 * not counted for it: so the guarantee is that no window of {@code interval - D} holds more than
 * {@code rate} grants, where {@code D} is the longest a call was in flight; a window of the full interval
 * can hold a few more (the grants made within {@code D} of its edge). This is the same tolerance as for
 * clock skew between clients, which this test keeps at zero (one JVM, one machine, one clock). See
 * docs/operations.md for the argument and the measured figures.
 */
@ExtendWith(RealRedisExtension.class)
class ConcurrencyProofTest {

    private static final int RATE = 20;
    private static final Duration INTERVAL = Duration.ofSeconds(1);
    private static final Duration RUN = Duration.ofMillis(4_500);

    @RegisterExtension
    final RedissonClients clients = new RedissonClients();
    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    @Test
    void threadsOfThreeClientsNeverGetMoreThanRatePerWindowAndAreNotStarved() throws Exception {
        prove(false);
    }

    /** The flood shortcut is on by default, so the proof must hold with it too. */
    @Test
    void theProofHoldsWithTheFloodShortcut() throws Exception {
        prove(true);
    }

    private void prove(boolean floodShortcut) throws Exception {
        LimitSpec spec = new LimitSpec(RATE, INTERVAL, RateLimitMode.OVERALL);
        String name = new LimiterNaming().limiterName("proof:overall");
        List<RateLimitBackend> backends = backends(3, spec);
        if (floodShortcut) {
            backends = backends.stream().map(backend -> (RateLimitBackend) new LocalRejectionCache(backend, 1_000))
                    .toList();
        }
        Hammer hammer = new Hammer(backends, 4);

        GrantLog log = GrantLog.start(redis, name);
        long started = System.currentTimeMillis();
        try {
            hammer.run(name, spec, RUN, null, null);
        }
        finally {
            log.close();
        }
        long ended = System.currentTimeMillis();

        List<GrantLog.Event> grants = log.grants();
        assertThat(grants).as("every grant the threads saw was made by Redis, and no other").hasSize(hammer.granted());
        long maxInFlight = log.calls().stream().mapToLong(GrantLog.Event::inFlightMillis).max().orElseThrow() + 1;
        long guaranteedWindow = INTERVAL.toMillis() - maxInFlight;
        assertThat(guaranteedWindow).as("calls in flight for most of a window prove nothing").isGreaterThan(INTERVAL.toMillis() / 2);

        assertThat(GrantLog.maxInAnyWindow(grants, guaranteedWindow)).as("grants in any %dms window", guaranteedWindow)
                .isLessThanOrEqualTo(RATE);
        List<Long> perWindow = new ArrayList<>();
        List<Long> perWidenedWindow = new ArrayList<>();
        long first = grants.get(0).stampMillis();
        for (long from = first; from + INTERVAL.toMillis() + maxInFlight <= ended; from += INTERVAL.toMillis()) {
            perWindow.add(GrantLog.countIn(grants, from, from + INTERVAL.toMillis()));
            perWidenedWindow.add(GrantLog.countIn(grants, from, from + INTERVAL.toMillis() + maxInFlight));
        }
        // no starvation, with the same tolerance as the upper bound: a grant can land up to D late, so a
        // window widened by D holds at least rate grants (an exact 1 s window may see rate - 1 next to one
        // that got rate + 1)
        assertThat(perWidenedWindow).as("grants per %d ms window from the first grant", INTERVAL.toMillis() + maxInFlight)
                .hasSizeGreaterThanOrEqualTo(3).allSatisfy(count -> assertThat(count).isGreaterThanOrEqualTo(RATE));
        System.out.printf("[proof%s] %d threads on 3 clients, %d ms: %d attempts, %d grants; per window %s; most in any "
                + "%d ms window: %d, in any %d ms window: %d; longest in flight %d ms; first grant %d ms after start%n",
                floodShortcut ? " with flood shortcut" : "", 12, ended - started, hammer.attempts(), grants.size(), perWindow, INTERVAL.toMillis(),
                GrantLog.maxInAnyWindow(grants, INTERVAL.toMillis()), guaranteedWindow,
                GrantLog.maxInAnyWindow(grants, guaranteedWindow), maxInFlight - 1, first - started);
    }

    private List<RateLimitBackend> backends(int count, LimitSpec spec) {
        List<RateLimitBackend> backends = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            RedissonClient client = clients.create(redis);
            RateLimitBackend backend = new RedissonRateLimitBackend(client);
            backend.tryAcquire("warm-up:{" + i + "}", spec, 1); // connections open, scripts loaded
            backends.add(backend);
        }
        return backends;
    }
}
