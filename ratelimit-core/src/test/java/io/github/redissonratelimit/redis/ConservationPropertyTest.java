package io.github.redissonratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RedissonClients;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * Random runs against a real Redis, one seed each: three clients take 1..rate permits, the counter or the
 * grants are deleted, the rate goes up and down (the declared config changes, {@code on-config-change=update}),
 * time passes. After every step of the scripts the law holds exactly: free ({@code :value}) + permits of the
 * grants in {@code :permits} = rate; and over the whole run no window of one interval, ending at any grant,
 * holds more permits than the rate in force when that grant was made (grants stamped by Redis's clock).
 */
@ExtendWith(RealRedisExtension.class)
class ConservationPropertyTest {

    private static final int SEEDS = 24;
    private static final int STEPS = 300;
    private static final long INTERVAL_MILLIS = 150;

    /** Free permits, rate, and every member of the grants ZSET as {id, permits, score}. */
    private static final String SNAPSHOT = """
            local grants = {}
            for _, member in ipairs(redis.call('zrange', KEYS[3], 0, -1, 'withscores')) do
              grants[#grants + 1] = member
            end
            local out = {}
            for i = 1, #grants, 2 do
              local id, permits = struct.unpack('Bc0I', grants[i])
              out[#out + 1] = id
              out[#out + 1] = permits
              out[#out + 1] = grants[i + 1]
            end
            return {redis.call('get', KEYS[2]) or 'none', redis.call('hget', KEYS[1], 'rate') or 'none', out}
            """;

    @RegisterExtension
    final RedissonClients clients = new RedissonClients();
    private RedisEndpoint redis;
    private List<AcquirePipeline> pipelines;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
        pipelines = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            RedissonClient client = clients.create(redis);
            pipelines.add(new AcquirePipeline(client, AcquireScriptTest.forClient(client.getId()), 0, 1, limiterName -> "", false));
        }
    }

    /** @param order when the grant was seen: grants of the same millisecond are counted in the order they were made */
    private record Grant(long permits, long score, long rate, long order) {
    }

    @Test
    void freePlusHeldIsTheRateAfterEveryStepAndNoWindowHoldsMore() throws Exception {
        long checks = 0;
        long resets = 0;
        long granted = 0;
        int violations = 0;
        for (int seed = 1; seed <= SEEDS; seed++) {
            Random random = new Random(seed);
            String name = "rate_limit:{property:" + seed + "}";
            long rate = 4 + random.nextInt(8);
            // a slice's member (see common.lua) gathers the grants of its slice: its permits grow while it lives
            List<Grant> grants = new ArrayList<>();
            Map<String, Integer> live = new HashMap<>();
            boolean valueLost = false;
            boolean grantsLost = false;
            try (RespClient cli = redis.cli()) {
                for (int step = 0; step < STEPS; step++) {
                    int action = random.nextInt(100);
                    if (action < 3) {
                        redis.command("DEL", LimiterNaming.valueKey(name));
                        valueLost = true;
                        continue;
                    }
                    if (action < 6) {
                        redis.command("DEL", LimiterNaming.permitsKey(name));
                        live.clear(); // a member made again after this is another one
                        grantsLost = true;
                        continue;
                    }
                    if (valueLost && grantsLost) {
                        // nothing tells what was held: the limiter starts a fresh window, as after a reset, so
                        // the windows are counted from here on (docs/operations.md)
                        grants.clear();
                        live.clear();
                        resets++;
                    }
                    valueLost = false;
                    grantsLost = false;
                    if (action < 10) {
                        TimeUnit.MILLISECONDS.sleep(random.nextInt((int) INTERVAL_MILLIS / 2));
                    }
                    AcquireScript.ConfigCheck check = AcquireScript.ConfigCheck.NONE;
                    if (action >= 94) {
                        rate = Math.max(1, rate + (random.nextBoolean() ? 1 : -1) * (1 + random.nextInt(4)));
                        check = AcquireScript.ConfigCheck.UPDATE;
                    }
                    LimitSpec spec = new LimitSpec(rate, Duration.ofMillis(INTERVAL_MILLIS), RateLimitMode.OVERALL);
                    long permits = 1 + random.nextInt((int) Math.min(rate, 3));
                    AcquirePipeline pipeline = pipelines.get(random.nextInt(pipelines.size()));
                    AcquireCall call = new AcquireCall(name, permits, spec, check, new CompletableFuture<>());
                    pipeline.acquire(call);
                    AcquireScript.Reply reply = call.result().get(10, TimeUnit.SECONDS);
                    granted += reply.waitMillis() == 0 ? 1 : 0;

                    List<?> snapshot = (List<?>) cli.command("EVAL", SNAPSHOT, "3", name, LimiterNaming.valueKey(name),
                            LimiterNaming.permitsKey(name));
                    long free = Long.parseLong(snapshot.get(0).toString());
                    long stored = Long.parseLong(snapshot.get(1).toString());
                    List<?> members = (List<?>) snapshot.get(2);
                    long held = 0;
                    Map<String, Integer> seen = new HashMap<>();
                    for (int i = 0; i < members.size(); i += 3) {
                        String id = members.get(i).toString() + "@" + members.get(i + 2);
                        long grantPermits = Long.parseLong(members.get(i + 1).toString());
                        held += grantPermits;
                        if (!id.startsWith("held:")) {
                            Integer index = live.get(id);
                            Grant grant = new Grant(grantPermits, Long.parseLong(members.get(i + 2).toString()), stored,
                                    checks);
                            if (index == null) {
                                index = grants.size();
                                grants.add(grant);
                            }
                            else if (grantPermits < grants.get(index).permits()) {
                                index = grants.size(); // no member gives permits back here: another member
                                grants.add(grant);
                            }
                            else if (grantPermits > grants.get(index).permits()) {
                                grants.set(index, new Grant(grantPermits, grant.score(), stored, grants.get(index).order()));
                            }
                            seen.put(id, index);
                        }
                    }
                    live.clear();
                    live.putAll(seen);
                    checks++;
                    if (stored != rate || free + held != rate) {
                        violations++;
                    }
                    assertThat(free + held).as("seed %d step %d: free %d + held %d = rate %d (stored %d)", seed, step,
                            free, held, rate, stored).isEqualTo(rate);
                    assertThat(reply.free()).as("the reply never reports a negative count").isNotNegative();
                }
            }
            List<Grant> sorted = grants.stream()
                    .sorted(java.util.Comparator.comparingLong(Grant::score).thenComparingLong(Grant::order)).toList();
            for (int end = 0; end < sorted.size(); end++) {
                Grant last = sorted.get(end);
                long inWindow = 0;
                for (int i = end; i >= 0 && sorted.get(i).score() > last.score() - INTERVAL_MILLIS; i--) {
                    inWindow += sorted.get(i).permits();
                }
                if (inWindow > last.rate()) {
                    violations++;
                    for (int i = end; i >= 0 && sorted.get(i).score() > last.score() - INTERVAL_MILLIS; i--) {
                        System.out.println("[property] window of the violation: " + sorted.get(i));
                    }
                }
                assertThat(inWindow).as("seed %d: permits in the %d ms ending at %d", seed, INTERVAL_MILLIS, last.score())
                        .isLessThanOrEqualTo(last.rate());
            }
        }
        System.out.printf("[property] %d seeds x %d steps: %d conservation checks, %d grants, %d fresh windows after "
                + "both keys were lost, violations found: %d%n", SEEDS, STEPS, checks, granted, resets, violations);
        assertThat(violations).isZero();
    }
}
