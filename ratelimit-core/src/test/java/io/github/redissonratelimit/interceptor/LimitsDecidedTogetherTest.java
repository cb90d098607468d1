package io.github.redissonratelimit.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;
import org.springframework.aop.framework.ProxyFactory;

import io.github.redissonratelimit.local.DecisionStacks;
import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.operation.AnnotationRateLimitOperationSource;
import io.github.redissonratelimit.outcome.RateLimitOutcome;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.HeldPermits;
import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RedissonClients;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * The limits of one call reach the Redis backend together and are decided in one script call, with the outcomes,
 * rejections and refunds of deciding them apart.
 */
@ExtendWith(RealRedisExtension.class)
class LimitsDecidedTogetherTest {

    @RegisterExtension
    final RedissonClients clients = new RedissonClients();
    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    private static long scriptCalls(CommandStats delta) {
        return delta.calls("evalsha") + delta.calls("eval");
    }

    @Test
    void aCallWithTwoLimitsCostsOneScriptCallAndDecidesAsBefore() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Orders.class)) {
            Orders orders = beans.bean(Orders.class);
            orders.single("warm-up");
            RedissonRateLimitBackend.loadScripts(beans.bean(RedissonClient.class)).toCompletableFuture().join();

            CommandStats before = redis.commandStats();
            assertThat(orders.submit("ann")).isEqualTo("ok");
            assertThat(scriptCalls(redis.commandStats().minus(before))).as("both limits in one script call")
                    .isEqualTo(1);

            before = redis.commandStats();
            orders.single("bob");
            assertThat(scriptCalls(redis.commandStats().minus(before))).isEqualTo(1);

            before = redis.commandStats();
            int allowed = 1 + LimitedCalls.allowedOf(9, () -> orders.submit("ann"));
            CommandStats delta = redis.commandStats().minus(before);

            assertThat(allowed).isEqualTo(3);
            assertThat(scriptCalls(delta)).as("9 decisions of two limits, and 7 refunds of the region's grant: %s",
                    delta).isEqualTo(9 + 7);
            try (RespClient cli = redis.cli()) {
                assertThat(cli.string("GET", "rate_limit:{user:ann}:value")).isEqualTo("0");
                assertThat(cli.string("GET", "rate_limit:{region:eu}:value")).as("every grant of a rejected call given back")
                        .isEqualTo("2");
                assertThat(HeldPermits.of(cli, "rate_limit:{region:eu}:permits")).isEqualTo(3);
            }
            List<RateLimitOutcome> rejected = beans.outcomes().get(beans.outcomes().size() - 1);
            assertThat(rejected).extracting(RateLimitOutcome::limitName).containsExactly("user");
            assertThat(rejected.get(0).retryAfter()).isBetween(Duration.ofSeconds(55), Duration.ofSeconds(60));
            assertThatThrownBy(() -> orders.submit("ann")).isInstanceOfSatisfying(RateLimitExceededException.class,
                    ex -> assertThat(ex.getLimitName()).isEqualTo("user"));
        }
    }

    @Test
    void aLimitAskedBeforeTheAskingFailedIsStillSent() throws Exception {
        RedissonClient client = clients.create(redis);
        RedissonRateLimitBackend redisBackend = new RedissonRateLimitBackend(client);
        RateLimitBackend failingOnRegion = new RateLimitBackend() {
            @Override
            public CompletionStage<Decision> acquire(AcquireRequest request) {
                String limiterName = request.limiterName();
                LimitSpec spec = request.spec();
                long permits = request.permits();
                if (limiterName.contains("region")) {
                    throw new AssertionError("a backend bug"); // an Error: not turned into a failed decision
                }
                return redisBackend.acquire(limiterName, spec, permits);
            }
        };
        RateLimitInterceptor interceptor = new RateLimitInterceptor(
                new AnnotationRateLimitOperationSource(new KeyExpressionParser()),
                () -> DecisionStacks.around(failingOnRegion));
        ProxyFactory factory = new ProxyFactory(new Orders());
        factory.setProxyTargetClass(true);
        factory.addAdvice(interceptor);
        Orders orders = (Orders) factory.getProxy();

        assertThatThrownBy(() -> orders.submit("cy")).isInstanceOf(AssertionError.class);

        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!"2".equals(redis.string("GET", "rate_limit:{user:cy}:value")) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(redis.string("GET", "rate_limit:{user:cy}:value"))
                .as("the user limit, held for the call's other limit, was sent when the asking ended").isEqualTo("2");
    }

    public static class Orders {

        @RateLimit(name = "user", key = "'user:' + #user", rate = 3, interval = 60)
        @RateLimit(name = "region", key = "'region:eu'", rate = 5, interval = 60)
        public String submit(String user) {
            return "ok";
        }

        @RateLimit(name = "single", key = "'single:' + #user", rate = 3, interval = 60)
        public String single(String user) {
            return "ok";
        }
    }
}
