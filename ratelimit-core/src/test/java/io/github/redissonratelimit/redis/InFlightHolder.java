package io.github.redissonratelimit.redis;

import java.time.Duration;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * The main class of a JVM that takes permits of an in-flight limit, one lease per argument, says so on its output,
 * and holds them, renewed, until it is killed ({@link InFlightKillTest}).
 * Arguments: Redis's address, the limiter's name, its rate, its lease period (ms), then the permits of each lease.
 */
final class InFlightHolder {

    static final String HOLDING = "holding";

    private InFlightHolder() {
    }

    public static void main(String[] args) throws InterruptedException {
        Config config = new Config();
        config.useSingleServer().setAddress(args[0]);
        RedissonClient client = Redisson.create(config);
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
        LimitSpec spec = new LimitSpec(Long.parseLong(args[2]), Duration.ofMillis(Long.parseLong(args[3])),
                RateLimitMode.OVERALL, LimitAlgorithm.IN_FLIGHT);
        for (int i = 4; i < args.length; i++) {
            Decision decision = backend.acquire(args[1], spec, Long.parseLong(args[i])).join();
            if (!decision.allowed()) {
                System.out.println("refused " + args[i] + " permits");
                System.exit(2);
            }
        }
        System.out.println(HOLDING + " " + backend.heldLeases() + " leases");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
