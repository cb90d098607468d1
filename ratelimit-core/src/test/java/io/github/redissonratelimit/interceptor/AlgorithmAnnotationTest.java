package io.github.redissonratelimit.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * The algorithms declared on annotated methods, through the interceptor and the default decision stack, on Redis:
 * a token bucket's burst, a calendar quota, and the limits of one call with different algorithms, whose grants are
 * given back when a later limit rejects the call.
 */
@ExtendWith(RealRedisExtension.class)
class AlgorithmAnnotationTest {

    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    @Test
    void aTokenBucketGrantsItsBurstThenRejectsWithTheTimeOfTheNextPermit() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Api.class)) {
            Api api = beans.bean(Api.class);

            assertThat(LimitedCalls.allowedOf(6, () -> api.search("ann"))).isEqualTo(4);
            assertThatThrownBy(() -> api.search("ann")).isInstanceOfSatisfying(RateLimitExceededException.class,
                    ex -> assertThat(ex.getRetryAfter().toSeconds()).as("one permit every 6 s").isBetween(1L, 6L));
            try (RespClient cli = redis.cli()) {
                assertThat(cli.string("GET", "rate_limit:{search:ann}:value")).startsWith("g");
            }
        }
    }

    @Test
    void aCalendarQuotaIsAFixedWindowOfTheDay() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Api.class)) {
            Api api = beans.bean(Api.class);

            assertThat(LimitedCalls.allowedOf(5, () -> api.export("acme"))).isEqualTo(2);
            try (RespClient cli = redis.cli()) {
                assertThat(cli.string("GET", "rate_limit:{export:acme}:value")).startsWith("f2:");
                assertThat(cli.number("PTTL", "rate_limit:{export:acme}:value")).isBetween(1L, 86_400_000L);
            }
        }
    }

    @Test
    void aCallRejectedByALaterLimitGivesBackWhatTheEarlierAlgorithmsGranted() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Api.class)) {
            Api api = beans.bean(Api.class);
            assertThat(LimitedCalls.allowedOf(3, () -> api.upload("bob"))).isEqualTo(1);

            try (RespClient cli = redis.cli()) {
                assertThat(cli.string("GET", "rate_limit:{upload-window:bob}:value")).as("counted once")
                        .startsWith("f1:");
            }
            // the bucket gave back the two rejected calls' permits: 4 of its 5 left for a method that shares it
            assertThat(LimitedCalls.allowedOf(6, () -> api.uploadBucketOnly("bob"))).isEqualTo(4);
        }
    }

    public static class Api {

        @RateLimit(name = "search", key = "'search:' + #user", algorithm = RateLimitAlgorithm.TOKEN_BUCKET, rate = 10,
                interval = 60, burst = 4)
        public String search(String user) {
            return user;
        }

        @RateLimit(name = "export", key = "'export:' + #tenant", rate = 2, calendar = CalendarPeriod.DAY)
        public String export(String tenant) {
            return tenant;
        }

        @RateLimit(name = "upload-bucket", key = "'upload-bucket:' + #user",
                algorithm = RateLimitAlgorithm.TOKEN_BUCKET, rate = 5, interval = 1, unit = TimeUnit.HOURS)
        @RateLimit(name = "upload-window", key = "'upload-window:' + #user",
                algorithm = RateLimitAlgorithm.FIXED_WINDOW, rate = 1, interval = 1, unit = TimeUnit.DAYS)
        @RateLimit(name = "upload-sliding", key = "'upload-sliding:' + #user", rate = 10, interval = 60)
        public String upload(String user) {
            return user;
        }

        @RateLimit(name = "upload-bucket", key = "'upload-bucket:' + #user",
                algorithm = RateLimitAlgorithm.TOKEN_BUCKET, rate = 5, interval = 1, unit = TimeUnit.HOURS)
        public String uploadBucketOnly(String user) {
            return user;
        }
    }
}
