package io.github.redissonratelimit.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.BeanCreationException;

import io.github.redissonratelimit.InvalidRateLimitException;
import io.github.redissonratelimit.RateLimitConditionException;
import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.outcome.RateLimitOutcome;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/** waitTimeout, fallback, condition and skipIf. */
@ExtendWith(RealRedisExtension.class)
class CallOptionsTest {

    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    private LimitedBeans start(Class<?>... beans) {
        return LimitedBeans.start(redis, beans);
    }

    @Test
    void waitTimeoutWaitsForThePermitToComeBack() {
        try (LimitedBeans beans = start(Waiting.class)) {
            Waiting waiting = beans.bean(Waiting.class);

            // one permit a second: the second and third calls wait for it instead of failing
            assertThat(LimitedCalls.allowedOf(3, waiting::patient)).isEqualTo(3);
            assertThat(beans.outcomes()).allSatisfy(outcomes -> assertThat(outcomes).singleElement()
                    .satisfies(outcome -> assertThat(outcome.allowed()).isTrue()));
        }
    }

    @Test
    void withoutWaitTimeoutOrWhenThePermitComesBackTooLateTheCallIsRejected() {
        try (LimitedBeans beans = start(Waiting.class)) {
            Waiting waiting = beans.bean(Waiting.class);

            assertThat(LimitedCalls.allowedOf(2, waiting::impatient)).isEqualTo(1);
            assertThat(waiting.tooShort()).isEqualTo("ok");
            assertThatThrownBy(waiting::tooShort).isInstanceOfSatisfying(RateLimitExceededException.class,
                    ex -> assertThat(ex.getRetryAfterSeconds()).isBetween(50L, 60L));
        }
    }

    @Test
    void fallbackIsCalledInsteadOfThrowingWithTheArgumentsAndTheRejection() {
        try (LimitedBeans beans = start(Fallbacks.class)) {
            Fallbacks fallbacks = beans.bean(Fallbacks.class);

            assertThat(fallbacks.quote("ACME", 3)).isEqualTo("live ACME x3");
            assertThat(fallbacks.quote("ACME", 3)).startsWith("cached ACME x3, retry in ").endsWith("s");
            assertThat(fallbacks.plain("x")).isEqualTo("live x");
            assertThat(fallbacks.plain("x")).isEqualTo("stale x");
            assertThat(fallbacks.primitive()).isEqualTo(1);
            assertThat(fallbacks.primitive()).isEqualTo(-1);
            assertThat(fallbacks.liveCalls()).isEqualTo(3);
        }
    }

    @Test
    void whatTheFallbackThrowsReachesTheCaller() {
        try (LimitedBeans beans = start(Fallbacks.class)) {
            Fallbacks fallbacks = beans.bean(Fallbacks.class);
            fallbacks.failing();

            assertThatThrownBy(fallbacks::failing).isInstanceOf(IllegalStateException.class)
                    .hasMessage("no fallback data")
                    .hasCauseInstanceOf(RateLimitExceededException.class);
        }
    }

    @Test
    void aFallbackThatCannotBeCalledFailsStartupNamingTheMethodAndTheFix() {
        assertStartupFails(MissingFallback.class, "fallback \"nowhere\" is not a method of",
                "Fix: declare String nowhere(String) or String nowhere(String, RateLimitExceededException ex)");
        assertStartupFails(WrongParameters.class, "fallback \"other\" takes (String, String) or (int)",
                "Fix: declare String other(String)");
        assertStartupFails(WrongReturnType.class, "fallback \"number\" returns Integer, which call cannot return "
                + "(it returns String)", "Fix: let number return String");
    }

    @Test
    void skipIfLetsMatchingCallsThroughUnlimitedAndIsEvaluatedOncePerCall() {
        try (LimitedBeans beans = start(Roles.class, Conditional.class)) {
            Conditional conditional = beans.bean(Conditional.class);
            Roles roles = beans.bean(Roles.class);

            assertThat(LimitedCalls.allowedOf(5, () -> conditional.report("admin"))).isEqualTo(5);
            assertThat(LimitedCalls.allowedOf(5, () -> conditional.report("guest"))).isEqualTo(1);
            assertThat(roles.checks()).isEqualTo(10);
            assertThat(beans.outcomes()).as("skipped calls are not reported").hasSize(5);
        }
    }

    @Test
    void conditionLimitsOnlyMatchingCalls() {
        try (LimitedBeans beans = start(Roles.class, Conditional.class)) {
            Conditional conditional = beans.bean(Conditional.class);

            assertThat(LimitedCalls.allowedOf(5, () -> conditional.transfer("eve", 50))).isEqualTo(5);
            assertThat(LimitedCalls.allowedOf(5, () -> conditional.transfer("eve", 5_000))).isEqualTo(2);
            assertThat(beans.outcomes()).hasSize(5).allSatisfy(outcomes -> assertThat(outcomes)
                    .extracting(RateLimitOutcome::key).containsExactly("transfer:eve"));
        }
    }

