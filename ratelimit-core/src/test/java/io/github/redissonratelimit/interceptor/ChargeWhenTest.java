package io.github.redissonratelimit.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.BeanCreationException;

import io.github.redissonratelimit.InvalidRateLimitException;
import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code chargeWhen}: a call whose limit is spent is refused at once; otherwise it runs, and its permits are given
 * back unless the condition holds once it has run. Counted in Redis: the limiter's free permits after each call.
 */
@ExtendWith(RealRedisExtension.class)
class ChargeWhenTest {

    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    /** The limiter's free permits, or null when it took none yet. */
    private Long free(String key) {
        try (RespClient cli = redis.cli()) {
            String free = cli.string("GET", "rate_limit:{" + key + "}:value");
            return free == null ? null : Long.valueOf(free);
        }
    }

    @Test
    void onlyFailedLoginsCountAndASpentLimitRefusesEvenTheRightPassword() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Logins.class)) {
            Logins logins = beans.bean(Logins.class);

            for (int i = 0; i < 5; i++) {
                assertThat(logins.login("ann", "secret")).isEqualTo("welcome ann");
            }
            assertThat(free("login:ann")).as("successful logins are given back at once").isEqualTo(3L);

            assertThatThrownBy(() -> logins.login("ann", "guess")).isInstanceOf(SecurityException.class);
            assertThatThrownBy(() -> logins.login("ann", "guess")).isInstanceOf(SecurityException.class);
            assertThat(free("login:ann")).as("each failure keeps its permit").isEqualTo(1L);
            assertThat(logins.login("ann", "secret")).isEqualTo("welcome ann");
            assertThat(free("login:ann")).isEqualTo(1L);
            assertThatThrownBy(() -> logins.login("ann", "guess")).isInstanceOf(SecurityException.class);

            int before = logins.attempts();
            assertThatThrownBy(() -> logins.login("ann", "secret")).isInstanceOf(RateLimitExceededException.class);
            assertThat(logins.attempts()).as("a spent limit refuses before the method runs").isEqualTo(before);
            assertThat(free("login:bob")).isNull();
        }
    }

    @Test
    void theConditionSeesTheResult() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Logins.class)) {
            Logins logins = beans.bean(Logins.class);

            assertThat(logins.check("cy", false)).isFalse();
            assertThat(logins.check("cy", true)).isTrue();
            assertThat(logins.check("cy", false)).isFalse();
            assertThat(free("check:cy")).as("two false results charged, the true one given back").isEqualTo(1L);
        }
    }

    @Test
    void futuresAndReactiveCallsAreSettledWhenTheyEnd() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Logins.class)) {
            Logins logins = beans.bean(Logins.class);

            assertThat(logins.loginLater("dee", "secret").join()).isEqualTo("welcome dee");
            assertThatThrownBy(() -> logins.loginLater("dee", "guess").join()).isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(SecurityException.class);
            assertThat(free("later:dee")).as("settled before the future completes").isEqualTo(2L);

            assertThat(logins.loginMono("eve", "secret").block(Duration.ofSeconds(10))).isEqualTo("welcome eve");
            assertThatThrownBy(() -> logins.loginMono("eve", "guess").block(Duration.ofSeconds(10)))
                    .isInstanceOf(SecurityException.class);
            assertThat(logins.loginMono("eve", "none").block(Duration.ofSeconds(10))).isNull();
            assertThat(free("mono:eve")).as("the error charged; the value and the empty result given back")
                    .isEqualTo(2L);

            assertThat(logins.events("fay", false).collectList().block(Duration.ofSeconds(10))).containsExactly("a", "b");
            assertThatThrownBy(() -> logins.events("fay", true).collectList().block(Duration.ofSeconds(10)))
                    .isInstanceOf(SecurityException.class);
            assertThat(free("flux:fay")).isEqualTo(2L);
        }
    }

    @Test
    void aConditionThatReadsWhatTheCallDoesNotHaveFailsStartup() {
        assertThatThrownBy(() -> LimitedBeans.start(redis, Misspelt.class).close())
                .isInstanceOf(BeanCreationException.class)
                .satisfies(ex -> assertThat(LimitedCalls.causeOfType(ex, InvalidRateLimitException.class))
                        .hasMessageContaining(Misspelt.class.getName() + ".login")
                        .hasMessageContaining("chargeWhen \"#exeption != null\" refers to #exeption")
                        .hasMessageContaining("Fix: use one of its parameters"));
    }

    public static class Logins {

        private int attempts;

        @RateLimit(key = "'login:' + #user", rate = 3, interval = 60, chargeWhen = "#exception != null")
        public String login(String user, String password) {
            attempts++;
            if (!"secret".equals(password)) {
                throw new SecurityException("bad credentials");
            }
            return "welcome " + user;
        }

        int attempts() {
            return attempts;
        }

        @RateLimit(key = "'check:' + #user", rate = 3, interval = 60, chargeWhen = "!#result")
        public boolean check(String user, boolean ok) {
            return ok;
        }

        @RateLimit(key = "'later:' + #user", rate = 3, interval = 60, chargeWhen = "#exception != null")
        public CompletableFuture<String> loginLater(String user, String password) {
            return "secret".equals(password) ? CompletableFuture.completedFuture("welcome " + user)
                    : CompletableFuture.failedFuture(new SecurityException("bad credentials"));
        }

        @RateLimit(key = "'mono:' + #user", rate = 3, interval = 60, chargeWhen = "#exception != null")
        public Mono<String> loginMono(String user, String password) {
            return switch (password) {
                case "secret" -> Mono.just("welcome " + user);
                case "none" -> Mono.empty();
                default -> Mono.error(new SecurityException("bad credentials"));
            };
        }

        @RateLimit(key = "'flux:' + #user", rate = 3, interval = 60, chargeWhen = "#exception != null")
        public Flux<String> events(String user, boolean fail) {
            return fail ? Flux.just("a").concatWith(Flux.error(new SecurityException("denied")))
                    : Flux.just("a", "b");
        }
    }

    public static class Misspelt {

        @RateLimit(key = "#user", rate = 3, interval = 60, chargeWhen = "#exeption != null")
        public String login(String user) {
            return user;
        }
    }
}
