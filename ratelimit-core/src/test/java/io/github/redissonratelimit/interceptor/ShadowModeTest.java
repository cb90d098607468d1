package io.github.redissonratelimit.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.metrics.RateLimitMetrics;
import io.github.redissonratelimit.outcome.RateLimitOutcome;
import io.github.redissonratelimit.outcome.RateLimitOutcome.Result;
import io.github.redissonratelimit.test.RunsAlone;
import io.github.redissonratelimit.test.redis.HeldPermits;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * A limit in shadow mode decides against Redis and records, but never rejects, waits or falls back. Alone: its log
 * test makes its calls within one window of a second, which a busy machine stretches past the window.
 */
@RunsAlone
@ExtendWith(RealRedisExtension.class)
class ShadowModeTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger shadowLogger = (Logger) LoggerFactory.getLogger(ShadowRejectionLog.class);
    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
        log.start();
        shadowLogger.addAppender(log);
    }

    @AfterEach
    void tearDown() {
        shadowLogger.detachAppender(log);
    }

    @Test
    void aShadowLimitNeverRejectsAndCountsWhatItWouldHaveRejected() {
        try (LimitedBeans beans = LimitedBeans.startWithListener(redis, new RateLimitMetrics(registry),
                Reports.class)) {
            Reports reports = beans.bean(Reports.class);
            for (int i = 0; i < 5; i++) {
                assertThat(reports.export("ann")).isEqualTo("export for ann");
            }
            assertThat(reports.runs()).isEqualTo(5);

            assertThat(beans.outcomes()).hasSize(5).allSatisfy(call -> assertThat(call).singleElement()
                    .satisfies(outcome -> assertThat(outcome.shadow()).isTrue()));
            assertThat(beans.outcomes()).extracting(call -> call.get(0).result()).containsExactly(Result.ALLOWED,
                    Result.ALLOWED, Result.SHADOW_REJECTED, Result.SHADOW_REJECTED, Result.SHADOW_REJECTED);
            assertThat(requests("reports-export", "shadow_rejected")).isEqualTo(3);
            assertThat(requests("reports-export", "allowed")).isEqualTo(2);
            assertThat(requests("reports-export", "rejected")).isZero();
            try (RespClient cli = redis.cli()) {
                // the two allowed calls took their permits; the three shadow rejections took nothing
                assertThat(HeldPermits.of(cli, "rate_limit:{export:ann}:permits")).isEqualTo(2);
                assertThat(cli.string("GET", "rate_limit:{export:ann}:value")).isEqualTo("0");
            }
        }
    }

    @Test
    void oneLogLinePerKeyPerWindow() throws InterruptedException {
        try (LimitedBeans beans = LimitedBeans.start(redis, Reports.class)) {
            Reports reports = beans.bean(Reports.class);
            for (int i = 0; i < 5; i++) {
                reports.perSecond("ann");
            }
            for (int i = 0; i < 3; i++) {
                reports.perSecond("bob\nFORGED");
            }
            assertThat(lines()).containsExactly(
                    "Shadow limit 'reports-second' would have rejected key 'second:ann' (1 permit(s) of 1 per PT1S, "
                            + "free again in " + retryAfterOf(beans, 1) + "); the call ran. Further rejections of this "
                            + "key are not logged for PT1S",
                    "Shadow limit 'reports-second' would have rejected key 'second:bob\\nFORGED' (1 permit(s) of 1 per "
                            + "PT1S, free again in " + retryAfterOf(beans, 6) + "); the call ran. Further rejections "
                            + "of this key are not logged for PT1S");

            Thread.sleep(1_100);
            reports.perSecond("ann");
            reports.perSecond("ann");
            assertThat(lines()).hasSize(3);
            assertThat(lines().get(2)).startsWith("Shadow limit 'reports-second' would have rejected key 'second:ann'");
            assertThat(reports.runs()).isEqualTo(10);
        }
    }

    @Test
    void aShadowLimitNeitherWaitsNorFallsBackAndTheEnforcedLimitsStillDecide() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Reports.class)) {
            Reports reports = beans.bean(Reports.class);
            assertThat(reports.shadowThenEnforced("cy")).isEqualTo("ran");
            long start = System.nanoTime();
            assertThat(reports.shadowThenEnforced("cy")).isEqualTo("ran");
            assertThat(System.nanoTime() - start).as("no wait for the shadow limit's 5s waitTimeout")
                    .isLessThan(2_000_000_000L);
            assertThatThrownBy(() -> reports.shadowThenEnforced("cy"))
                    .isInstanceOfSatisfying(RateLimitExceededException.class,
                            ex -> assertThat(ex.getLimitName()).isEqualTo("enforced"));
            assertThat(beans.outcomes().get(2)).extracting(RateLimitOutcome::limitName, RateLimitOutcome::result)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("shadow-first", Result.SHADOW_REJECTED),
                            org.assertj.core.groups.Tuple.tuple("enforced", Result.REJECTED));
            assertThat(reports.runs()).isEqualTo(2);
        }
    }

    @Test
    void whatAShadowLimitGrantedACallThatAnEnforcedLimitRejectedIsGivenBack() {
        try (LimitedBeans beans = LimitedBeans.start(redis, Reports.class)) {
            Reports reports = beans.bean(Reports.class);
            reports.roomyShadowThenTight("dee");
            assertThatThrownBy(() -> reports.roomyShadowThenTight("dee")).isInstanceOf(RateLimitExceededException.class);
            try (RespClient cli = redis.cli()) {
                assertThat(cli.string("GET", "rate_limit:{roomy:dee}:value")).isEqualTo("4");
                assertThat(cli.number("ZCARD", "rate_limit:{roomy:dee}:permits")).isEqualTo(1);
            }
        }
    }

    private double requests(String limit, String result) {
        return registry.get(RateLimitMetrics.REQUESTS).tag("limit", limit).tag("result", result).counter().count();
    }

    private List<String> lines() {
        return log.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    private static java.time.Duration retryAfterOf(LimitedBeans beans, int call) {
        return beans.outcomes().get(call).get(0).retryAfter();
    }

    public static class Reports {

        private final AtomicInteger runs = new AtomicInteger();

        int runs() {
            return runs.get();
        }

        @RateLimit(name = "reports-export", key = "'export:' + #user", rate = 2, interval = 60, shadow = true)
        public String export(String user) {
            runs.incrementAndGet();
            return "export for " + user;
        }

        @RateLimit(name = "reports-second", key = "'second:' + #user", rate = 1, interval = 1, shadow = true)
        public String perSecond(String user) {
            runs.incrementAndGet();
            return user;
        }

        @RateLimit(name = "shadow-first", key = "'shadow:' + #user", rate = 1, interval = 60, shadow = true,
                waitTimeout = "5s", fallback = "later")
        @RateLimit(name = "enforced", key = "'enforced:' + #user", rate = 2, interval = 60)
        public String shadowThenEnforced(String user) {
            runs.incrementAndGet();
            return "ran";
        }

        String later(String user) {
            return "fallback";
        }

        @RateLimit(name = "roomy", key = "'roomy:' + #user", rate = 5, interval = 60, shadow = true)
        @RateLimit(name = "tight", key = "'tight:' + #user", rate = 1, interval = 60)
        public String roomyShadowThenTight(String user) {
            return user;
        }
    }
}
