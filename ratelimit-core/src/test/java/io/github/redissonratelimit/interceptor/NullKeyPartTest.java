package io.github.redissonratelimit.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.redissonratelimit.RateLimitKeyException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import reactor.core.publisher.Mono;

/**
 * A null value anywhere in a key is a missing key, through the aspect on a real Redis: {@code 'order:' + #userId}
 * with a null {@code userId} is refused as a null key is (the method does not run, no limiter is made) instead of
 * limiting every such call under {@code order:null}; a key that really holds the text {@code null} is a key.
 */
@ExtendWith(RealRedisExtension.class)
class NullKeyPartTest {

    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    public static class Orders {

        private final AtomicInteger runs = new AtomicInteger();

        @RateLimit(key = "'order:' + #userId", rate = 5, interval = 60)
        public String submit(String userId) {
            runs.incrementAndGet();
            return "submitted";
        }

        @RateLimit(key = "#userId + ':' + #region", rate = 5, interval = 60)
        public String ship(String userId, String region) {
            runs.incrementAndGet();
            return "shipped";
        }

        @RateLimit(key = "#region == 'eu' ? 'eu:' + #userId : 'null:' + #region", rate = 5, interval = 60)
        public String route(String userId, String region) {
            runs.incrementAndGet();
            return "routed";
        }

        @RateLimit(key = "'order:'.concat(#userId + ':x')", rate = 5, interval = 60)
        public String concat(String userId) {
            runs.incrementAndGet();
            return "concatenated";
        }

        @RateLimit(key = "'order:' + #userId", rate = 5, interval = 60)
        public CompletableFuture<String> submitLater(String userId) {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture("later");
        }

        @RateLimit(key = "'order:' + #userId", rate = 5, interval = 60)
        public Mono<String> submitReactive(String userId) {
            return Mono.fromCallable(() -> {
                runs.incrementAndGet();
                return "reactive";
            });
        }

        public int runs() {
            return runs.get();
        }
    }

    @Test
    void aNullArgumentConcatenatedIntoAKeyIsAMissingKey() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Orders.class)) {
            Orders orders = beans.bean(Orders.class);

            assertThatThrownBy(() -> orders.submit(null)).isInstanceOf(RateLimitKeyException.class)
                    .hasMessageContaining("\"'order:' + #userId\"")
                    .hasMessageContaining(Orders.class.getName() + ".submit(String)")
                    .hasMessageContaining("has a null part: #userId is null");
            assertThatThrownBy(() -> orders.ship("ann", null)).as("the shortcut for argument keys steps aside")
                    .isInstanceOf(RateLimitKeyException.class).hasMessageContaining("#region is null");
            assertThatThrownBy(() -> orders.ship(null, "eu")).isInstanceOf(RateLimitKeyException.class)
                    .hasMessageContaining("#userId is null");
            assertThatThrownBy(() -> orders.route(null, "eu")).as("the branch the condition took")
                    .isInstanceOf(RateLimitKeyException.class).hasMessageContaining("#userId is null");
            assertThatThrownBy(() -> orders.concat(null)).as("inside a concat(..) argument")
                    .isInstanceOf(RateLimitKeyException.class).hasMessageContaining("#userId is null");
            assertThat(orders.runs()).as("no refused call ran").isZero();
            assertThat(redis.keys("rate_limit:*")).as("and none made a limiter").isEmpty();
        }
    }

    @Test
    void aKeyThatReallyContainsNullIsAKey() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Orders.class)) {
            Orders orders = beans.bean(Orders.class);

            assertThat(orders.submit("nullable")).isEqualTo("submitted");
            assertThat(orders.submit("null")).as("a user who is named null").isEqualTo("submitted");
            assertThat(orders.ship("ann", "null-island")).isEqualTo("shipped");
            assertThat(orders.route("ann", "us")).as("a literal 'null:' and a region").isEqualTo("routed");
            assertThat(orders.concat("nullish")).isEqualTo("concatenated");
            assertThat(orders.runs()).isEqualTo(5);
            assertThat(redis.keys("rate_limit:*")).contains("rate_limit:{order:nullable}", "rate_limit:{order:null}",
                    "rate_limit:{ann:null-island}", "rate_limit:{null:us}", "rate_limit:{order:nullish:x}");
        }
    }

    @Test
    void futureAndReactiveCallsFailTheSameWay() throws Exception {
        try (LimitedBeans beans = LimitedBeans.start(redis, Orders.class)) {
            Orders orders = beans.bean(Orders.class);

            CompletableFuture<String> later = orders.submitLater(null);
            assertThatThrownBy(() -> later.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(RateLimitKeyException.class).hasMessageContaining("#userId is null");
            assertThatThrownBy(() -> orders.submitReactive(null).block()).isInstanceOf(RateLimitKeyException.class)
                    .hasMessageContaining("#userId is null");
            assertThat(orders.runs()).isZero();
            assertThat(orders.submitLater("nullable").get(30, TimeUnit.SECONDS)).isEqualTo("later");
            assertThat(orders.submitReactive("nullable").block()).isEqualTo("reactive");
            assertThat(redis.keys("rate_limit:*")).isNotEmpty()
                    .allSatisfy(key -> assertThat(key).startsWith("rate_limit:{order:nullable}"));
        }
    }
}