    @Test
    void aConditionThatDoesNotGiveABooleanIsAClearErrorAndTheMethodDoesNotRun() {
        try (LimitedBeans beans = start(Roles.class, Conditional.class)) {
            Conditional conditional = beans.bean(Conditional.class);

            assertThatThrownBy(() -> conditional.broken("x")).isInstanceOf(RateLimitConditionException.class)
                    .hasMessageContaining("@RateLimit condition \"#user\" on " + Conditional.class.getName()
                            + ".broken(String) gave String 'x' instead of true or false")
                    .isInstanceOfSatisfying(RateLimitConditionException.class, ex -> assertThat(ex.getDisplayName())
                            .as("the limit it belongs to, for the 400 problem").isEqualTo("Conditional.broken"));
            assertThat(conditional.runs()).isZero();
        }
    }

    @Test
    void badWaitTimeoutOrConditionFailsStartup() {
        assertStartupFails(BadWait.class, "waitTimeout 'forever' is not a duration", "Fix: write a duration");
        assertStartupFails(BadSkip.class, "skipIf \"#user ==\" is not valid SpEL", "Fix: correct the expression");
        assertStartupFails(MisspeltCondition.class, "condition \"#usr != 'admin'\" refers to #usr, which the method "
                + "does not have", "Fix: use one of its parameters: #user, #p0");
    }

    private void assertStartupFails(Class<?> bean, String problem, String fix) {
        assertThatThrownBy(() -> start(bean).close())
                .isInstanceOf(BeanCreationException.class)
                .satisfies(ex -> assertThat(LimitedCalls.causeOfType(ex, InvalidRateLimitException.class))
                        .hasMessageContaining(bean.getName() + ".")
                        .hasMessageContaining(problem)
                        .hasMessageContaining(fix));
    }

    public static class Waiting {

        @RateLimit(rate = 1, interval = 1, waitTimeout = "5s")
        public String patient() {
            return "ok";
        }

        @RateLimit(rate = 1, interval = 60, waitTimeout = "0")
        public String impatient() {
            return "ok";
        }

        @RateLimit(rate = 1, interval = 60, waitTimeout = "200ms")
        public String tooShort() {
            return "ok";
        }
    }

    public static class Fallbacks {

        private final AtomicInteger live = new AtomicInteger();

        int liveCalls() {
            return live.get();
        }

        @RateLimit(key = "#symbol", rate = 1, interval = 60, fallback = "cachedQuote")
        public String quote(String symbol, int quantity) {
            live.incrementAndGet();
            return "live " + symbol + " x" + quantity;
        }

        String cachedQuote(String symbol, int quantity, RateLimitExceededException ex) {
            return "cached " + symbol + " x" + quantity + ", retry in " + ex.getRetryAfterSeconds() + "s";
        }

        @RateLimit(key = "'plain:' + #id", rate = 1, interval = 60, fallback = "stale")
        public String plain(String id) {
            live.incrementAndGet();
            return "live " + id;
        }

        public String stale(String id) {
            return "stale " + id;
        }

        @RateLimit(rate = 1, interval = 60, fallback = "none")
        public int primitive() {
            live.incrementAndGet();
            return 1;
        }

        private static Integer none() {
            return -1;
        }

        @RateLimit(rate = 1, interval = 60, fallback = "fails")
        public String failing() {
            return "ok";
        }

        String fails(Exception rejection) {
            throw new IllegalStateException("no fallback data", rejection);
        }
    }

    public static class MissingFallback {
        @RateLimit(rate = 1, fallback = "nowhere")
        public String call(String id) {
            return id;
        }
    }

    public static class WrongParameters {
        @RateLimit(rate = 1, fallback = "other")
        public String call(String id) {
            return id;
        }

        String other(int id) {
            return "";
        }

        String other(String id, String more) {
            return "";
        }
    }

    public static class WrongReturnType {
        @RateLimit(rate = 1, fallback = "number")
        public String call() {
            return "";
        }

        Integer number() {
            return 1;
        }
    }

    @org.springframework.stereotype.Component("roles")
    public static class Roles {

        private final AtomicInteger checks = new AtomicInteger();

        public boolean isAdmin(String user) {
            checks.incrementAndGet();
            return "admin".equals(user);
        }

        int checks() {
            return checks.get();
        }
    }

    public static class Conditional {

        private final AtomicInteger runs = new AtomicInteger();

        int runs() {
            return runs.get();
        }

        @RateLimit(key = "'report:' + #user", rate = 1, interval = 60, skipIf = "@roles.isAdmin(#user)")
        public String report(String user) {
            return "report";
        }

        @RateLimit(key = "'transfer:' + #user", rate = 2, interval = 60, condition = "#amount > 1000")
        public String transfer(String user, long amount) {
            return "sent";
        }

        @RateLimit(rate = 5, interval = 60, condition = "#user")
        public String broken(String user) {
            runs.incrementAndGet();
            return user;
        }
    }

    public static class BadWait {
        @RateLimit(rate = 1, waitTimeout = "forever")
        public void call() {
        }
    }

    public static class MisspeltCondition {
        @RateLimit(rate = 1, condition = "#usr != 'admin'")
        public void call(String user) {
        }
    }

    public static class BadSkip {
        @RateLimit(rate = 1, skipIf = "#user ==")
        public void call(String user) {
        }
    }
}
